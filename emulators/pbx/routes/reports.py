"""4.2 and 4.3 Reports and statistics, computed from the call records.

``start_time``/``end_time`` (and ``start_date``/``end_date`` of ``/v2/stats``) default to
the start of today and now on the emulator clock, in its time zone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from callcenter import models as m
from emulators.pbx import reports
from emulators.pbx.auth import CurrentDomain
from emulators.pbx.errors import field_errors
from emulators.pbx.paging import Limit, Offset, json_response, paging
from emulators.pbx.routes.records import parse_times
from emulators.pbx.state import Emulator, emulator
from emulators.pbx.timeutil import day_start

router = APIRouter(tags=["reports"])

Text = Annotated[str | None, Query()]


def _window(
    emu: Emulator, start_name: str, start: str | None, end_name: str, end: str | None
) -> tuple[float, float]:
    times = parse_times({start_name: start, end_name: end}, {end_name}, emu.tz)
    now = emu.now()
    lower = times[start_name]
    upper = times[end_name]
    return (day_start(now, emu.tz) if lower is None else lower, now if upper is None else upper)


@dataclass(frozen=True)
class Tallied:
    """The extensions' counts over the window a report asks for (``start_time``,
    ``end_time``), with the emulator and the window's start the reports read."""

    emu: Emulator
    domain_uuid: str
    lower: float
    tallies: reports.ExtensionTallies


async def _tallied(
    request: Request, domain: CurrentDomain, start_time: Text = None, end_time: Text = None
) -> Tallied:
    emu = emulator(request)
    lower, upper = _window(emu, "start_time", start_time, "end_time", end_time)
    tallies = reports.tally(emu.conn, domain.domain_uuid, lower, upper, emu.tz)
    return Tallied(emu, domain.domain_uuid, lower, tallies)


Tallies = Annotated[Tallied, Depends(_tallied)]


@router.get("/v3/report/call/user", responses={200: {"model": m.ReportUserList}})
async def call_users(w: Tallies) -> Response:
    return json_response(m.ReportUserList(data=reports.call_users(w.tallies, w.emu.tz)))


@router.get("/v2/report/extension", responses={200: {"model": m.ExtensionReport}})
async def extension_report(w: Tallies) -> Response:
    return json_response(
        m.ExtensionReport(code=200, content="success", data=reports.extension_counters(w.tallies))
    )


@router.get("/v2/report/extension/summary", responses={200: {"model": m.ExtensionSummaryList}})
async def extension_summary(w: Tallies) -> Response:
    return json_response(m.ExtensionSummaryList(data=reports.extension_summary(w.tallies, w.lower)))


@router.get(
    "/v2/report/extension/summary/day", responses={200: {"model": m.ExtensionSummaryDayList}}
)
async def extension_summary_day(w: Tallies) -> Response:
    return json_response(
        m.ExtensionSummaryDayList(data=reports.extension_summary_day(w.tallies, w.emu.tz))
    )


@router.get("/v2/report/agent/time", responses={200: {"model": m.AgentTimeList}})
async def agent_time(w: Tallies) -> Response:
    return json_response(
        m.AgentTimeList(data=reports.agent_time(w.tallies, w.domain_uuid, w.emu.tz))
    )


@router.get("/v2/stats", responses={200: {"model": m.StatsList}})
async def stats(
    request: Request,
    domain: CurrentDomain,
    start_date: Text = None,
    end_date: Text = None,
    interval: Annotated[Literal["hour", "day", "week", "month"], Query()] = "day",
) -> Response:
    emu = emulator(request)
    lower, upper = _window(emu, "start_date", start_date, "end_date", end_date)
    rows = reports.stats(emu.conn, domain.domain_uuid, lower, upper, interval, emu.tz)
    return json_response(m.StatsList(data=rows))


@router.get(
    "/v3/monitor-stats/campaign/autodialer", responses={200: {"model": m.Page[m.AutodialerStats]}}
)
async def autodialer_stats(
    request: Request,
    domain: CurrentDomain,
    interval: Annotated[int | None, Query()] = None,
    campaign_uuid: Annotated[list[str] | None, Query()] = None,
    status: Annotated[list[str] | None, Query()] = None,
    limit: Limit = None,
    offset: Offset = None,
) -> Response:
    """``campaign_uuid`` and ``status`` repeat to filter by several values (spec 4.3)."""
    if interval is None:
        raise field_errors([{"interval": "interval is required"}])
    if interval <= 0 or interval > 60 * 24 * 3660:
        raise field_errors([{"interval": "interval must be a positive number of minutes"}])
    size, skip = paging(limit, offset)
    emu = emulator(request)
    rows = reports.autodialer(
        emu.conn, domain.domain_uuid, emu.now(), interval, campaign_uuid or [], status or []
    )
    return json_response(
        m.Page[m.AutodialerStats](
            data=rows[skip : skip + size], limit=size, offset=skip, total=len(rows)
        )
    )
