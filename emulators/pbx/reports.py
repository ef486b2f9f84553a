"""Reports and statistics, computed from the call records (and leads, agents, live calls).

Every figure is a count over the same rows ``GET /v3/cdr`` lists for the same window
(``records.CdrFilter``), so ``/v2/stats``, the extension reports, the autodialer
statistics and the record listing agree.  Extension reports group by the extension
written on each record, so a record stays counted after its user changes extension.
Time buckets (hour, day, week, month) are cut in the emulator's time zone; the
database groups by 15-minute slots (every real zone offset is a multiple of them) and
the slots are folded into buckets here.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, fields
from datetime import datetime, tzinfo
from typing import Any

from callcenter.models import (
    AgentTime,
    AutodialerStats,
    AutodialerTotals,
    DayReport,
    ExtensionCounters,
    ExtensionSummary,
    ExtensionSummaryDay,
    ExtensionTotals,
    Group,
    ReportUser,
    StatsRow,
)
from emulators.pbx.errors import string_error
from emulators.pbx.presence import on_calls
from emulators.pbx.records import CdrFilter
from emulators.pbx.timeutil import (
    SERVICE_FORMAT,
    bucket_start,
    fmt_iso_utc,
    fmt_service,
    next_bucket,
)

SLOT = 900
MAX_BUCKETS = 10_000
DISPO_SECONDS_PER_ANSWER = 15
"""After-call work an agent spends per answered call, for ``total_dispo_sec``."""

_STAT_SUMS = (
    "COUNT(*), SUM(status = 'answered'), SUM(status = 'busy'), SUM(status = 'busy-line'), "
    "SUM(status = 'cancel'), SUM(status = 'congestion'), SUM(direction = 'inbound'), "
    "SUM(status = 'invalid'), SUM(app IN ('autocall', 'ivr')), SUM(direction = 'local'), "
    "SUM(status = 'no-answered'), SUM(status = 'not-available'), SUM(direction = 'outbound'), "
    "SUM(status = 'phone-block'), SUM(billsec), SUM(duration), SUM(duration - billsec)"
)
_STAT_KEYS = (
    "total",
    "answered",
    "busy",
    "busy_line",
    "cancel",
    "congestion",
    "inbound",
    "invalid",
    "ivr",
    "local",
    "no_answered",
    "not_available",
    "outbound",
    "phone_block",
    "total_billsec",
    "total_duration",
    "total_waitsec",
)


def stats(
    conn: sqlite3.Connection,
    domain_uuid: str,
    start: float,
    end: float,
    interval: str,
    tz: tzinfo,
) -> list[StatsRow]:
    """``/v2/stats``: one row per bucket of the window, empty buckets included."""
    buckets: list[datetime] = []
    if start <= end:
        cursor = bucket_start(start, tz, interval)
        while cursor.timestamp() <= end:
            buckets.append(cursor)
            if len(buckets) > MAX_BUCKETS:
                raise string_error(
                    f"the window holds more than {MAX_BUCKETS} {interval} buckets; "
                    "choose a longer interval or a shorter window"
                )
            cursor = next_bucket(cursor, interval, tz)
    totals: dict[str, list[int]] = {
        b.strftime(SERVICE_FORMAT): [0] * len(_STAT_KEYS) for b in buckets
    }
    where, params = CdrFilter(start=start, end=end).where(domain_uuid)
    for slot, *sums in conn.execute(
        f"SELECT t_start / {SLOT} AS slot, {_STAT_SUMS} FROM cdrs WHERE {where} GROUP BY slot",
        params,
    ):
        key = bucket_start(slot * SLOT, tz, interval).strftime(SERVICE_FORMAT)
        row = totals.setdefault(key, [0] * len(_STAT_KEYS))
        for i, value in enumerate(sums):
            row[i] += int(value or 0)
    return [
        StatsRow(time=key, **dict(zip(_STAT_KEYS, values, strict=True)))
        for key, values in sorted(totals.items())
    ]


@dataclass
class Person:
    user_uuid: str
    domain_uuid: str
    username: str
    first_name: str
    middle_name: str
    last_name: str
    email: str
    level: str
    extension: str
    extension_uuid: str
    created_at: float
    pause_sec_per_day: int
    groups: list[Group]


GROUP_COLUMNS = (
    "g.group_uuid, g.domain_uuid, g.group_name, g.group_description, g.department_uuid, "
    "g.group_priority"
)
"""The columns ``group_of`` reads, in its order (the service calls the priority a weight)."""
GROUP_FIELDS = "group_uuid domain_uuid group_name group_description department_uuid group_weight"


def group_of(row: Sequence[Any]) -> Group:
    """A row of ``GROUP_COLUMNS`` as the service shows a group."""
    return Group.model_validate(dict(zip(GROUP_FIELDS.split(), row, strict=True)))


def people(conn: sqlite3.Connection, domain_uuid: str) -> dict[str, Person]:
    """Users with an extension, keyed by extension, in extension order."""
    groups: dict[str, list[Group]] = defaultdict(list)
    for user_uuid, *g in conn.execute(
        f"SELECT gu.user_uuid, {GROUP_COLUMNS} FROM group_users gu "
        "JOIN groups g ON g.group_uuid = gu.group_uuid WHERE g.domain_uuid = ? ORDER BY g.seq",
        (domain_uuid,),
    ):
        groups[user_uuid].append(group_of(g))
    out: dict[str, Person] = {}
    for row in conn.execute(
        "SELECT user_uuid, domain_uuid, username, first_name, middle_name, last_name, email, "
        "level, extension, extension_uuid, created_at, pause_sec_per_day FROM users "
        "WHERE domain_uuid = ? AND extension != '' ORDER BY extension",
        (domain_uuid,),
    ):
        out[row[8]] = Person(*row, groups=groups.get(row[0], []))  # type: ignore[misc]
    return out


_EXT_SUMS = (
    "COUNT(*), SUM(status = 'answered'), SUM(status = 'busy'), SUM(status = 'busy-line'), "
    "SUM(status = 'cancel'), SUM(status = 'invalid'), SUM(status = 'no-answered'), "
    "SUM(status = 'not-available'), SUM(direction = 'inbound'), SUM(direction = 'outbound'), "
    "SUM(direction = 'local'), SUM(duration), SUM(billsec), MIN(t_start), MAX(t_end)"
)


@dataclass
class Tally:
    """One extension's counts over a window (and per local day)."""

    total: int = 0
    answered: int = 0
    busy: int = 0
    busy_line: int = 0
    cancel: int = 0
    invalid: int = 0
    no_answered: int = 0
    not_available: int = 0
    inbound: int = 0
    outbound: int = 0
    local: int = 0
    duration: int = 0
    billsec: int = 0
    first: int | None = None
    last: int | None = None

    def add(self, values: list[Any]) -> None:
        """Add one row of ``_EXT_SUMS``: the counts in field order, then first and last."""
        *counts, first, last = values
        for name, value in zip(_TALLY_COUNTS, counts, strict=True):
            setattr(self, name, getattr(self, name) + int(value or 0))
        if first is not None:
            self.first = first if self.first is None else min(self.first, first)
        if last is not None:
            self.last = last if self.last is None else max(self.last, last)

    def totals(self) -> ExtensionTotals:
        return ExtensionTotals(
            total_duration=self.duration,
            total_billsec=self.billsec,
            total_waitsec=self.duration - self.billsec,
            total_call=self.total,
            total_answered=self.answered,
            total_no_answered=self.no_answered,
            total_busy=self.busy,
            total_not_available=self.not_available,
            total_cancel=self.cancel,
            total_invalid=self.invalid,
            total_inbound=self.inbound,
            total_outbound=self.outbound,
            total_local=self.local,
        )


