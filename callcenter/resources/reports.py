"""``cc.reports``: reports and statistics (spec 4.2, 4.3)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from typing import TypeVar, get_args

from pydantic import BaseModel

from callcenter._http import Query
from callcenter.models import (
    AgentTimeList,
    AutodialerStats,
    ExtensionReport,
    ExtensionSummaryDayList,
    ExtensionSummaryList,
    Page,
    ReportUserList,
    StatsInterval,
    StatsList,
)
from callcenter.paging import walk
from callcenter.resources._base import Resource, paging
from callcenter.timefmt import TimeArg, format_datetime

M = TypeVar("M", bound=BaseModel)

STATS_INTERVALS: tuple[str, ...] = get_args(StatsInterval)


def window(
    start: TimeArg | None, end: TimeArg | None, start_name: str, end_name: str
) -> list[tuple[str, str | int | float | bool]]:
    """A time window as the service wants it; a bare ``date`` as ``end`` means the end
    of that day, so ``(day, day)`` covers the whole day."""
    params: list[tuple[str, str | int | float | bool]] = []
    if start is not None:
        params.append((start_name, format_datetime(start)))
    if end is not None:
        params.append((end_name, format_datetime(end, end_of_day=True)))
    return params


class Reports(Resource):
    async def _report(
        self, path: str, cast: type[M], start_time: TimeArg | None, end_time: TimeArg | None
    ) -> M:
        params = window(start_time, end_time, "start_time", "end_time")
        return await self._request("GET", path, cast, idempotent=True, params=params)

    async def call_users(
        self, start_time: TimeArg | None = None, end_time: TimeArg | None = None
    ) -> ReportUserList:
        """GET /v3/report/call/user."""
        return await self._report("/v3/report/call/user", ReportUserList, start_time, end_time)

    async def extensions(
        self, start_time: TimeArg | None = None, end_time: TimeArg | None = None
    ) -> ExtensionReport:
        """GET /v2/report/extension: call counters per extension."""
        return await self._report("/v2/report/extension", ExtensionReport, start_time, end_time)

    async def extension_summary(
        self, start_time: TimeArg | None = None, end_time: TimeArg | None = None
    ) -> ExtensionSummaryList:
        """GET /v2/report/extension/summary: totals and durations per extension."""
        return await self._report(
            "/v2/report/extension/summary", ExtensionSummaryList, start_time, end_time
        )

    async def extension_summary_day(
        self, start_time: TimeArg | None = None, end_time: TimeArg | None = None
    ) -> ExtensionSummaryDayList:
        """GET /v2/report/extension/summary/day: the summary split by day."""
        return await self._report(
            "/v2/report/extension/summary/day", ExtensionSummaryDayList, start_time, end_time
        )

    async def agent_time(
        self, start_time: TimeArg | None = None, end_time: TimeArg | None = None
    ) -> AgentTimeList:
        """GET /v2/report/agent/time: pause, wait, talk and wrap-up seconds per agent."""
        return await self._report("/v2/report/agent/time", AgentTimeList, start_time, end_time)

    async def stats(
        self, start_date: TimeArg, end_date: TimeArg, interval: str = "day"
    ) -> StatsList:
        """GET /v2/stats: call counters per ``interval`` bucket (hour, day, week, month)."""
        if interval not in STATS_INTERVALS:
            raise ValueError(
                f"interval must be one of {', '.join(STATS_INTERVALS)}, got {interval!r}"
            )
        params = window(start_date, end_date, "start_date", "end_date")
        params.append(("interval", interval))
        return await self._request("GET", "/v2/stats", StatsList, idempotent=True, params=params)

    async def autodialer(
        self,
        interval: int,
        campaign_uuids: Iterable[str] = (),
        statuses: Iterable[str] = (),
        limit: int = 10,
        offset: int = 0,
    ) -> Page[AutodialerStats]:
        """GET /v3/monitor-stats/campaign/autodialer: live figures of autodialer
        campaigns over the last ``interval`` minutes.  Campaign and status filters are
        sent as repeated query parameters (spec 4.3)."""
        return await self._autodialer_page(
            _autodialer_filters(interval, campaign_uuids, statuses), limit, offset
        )

    def iterate_autodialer(
        self,
        interval: int,
        campaign_uuids: Iterable[str] = (),
        statuses: Iterable[str] = (),
        page_size: int = 50,
    ) -> AsyncIterator[AutodialerStats]:
        """Every autodialer campaign's figures, one page in memory at a time."""
        filters = _autodialer_filters(interval, campaign_uuids, statuses)
        return walk(lambda limit, offset: self._autodialer_page(filters, limit, offset), page_size)

    async def _autodialer_page(
        self, filters: Query, limit: int, offset: int
    ) -> Page[AutodialerStats]:
        return await self._request(
            "GET",
            "/v3/monitor-stats/campaign/autodialer",
            Page[AutodialerStats],
            idempotent=True,
            params=[*filters, *paging(limit, offset)],
        )


def _autodialer_filters(
    interval: int, campaign_uuids: Iterable[str], statuses: Iterable[str]
) -> list[tuple[str, str | int | float | bool]]:
    if isinstance(campaign_uuids, str) or isinstance(statuses, str):
        raise TypeError("campaign_uuids and statuses are collections of strings, not a string")
    if interval < 1:
        raise ValueError(f"interval is in minutes and must be at least 1, got {interval}")
    params: list[tuple[str, str | int | float | bool]] = [("interval", interval)]
    params.extend(("campaign_uuid", uuid) for uuid in campaign_uuids)
    params.extend(("status", status) for status in statuses)
    return params
