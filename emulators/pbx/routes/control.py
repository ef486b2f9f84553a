"""The control surface for tests, benchmarks and the demo: ``/_emulator/...`` (no auth).

Reset, clock, call mode, faults, journal, bulk call records (a call center's traffic
over a span too), incidents (a network or campaign that stops answering), live calls
placed and moved by hand, and read helpers for state the service's own interface does not show.
None of it is journaled or subject to injected faults.
"""

from __future__ import annotations

import json
import random
import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field, ValidationError

from emulators.pbx import fakedata as fd
from emulators.pbx.bodies import read_json
from emulators.pbx.config import CALL_MODES
from emulators.pbx.errors import field_errors, not_found, string_error
from emulators.pbx.faults import ScriptedFault
from emulators.pbx.incidents import IncidentError, IncidentSpec
from emulators.pbx.owned import owned
from emulators.pbx.paging import json_response
from emulators.pbx.presence import on_calls
from emulators.pbx.schema import CDR_INSERT
from emulators.pbx.state import Domain, Emulator, emulator
from emulators.pbx.timeutil import day_start, fmt_iso, fmt_service
from emulators.pbx.volume import MAX_CALLS_PER_DAY, fill_span

router = APIRouter(prefix="/_emulator", tags=["emulator control"])

MAX_GENERATE = 2_000_000


class ControlBody(BaseModel):
    model_config = {"extra": "forbid"}


class AdvanceBody(ControlBody):
    seconds: float = Field(ge=0, le=10 * 365 * 86400)


class FreezeBody(ControlBody):
    at: float | None = None


class CallModeBody(ControlBody):
    mode: Literal["immediate", "timed", "manual"]


class FaultRule(ControlBody):
    status: int = Field(500, ge=100, le=599)
    method: str = "*"
    path: str = "*"
    body: Any = None
    times: int = Field(1, ge=1)
    delay_ms: int = Field(0, ge=0, le=600_000)
    hold_ms: int = Field(0, ge=0, le=600_000)
    retry_after: float | None = Field(None, ge=0)
    after: bool = False
    drop: bool = False


class FaultsBody(ControlBody):
    latency_ms: int | None = Field(None, ge=0, le=600_000)
    error_rate: float | None = Field(None, ge=0, le=1)
    next: list[FaultRule] = Field(default_factory=list)
    clear: bool = False


class GenerateBody(ControlBody):
    count: int = Field(ge=1, le=MAX_GENERATE)
    domain: str = "demo"
    days: int = Field(30, ge=1, le=3660)


class VolumeBody(ControlBody):
    calls_per_day: int = Field(ge=1, le=MAX_CALLS_PER_DAY)
    start: float
    end: float
    domain: str = "demo"


class IncidentBody(ControlBody):
    """``{"incident": "network=Viettel:answer=0.05:from=10:00"}``, or its parts."""

    incident: str | None = None
    network: str | None = None
    campaign: str | None = None
    answer: float | None = Field(None, ge=0, le=1)
    start: str | None = Field(None, alias="from")
    until: str | None = None
    replace: bool = False
    """Clear the incidents in force first."""


class OriginateBody(ControlBody):
    domain: str = "demo"
    direction: Literal["inbound", "outbound", "local"] = "inbound"
    source: str | None = None
    destination: str | None = None
    extension: str = ""
    campaign_uuid: str = ""
    outcome: str | None = None
    ring_seconds: float | None = Field(None, ge=0)
    talk_seconds: float | None = Field(None, ge=0)


class HangupBody(ControlBody):
    status: str | None = None


async def _body(request: Request, model: type[BaseModel], empty_ok: bool = False) -> Any:
    raw = await request.body()
    if not raw.strip() and empty_ok:
        data: Any = {}
    else:
        data = await read_json(request)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise field_errors(
            [{".".join(str(p) for p in e["loc"]) or "(root)": e["msg"]} for e in exc.errors()]
        ) from None


def _domain(emu: Emulator, name: str) -> Domain:
    domain = emu.domain_by_name(name)
    if domain is None:
        raise not_found(f"domain {name}")
    return domain


def _clock(emu: Emulator) -> dict[str, Any]:
    now = emu.now()
    return {
        "now": now,
        "iso": fmt_iso(now, emu.tz),
        "local": fmt_service(now, emu.tz),
        "frozen": emu.clock.frozen,
        "timezone": emu.config.timezone,
        "call_mode": emu.sim.mode,
    }


