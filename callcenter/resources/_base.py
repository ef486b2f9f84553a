"""What every resource shares: the request core and path-segment quoting."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from callcenter._http import ApiCall, FilesOpener, HttpCore, Query
from callcenter._responses import M
from callcenter.errors import FieldValidationError
from callcenter.paging import check_page_args
from callcenter.rules import FieldErrors


def segment(value: str) -> str:
    """Quote an identifier for use as one path segment, so ``../x`` stays a value."""
    return quote(str(value), safe="")


class Resource:
    """Base of the resource families (``cc.users``, ``cc.campaigns``...)."""

    def __init__(self, core: HttpCore) -> None:
        self._core = core

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"

    async def _request(
        self,
        method: str,
        path: str,
        cast: type[M],
        *,
        idempotent: bool,
        params: Query | None = None,
        json: Any = None,
        data: Mapping[str, str] | None = None,
        files: FilesOpener | None = None,
        replayable: bool = True,
    ) -> M:
        """Send one call; ``idempotent`` is required so every endpoint says, at its own
        definition, whether ``callcenter.retry`` may send it twice."""
        call = ApiCall(
            method,
            path,
            idempotent=idempotent,
            params=params,
            json=json,
            data=data,
            files=files,
            replayable=replayable,
        )
        return await self._core.send(call, cast)


def raise_field_errors(items: FieldErrors, method: str, path: str) -> None:
    """Fail before sending, with the same error the service would answer."""
    if items:
        raise FieldValidationError(items, method=method, path=path)


def paging(limit: int, offset: int) -> list[tuple[str, str | int | float | bool]]:
    """The ``limit``/``offset`` pair, checked so a negative offset fails here, not as an
    empty page from the service."""
    check_page_args(limit, offset)
    return [("limit", limit), ("offset", offset)]