_TALLY_COUNTS = [f.name for f in fields(Tally)][:-2]
"""The fields ``Tally.add`` sums, in the order of ``_EXT_SUMS``."""


@dataclass
class ExtensionTallies:
    people: dict[str, Person]
    window: dict[str, Tally]
    days: dict[str, dict[str, Tally]]
    """extension -> local date (``YYYY-MM-DD``) -> tally."""

    def extensions(self) -> list[str]:
        """Every user's extension, then extensions only records know, sorted."""
        return sorted(set(self.people) | set(self.window))


def tally(
    conn: sqlite3.Connection, domain_uuid: str, start: float, end: float, tz: tzinfo
) -> ExtensionTallies:
    where, params = CdrFilter(start=start, end=end).where(domain_uuid)
    window: dict[str, Tally] = defaultdict(Tally)
    days: dict[str, dict[str, Tally]] = defaultdict(lambda: defaultdict(Tally))
    for extension, slot, *values in conn.execute(
        f"SELECT extension, t_start / {SLOT} AS slot, {_EXT_SUMS} FROM cdrs "
        f"WHERE {where} AND extension != '' GROUP BY extension, slot",
        params,
    ):
        window[extension].add(values)
        day = datetime.fromtimestamp(slot * SLOT, tz).strftime("%Y-%m-%d")
        days[extension][day].add(values)
    return ExtensionTallies(people(conn, domain_uuid), dict(window), dict(days))