@router.post("/reset")
async def reset(request: Request) -> Response:
    emu = emulator(request)
    emu.reset()
    return json_response({"reset": True, **_clock(emu)})


def _ticked(emu: Emulator) -> Response:
    """The clock after the simulation has caught up with it."""
    emu.tick()
    return json_response(_clock(emu))


@router.get("/clock")
async def get_clock(request: Request) -> Response:
    return json_response(_clock(emulator(request)))


@router.post("/clock/advance")
async def advance(request: Request) -> Response:
    """Move the clock forward and replay the simulation up to the new time."""
    emu = emulator(request)
    body: AdvanceBody = await _body(request, AdvanceBody)
    emu.clock.advance(body.seconds)
    return _ticked(emu)


@router.post("/clock/freeze")
async def freeze(request: Request) -> Response:
    emu = emulator(request)
    body: FreezeBody = await _body(request, FreezeBody, empty_ok=True)
    emu.tick()
    emu.clock.freeze(body.at)
    return _ticked(emu)


@router.post("/clock/unfreeze")
async def unfreeze(request: Request) -> Response:
    emu = emulator(request)
    emu.clock.unfreeze()
    return json_response(_clock(emu))


@router.post("/call-mode")
async def call_mode(request: Request) -> Response:
    emu = emulator(request)
    body: CallModeBody = await _body(request, CallModeBody)
    emu.sim.set_mode(body.mode, emu.now())
    return json_response({"call_mode": emu.sim.mode, "modes": list(CALL_MODES)})


@router.get("/faults")
async def get_faults(request: Request) -> Response:
    return json_response(emulator(request).faults.describe())


@router.post("/faults")
async def set_faults(request: Request) -> Response:
    """Change latency or error rate (given members only) and queue scripted failures."""
    faults = emulator(request).faults
    body: FaultsBody = await _body(request, FaultsBody)
    if body.clear:
        faults.rules = []
    if body.latency_ms is not None:
        faults.latency_ms = body.latency_ms
    if body.error_rate is not None:
        faults.error_rate = body.error_rate
    faults.rules.extend(ScriptedFault(**rule.model_dump()) for rule in body.next)
    return json_response(faults.describe())


@router.delete("/faults")
async def clear_faults(request: Request) -> Response:
    faults = emulator(request).faults
    faults.reset()
    return json_response(faults.describe())


@router.get("/journal")
async def journal(
    request: Request,
    method: Annotated[str | None, Query()] = None,
    path: Annotated[str | None, Query()] = None,
    kind: Annotated[str | None, Query()] = None,
) -> Response:
    return json_response(emulator(request).journal.entries(method, path, kind))


@router.delete("/journal")
async def clear_journal(request: Request) -> Response:
    emulator(request).journal.clear()
    return json_response({"cleared": True})


_OFFICE_TRIES = 200
"""Office-hours times tried for one record before the record takes any past time."""


def _record_start(first: float, days: int, now: float, rng: random.Random) -> int:
    """When a generated call began: in office hours on one of the ``days`` days from
    ``first``, and ended by ``now``.  Before the first office hour of a one-day window
    (the early morning, in the emulator's zone) no such time exists, so a record then
    starts at any time of the window already past, or of the last hour when the day has
    only just begun; asking for today's calls at 03:00 must not hang the emulator."""
    latest = now - 600
    for _ in range(_OFFICE_TRIES):
        start = fd.business_time(first + rng.randrange(days) * 86400, rng)
        if start < latest:
            return start
    earliest = min(first, latest - 3600)
    return int(earliest) + rng.randrange(max(1, int(latest - earliest)))


@router.post("/cdrs/generate")
async def generate_cdrs(request: Request) -> Response:
    """Add ``count`` realistic call records spread over the last ``days`` days."""
    emu = emulator(request)
    body: GenerateBody = await _body(request, GenerateBody)
    domain = _domain(emu, body.domain)
    started = time.perf_counter()
    rng = random.Random(f"generate:{emu.config.seed}:{body.count}:{emu.now()}")
    factory = fd.CdrFactory(fd.load_context(emu.conn, domain.domain_uuid, rng), rng, emu.tz)
    now = emu.now()
    factory.ended_by = int(now)
    first = day_start(now, emu.tz) - (body.days - 1) * 86400
    done = 0
    with emu.store.tx() as conn:
        while done < body.count:
            chunk = min(20_000, body.count - done)
            starts = [_record_start(first, body.days, now, rng) for _ in range(chunk)]
            conn.executemany(CDR_INSERT, factory.rows(starts))
            done += chunk
    total = emu.conn.execute(
        "SELECT COUNT(*) FROM cdrs WHERE domain_uuid = ?", (domain.domain_uuid,)
    ).fetchone()[0]
    return json_response(
        {
            "inserted": done,
            "total": total,
            "domain": domain.name,
            "seconds": round(time.perf_counter() - started, 3),
        }
    )


