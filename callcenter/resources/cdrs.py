"""``cc.cdrs``: call records (spec 4.7, 8.2)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, TypedDict, Unpack, get_args

from callcenter._http import Query
from callcenter.models import Cdr, Direction, Page
from callcenter.paging import walk
from callcenter.resources._base import Resource, paging
from callcenter.timefmt import TimeArg, format_cdr_date

DIRECTIONS: tuple[str, ...] = get_args(Direction)


class CdrFilters(TypedDict, total=False):
    """The filters of GET /v3/cdr; one left out, or None, is not sent."""

    start_date: TimeArg | None
    end_date: TimeArg | None
    start_date_ended: TimeArg | None
    end_date_ended: TimeArg | None
    extension: str | None
    status: str | None
    hotline: str | None
    phone: str | None
    direction: str | None
    campaign_uuid: str | None


_DATES = ("start_date", "end_date", "start_date_ended", "end_date_ended")
_WORDS = ("extension", "status", "hotline", "phone", "direction", "campaign_uuid")


def cdr_filters(filters: CdrFilters) -> Query:
    """The query of GET /v3/cdr, without paging; filters left as None are not sent."""
    direction = filters.get("direction")
    if direction is not None and direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}")
    given: dict[str, Any] = dict(filters)
    params: list[tuple[str, str | int | float | bool]] = [
        (name, format_cdr_date(given[name])) for name in _DATES if given.get(name) is not None
    ]
    params += [(name, given[name]) for name in _WORDS if given.get(name) is not None]
    return params


class Cdrs(Resource):
    async def list(
        self, *, limit: int = 50, offset: int = 0, **filters: Unpack[CdrFilters]
    ) -> Page[Cdr]:
        """GET /v3/cdr.  ``limit`` and ``offset`` are always sent: without them the
        service returns no records at all (spec 8.2).  Dates take ``datetime``,
        ``date`` (sent as ``YYYY-MM-DD``) or a string in either service format."""
        return await self._page(cdr_filters(filters), limit, offset)

    def iterate(self, *, page_size: int = 500, **filters: Unpack[CdrFilters]) -> AsyncIterator[Cdr]:
        """Every matching record, one page in memory at a time."""
        query = cdr_filters(filters)
        return walk(lambda limit, offset: self._page(query, limit, offset), page_size)

    async def _page(self, filters: Query, limit: int, offset: int) -> Page[Cdr]:
        params = [*filters, *paging(limit, offset)]
        return await self._request("GET", "/v3/cdr", Page[Cdr], idempotent=True, params=params)