def extension_counters(t: ExtensionTallies) -> list[ExtensionCounters]:
    rows = []
    for ext in t.extensions():
        c = t.window.get(ext, Tally())
        p = t.people.get(ext)
        rows.append(
            ExtensionCounters(
                answered=c.answered,
                busy=c.busy,
                busy_line=c.busy_line,
                cancel=c.cancel,
                extension=ext,
                extension_id=p.extension_uuid if p else "",
                firstname=p.first_name if p else "",
                inbound=c.inbound,
                invalid=c.invalid,
                lastname=p.last_name if p else "",
                local=c.local,
                middlename=p.middle_name if p else "",
                no_answered=c.no_answered,
                not_available=c.not_available,
                outbound=c.outbound,
                total=c.total,
                user_id=p.user_uuid if p else "",
                username=p.username if p else "",
            )
        )
    return rows


def _user_fields(p: Person | None, ext: str) -> dict[str, Any]:
    if p is None:
        return {"extension": ext}
    return {
        "user_uuid": p.user_uuid,
        "username": p.username,
        "last_name": p.last_name,
        "middle_name": p.middle_name,
        "first_name": p.first_name,
        "extension": p.extension,
        "extension_uuid": p.extension_uuid,
        "email": p.email,
        "groups": [g.model_dump(mode="json") for g in p.groups] or None,
        "departments": [],
        "leaders": None,
        "managers": None,
    }


def extension_summary(t: ExtensionTallies, start: float) -> list[ExtensionSummary]:
    return [
        ExtensionSummary(
            time=fmt_iso_utc(start),
            **_user_fields(t.people.get(ext), ext),
            **t.window.get(ext, Tally()).totals().model_dump(),
        )
        for ext in t.extensions()
    ]


def extension_summary_day(t: ExtensionTallies, tz: tzinfo) -> list[ExtensionSummaryDay]:
    rows = []
    for ext in t.extensions():
        p = t.people.get(ext)
        reports = [
            DayReport(
                time=day,
                total_call=c.total,
                total_invalid=c.invalid,
                total_inbound=c.inbound,
                total_outbound=c.outbound,
            )
            for day, c in sorted(t.days.get(ext, {}).items())
        ]
        rows.append(
            ExtensionSummaryDay(
                **_user_fields(p, ext),
                add_date=fmt_service(p.created_at, tz) if p else "",
                **t.window.get(ext, Tally()).totals().model_dump(),
                reports=reports,
            )
        )
    return rows


def agent_time(t: ExtensionTallies, domain_uuid: str, tz: tzinfo) -> list[AgentTime]:
    rows = []
    for ext, p in t.people.items():
        c = t.window.get(ext, Tally())
        worked_days = len(t.days.get(ext, {}))
        rows.append(
            AgentTime(
                user_uuid=p.user_uuid,
                domain_uuid=domain_uuid,
                username=p.username,
                last_name=p.last_name,
                middle_name=p.middle_name,
                first_name=p.first_name,
                earliest_time=fmt_service(c.first, tz) if c.first is not None else "",
                latest_time=fmt_service(c.last, tz) if c.last is not None else "",
                total_pause_sec=p.pause_sec_per_day * worked_days,
                total_wait_sec=c.duration - c.billsec,
                total_talk_sec=c.billsec,
                total_dispo_sec=DISPO_SECONDS_PER_ANSWER * c.answered,
            )
        )
    return rows


_REPORTED_PERSON = (
    "user_uuid extension_uuid domain_uuid extension username first_name middle_name last_name "
    "level email"
)
"""The ``Person`` fields a report row of a user repeats as they are."""


def call_users(t: ExtensionTallies, tz: tzinfo) -> list[ReportUser]:
    """Users who made or took at least one call in the window."""
    return [
        ReportUser(
            **{name: getattr(p, name) for name in _REPORTED_PERSON.split()},
            groups=[g.model_dump(mode="json") for g in p.groups] or None,
            departments=[],
            add_date=fmt_service(p.created_at, tz),
        )
        for ext, p in t.people.items()
        if t.window.get(ext, Tally()).total > 0
    ]


def _rate(part: int, whole: int) -> float:
    return round(part * 100 / whole, 2) if whole else 0.0