@router.post("/cdrs/volume")
async def fill_volume(request: Request) -> Response:
    """Add a call center's traffic (``--volume``'s shape) over ``start``..``end``; the
    records follow the incidents in force."""
    emu = emulator(request)
    body: VolumeBody = await _body(request, VolumeBody)
    if body.end <= body.start or body.end - body.start > 62 * 86400:
        raise field_errors([{"end": "end must be after start, within 62 days"}])
    _domain(emu, body.domain)
    started = time.perf_counter()
    with emu.store.tx() as conn:
        written = fill_span(
            conn,
            emu.config.seed,
            emu.now(),
            emu.tz,
            body.calls_per_day,
            (body.start, body.end),
            body.domain,
            emu.incidents,
        )
    return json_response({"inserted": written, "seconds": round(time.perf_counter() - started, 3)})


@router.get("/incidents")
async def get_incidents(request: Request) -> Response:
    return json_response(emulator(request).incidents.views())


@router.post("/incidents")
async def add_incident(request: Request) -> Response:
    """A network or campaign stops answering from a time (Vietnam's clock), today."""
    emu = emulator(request)
    body: IncidentBody = await _body(request, IncidentBody)
    try:
        if body.incident:
            spec = IncidentSpec.parse(body.incident)
        else:
            spec = IncidentSpec.of(
                network=body.network,
                campaign=body.campaign,
                answer=body.answer,
                start=body.start,
                until=body.until,
            )
    except IncidentError as exc:
        raise field_errors([{"incident": str(exc)}]) from None
    if body.replace:
        emu.incidents.items.clear()
    emu.incidents.items.append(spec.at(emu.now()))
    return json_response(emu.incidents.views())


@router.delete("/incidents")
async def clear_incidents(request: Request) -> Response:
    """Every network and campaign answers as usual again."""
    emu = emulator(request)
    emu.incidents.items.clear()
    return json_response([])


@router.get("/calls")
async def list_live_calls(
    request: Request, domain: Annotated[str | None, Query()] = None
) -> Response:
    emu = emulator(request)
    domain_uuid = _domain(emu, domain).domain_uuid if domain else None
    return json_response([_call_view(emu, row) for row in emu.sim.live_calls(domain_uuid)])


def _call_view(emu: Emulator, row: dict[str, Any]) -> dict[str, Any]:
    return {**emu.sim.control_view(row), "ended": False}


@router.post("/calls")
async def originate(request: Request) -> Response:
    """Place a live call by hand (an inbound customer call unless told otherwise)."""
    emu = emulator(request)
    body: OriginateBody = await _body(request, OriginateBody, empty_ok=True)
    domain = _domain(emu, body.domain)
    if body.outcome is not None and body.outcome not in fd.CAUSES:
        raise field_errors([{"outcome": "outcome must be one of: " + ", ".join(fd.CAUSES)}])
    conn = emu.conn
    agents = [
        r[0]
        for r in conn.execute(
            "SELECT extension FROM users WHERE domain_uuid = ? AND extension != '' ORDER BY seq",
            (domain.domain_uuid,),
        )
    ]
    busy = on_calls(conn, domain.domain_uuid)
    free = [a for a in agents if a not in busy]
    campaign: dict[str, Any] | None = None
    if body.campaign_uuid:
        row = owned(conn, "campaigns", domain.domain_uuid, body.campaign_uuid, "body")
        campaign = json.loads(row[0])
    rng = emu.sim.stream("control")
    hotline = domain.hotlines[0] if domain.hotlines else ""
    if body.direction == "inbound":
        source = body.source or fd.phone_number(rng)
        destination = body.destination or hotline
        context, app, receive = "public", "callcenter", destination
    elif body.direction == "outbound":
        source = body.source or body.extension or (free[0] if free else "")
        destination = body.destination or fd.phone_number(rng)
        context, app, receive = "default", "manual", ""
    else:
        source = body.source or body.extension or (free[0] if free else "")
        others = [a for a in free if a != source]
        destination = body.destination or (others[0] if others else "")
        context, app, receive = "default", "local", ""
    if campaign is not None:
        if body.direction == "local":
            raise field_errors([{"campaign_uuid": "a local call belongs to no campaign"}])
        context, app = "campaign", str(campaign["type"])
    # The agent's side of the call (presence.parties): an inbound call dialled straight
    # to an extension rings that agent; an outbound or local call is placed by one.
    extension = body.extension
    if body.direction == "inbound" and not extension:
        extension = destination if destination in agents else ""
    if body.direction == "outbound" and not extension and not campaign:
        extension = source if source in agents else ""
    if body.direction == "local" and not extension:
        extension = source if source in agents else ""
    row_ = emu.sim.originate(
        domain,
        at=emu.now(),
        direction=body.direction,
        source=source,
        destination=destination,
        extension=extension,
        context=context,
        receive_dest=receive,
        campaign=campaign,
        app=app,
        customer_name=fd.person(rng).full,
        outcome=body.outcome,
        ring_seconds=body.ring_seconds,
        talk_seconds=body.talk_seconds,
        stream="control",
    )
    live = emu.sim.live(row_["call_id"])
    if live is None:
        return json_response(
            {
                **emu.sim.control_view(row_),
                "phase": "ended",
                "due_at": None,
                "ended": True,
                "cdr": emu.sim.record(domain.domain_uuid, row_["call_id"]),
            }
        )
    return json_response(_call_view(emu, live))


