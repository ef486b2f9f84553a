"""``cc.cdrs``: call records (spec 4.7, 8.2)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import get_args

from callcenter._http import Query
from callcenter.models import Cdr, Direction, Page
from callcenter.paging import walk
from callcenter.resources._base import Resource, paging
from callcenter.timefmt import TimeArg, format_cdr_date

DIRECTIONS: tuple[str, ...] = get_args(Direction)


def cdr_filters(
    *,
    start_date: TimeArg | None,
    end_date: TimeArg | None,
    start_date_ended: TimeArg | None,
    end_date_ended: TimeArg | None,
    extension: str | None,
    status: str | None,
    hotline: str | None,
    phone: str | None,
    direction: str | None,
    campaign_uuid: str | None,
) -> list[tuple[str, str | int | float | bool]]:
    """The query of GET /v3/cdr, without paging; filters left as None are not sent."""
    if direction is not None and direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {', '.join(DIRECTIONS)}, got {direction!r}")
    params: list[tuple[str, str | int | float | bool]] = []
    for name, when in (
        ("start_date", start_date),
        ("end_date", end_date),
        ("start_date_ended", start_date_ended),
        ("end_date_ended", end_date_ended),
    ):
        if when is not None:
            params.append((name, format_cdr_date(when)))
    for name, value in (
        ("extension", extension),
        ("status", status),
        ("hotline", hotline),
        ("phone", phone),
        ("direction", direction),
        ("campaign_uuid", campaign_uuid),
    ):
        if value is not None:
            params.append((name, value))
    return params


class Cdrs(Resource):
    async def list(
        self,
        *,
        start_date: TimeArg | None = None,
        end_date: TimeArg | None = None,
        start_date_ended: TimeArg | None = None,
        end_date_ended: TimeArg | None = None,
        extension: str | None = None,
        status: str | None = None,
        hotline: str | None = None,
        phone: str | None = None,
        direction: str | None = None,
        campaign_uuid: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> Page[Cdr]:
        """GET /v3/cdr.  ``limit`` and ``offset`` are always sent: without them the
        service returns no records at all (spec 8.2).  Dates take ``datetime``,
        ``date`` (sent as ``YYYY-MM-DD``) or a string in either service format."""
        filters = cdr_filters(
            start_date=start_date,
            end_date=end_date,
            start_date_ended=start_date_ended,
            end_date_ended=end_date_ended,
            extension=extension,
            status=status,
            hotline=hotline,
            phone=phone,
            direction=direction,
            campaign_uuid=campaign_uuid,
        )
        return await self._page(filters, limit, offset)

    def iterate(
        self,
        *,
        start_date: TimeArg | None = None,
        end_date: TimeArg | None = None,
        start_date_ended: TimeArg | None = None,
        end_date_ended: TimeArg | None = None,
        extension: str | None = None,
        status: str | None = None,
        hotline: str | None = None,
        phone: str | None = None,
        direction: str | None = None,
        campaign_uuid: str | None = None,
        page_size: int = 500,
    ) -> AsyncIterator[Cdr]:
        """Every matching record, one page in memory at a time."""
        filters = cdr_filters(
            start_date=start_date,
            end_date=end_date,
            start_date_ended=start_date_ended,
            end_date_ended=end_date_ended,
            extension=extension,
            status=status,
            hotline=hotline,
            phone=phone,
            direction=direction,
            campaign_uuid=campaign_uuid,
        )
        return walk(lambda limit, offset: self._page(filters, limit, offset), page_size)

    async def _page(self, filters: Query, limit: int, offset: int) -> Page[Cdr]:
        params = [*filters, *paging(limit, offset)]
        return await self._request("GET", "/v3/cdr", Page[Cdr], idempotent=True, params=params)