def autodialer(
    conn: sqlite3.Connection,
    domain_uuid: str,
    now: float,
    interval_minutes: int,
    campaign_uuids: list[str],
    statuses: list[str],
) -> list[AutodialerStats]:
    """Autodialer campaign statistics; ``start`` shows (and filters) as ``running``."""
    where, params = "domain_uuid = ? AND type = 'autodialer'", [domain_uuid]
    if campaign_uuids:
        where += f" AND campaign_uuid IN ({', '.join('?' * len(campaign_uuids))})"
        params += campaign_uuids
    wanted = {"running" if s.lower() == "start" else s.lower() for s in statuses}
    since = now - interval_minutes * 60
    on_call = on_calls(conn, domain_uuid)
    out = []
    for campaign_uuid, name, ctype, status, mode_call, created in conn.execute(
        f"SELECT campaign_uuid, campaign_name, type, status, json_extract(body, '$.mode_call'), "
        f"created_at FROM campaigns WHERE {where} ORDER BY seq",
        params,
    ).fetchall():
        shown = "running" if status == "start" else status
        if wanted and shown not in wanted:
            continue
        window_where, window_params = CdrFilter(
            start=since, end=now, campaign_uuid=campaign_uuid
        ).where(domain_uuid)
        calls, connected, dropped = conn.execute(
            f"SELECT COUNT(*), SUM(status = 'answered'), SUM(status IN ('drop', 'busy-line')) "
            f"FROM cdrs WHERE {window_where}",
            window_params,
        ).fetchone()
        ever_dropped, not_connected, last_call = conn.execute(
            "SELECT SUM(status IN ('drop', 'busy-line')), SUM(status != 'answered'), "
            "MAX(t_start) FROM cdrs WHERE domain_uuid = ? AND campaign_uuid = ?",
            (domain_uuid, campaign_uuid),
        ).fetchone()
        leads = dict(
            conn.execute(
                "SELECT l.status, COUNT(*) FROM leads l JOIN lists s ON s.list_uuid = l.list_uuid "
                "WHERE s.campaign_uuid = ? GROUP BY l.status",
                (campaign_uuid,),
            ).fetchall()
        )
        called = conn.execute(
            "SELECT COUNT(*) FROM leads l JOIN lists s ON s.list_uuid = l.list_uuid "
            "WHERE s.campaign_uuid = ? AND l.called_count > 0",
            (campaign_uuid,),
        ).fetchone()[0]
        in_progress = conn.execute(
            "SELECT COUNT(*) FROM live_calls WHERE campaign_uuid = ?", (campaign_uuid,)
        ).fetchone()[0]
        agents = conn.execute(
            "SELECT DISTINCT u.user_uuid, u.user_status, u.agent_status, u.extension FROM users u "
            "JOIN group_users gu ON gu.user_uuid = u.user_uuid "
            "JOIN group_campaigns gc ON gc.group_uuid = gu.group_uuid WHERE gc.campaign_uuid = ?",
            (campaign_uuid,),
        ).fetchall()
        # An agent is in call for the campaign whose live call it is on (one call at
        # most, presence.on_calls), so summing agents_in_call over campaigns counts each
        # agent once; an agent on another campaign's call or a call of no campaign is
        # neither ready nor paused here, nor in call.
        available = [a for a in agents if a[1] == "Available"]
        in_call = [a for a in agents if on_call.get(a[3]) == campaign_uuid]
        idle = [a for a in available if a[3] not in on_call]
        calls, connected, dropped = int(calls), int(connected or 0), int(dropped or 0)
        handled = int(leads.get("DONE", 0))
        out.append(
            AutodialerStats(
                campaign_name=name,
                campaign_uuid=campaign_uuid,
                type=ctype,
                mode_call=mode_call or "",
                status=shown,
                total_leads=sum(leads.values()),
                leads_in_progress=in_progress,
                dropped_calls=dropped,
                dropped_call_rate=_rate(dropped, connected),
                total_calls=calls,
                total_connected_customers=connected,
                customer_connection_rate=_rate(connected, calls),
                connected_agents=len(available),
                agents_ready=len([a for a in idle if a[2] == "RESUME"]),
                agents_pause=len([a for a in idle if a[2] == "PAUSE"]),
                agents_in_call=len(in_call),
                total_agents=len(agents),
                created_at=fmt_iso_utc(created),
                last_call_time=fmt_iso_utc(last_call) if last_call is not None else "",
                statistics=AutodialerTotals(
                    total_imported=sum(leads.values()),
                    total_new=int(leads.get("NEW", 0)),
                    total_recall=int(leads.get("RECALL", 0)),
                    total_called=int(called),
                    total_handled=handled,
                    total_not_handled=int(called) - handled,
                    total_dropped_calls=int(ever_dropped or 0),
                    total_not_connected_customers=int(not_connected or 0),
                ),
            )
        )
    return out