@router.post("/calls/{call_id}/answer")
async def answer(request: Request, call_id: str) -> Response:
    emu = emulator(request)
    return json_response(emu.sim.answer(None, call_id, emu.now()))


@router.post("/calls/{call_id}/hangup")
async def hangup(request: Request, call_id: str) -> Response:
    emu = emulator(request)
    body: HangupBody = await _body(request, HangupBody, empty_ok=True)
    record = emu.sim.hangup(None, call_id, emu.now(), body.status)
    return json_response({"call_id": call_id, "ended": True, "cdr": record})


@router.get("/domains")
async def domains(request: Request) -> Response:
    """The seeded domains with their (public, demo) API keys."""
    emu = emulator(request)
    return json_response(
        [
            {"domain": d.name, "domain_uuid": d.domain_uuid, "api_key": d.api_key}
            for d in emu.domains.values()
        ]
    )


@router.get("/state/{table}")
async def state(request: Request, table: str, domain: Annotated[str, Query()] = "demo") -> Response:
    """Raw rows of the emulator's tables a test may want to check directly (groups,
    group members, leads...), scoped to one domain."""
    emu = emulator(request)
    allowed = {
        "campaigns": "SELECT campaign_uuid, campaign_name, type, status, concurrent_call, body "
        "FROM campaigns WHERE domain_uuid = ? ORDER BY seq",
        "groups": "SELECT g.group_uuid, g.group_name, g.group_description, g.group_priority, "
        "(SELECT json_group_array(user_uuid) FROM group_users gu WHERE gu.group_uuid = "
        "g.group_uuid) AS members, (SELECT json_group_array(campaign_uuid) FROM group_campaigns "
        "gc WHERE gc.group_uuid = g.group_uuid) AS campaigns FROM groups g "
        "WHERE g.domain_uuid = ? ORDER BY g.seq",
        "users": "SELECT user_uuid, username, level, extension, user_status, agent_status, "
        "user_enabled FROM users WHERE domain_uuid = ? ORDER BY seq",
        "leads": "SELECT lead_uuid, list_uuid, phone_number, status, called_count, last_call_at "
        "FROM leads WHERE domain_uuid = ? ORDER BY seq",
        "lists": "SELECT list_uuid, campaign_uuid, list_name, total_upload, total_success, "
        "total_fail FROM lists WHERE domain_uuid = ? ORDER BY seq",
    }
    if table not in allowed:
        raise string_error(f"unknown table; one of: {', '.join(allowed)}", 404)
    cursor = emu.conn.execute(allowed[table], (_domain(emu, domain).domain_uuid,))
    names = [d[0] for d in cursor.description]
    rows = []
    for values in cursor.fetchall():
        row = dict(zip(names, values, strict=True))
        for key in ("body", "members", "campaigns"):
            if isinstance(row.get(key), str):
                row[key] = json.loads(row[key])
        rows.append(row)
    return json_response(rows)
