"""``cc.carriers``, ``cc.gateways``, ``cc.blacklist``: read-only paged listings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, ClassVar, Generic, TypeVar

from callcenter.models import BlacklistEntry, Carrier, Gateway, Page
from callcenter.paging import walk
from callcenter.resources._base import Resource, paging

T = TypeVar("T")


class _Listing(Resource, Generic[T]):
    """A listing the service pages with ``limit`` and ``offset``, and nothing else."""

    _path: ClassVar[str]
    _page: ClassVar[type[Page[Any]]]

    async def list(self, limit: int = 50, offset: int = 0) -> Page[T]:
        return await self._request(
            "GET", self._path, self._page, idempotent=True, params=paging(limit, offset)
        )

    def iterate(self, page_size: int = 50) -> AsyncIterator[T]:
        return walk(lambda limit, offset: self.list(limit, offset), page_size)


class Carriers(_Listing[Carrier]):
    """GET /v3/carrier."""

    _path, _page = "/v3/carrier", Page[Carrier]


class Gateways(_Listing[Gateway]):
    """GET /v3/gateway."""

    _path, _page = "/v3/gateway", Page[Gateway]


class Blacklist(_Listing[BlacklistEntry]):
    """GET /v1/blacklist (the example path; the request line in the spec differs)."""

    _path, _page = "/v1/blacklist", Page[BlacklistEntry]
