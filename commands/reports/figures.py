"""The one definition of every figure callops shows, with the period and scope it covers.

The wallboard, ``stats``, ``monitor``, ``agents``, ``extensions``, digests, the full report
and alerts all read their numbers from here, so the same figure is the same number on
every surface.  Each figure set carries a ``Scope`` (the whole call center, or named
campaigns) and a ``Window`` (``commands.kernel.periods``), and says both the same way
(``caption``): ``Telesale HCM · today 00:00–14:27 UTC+07``.

The rules, decided once:

* Calls are counted by the record's start time; ``busy`` (the callee was busy) and
  ``line busy`` (``busy-line``: no free line) are two figures, never added together.
* Whole call center: the service's statistics (``/v2/stats``, hourly, summed into the
  workspace's hours).  Named campaigns: that endpoint cannot filter by campaign, so the
  campaigns' call records (``/v3/cdr`` with ``campaign_uuid``, every page) are counted
  with the same rules the statistics follow.
* Dialer rates are the spec's formulas over the counts (connection rate = connected /
  calls, dropped rate = dropped / connected), so one campaign and a sum of campaigns are
  rated alike; a rate with nothing to divide by is absent, not 0 %.
* People are counted once each.  Agents in call are the users whose extension is a party
  of a live call (``commands.calls.live.agents_on_call``); logged in is ``user_status``
  ``Available``.  Ready and paused exist only per campaign (the autodialer statistics):
  a person staffing two campaigns is ready in both, so those are never added up across
  campaigns; the whole call center's agents are logged in, in call and free.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from callcenter import CallCenter
from callcenter.models import (
    ActiveCall,
    ActiveCallList,
    AgentTime,
    AutodialerStats,
    Cdr,
    StatsRow,
    User,
)
from commands.calls.live import agents_on_call
from commands.kernel.i18n import N_, _, ngettext
from commands.kernel.names import name_of
from commands.kernel.periods import SERVICE_TZ, Window
from commands.kernel.text import caption, clip, parse_service_time
from commands.reports.shared import SharedCounts
from commands.reports.tally import IN_FLIGHT, CallTally, Progress, Repeats, fold_records
from commands.reports.tally import Counts as Counts

WHOLE = N_("Whole call center")
ALL_DIALER = N_("All autodialer campaigns")
RUNNING = ("start", "running")
"""Campaigns say ``start``; the autodialer statistics say ``running`` for the same state."""
DROPPED_RATE_WARNING = 3.0
"""Percent of connected calls dropped above which a campaign is flagged (the common
regulatory ceiling for abandoned calls)."""
INTERVALS = ("hour", "day", "week", "month")


# --- scope ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Scope:
    """Which calls a figure counts: the whole call center, or these campaigns."""

    campaigns: tuple[tuple[str, str], ...] = ()
    """``(campaign_uuid, name)`` pairs; none means the whole call center."""

    @classmethod
    def of(cls, uuids: Iterable[str], names: Mapping[str, str]) -> Scope:
        return cls(tuple((uuid, names.get(uuid, "")) for uuid in dict.fromkeys(uuids)))

    @property
    def whole(self) -> bool:
        return not self.campaigns

    @property
    def uuids(self) -> tuple[str, ...]:
        return tuple(uuid for uuid, _ in self.campaigns)

    def plain(self) -> str:
        """For plain text (a chart title, a notification): not escaped."""
        if self.whole:
            return _(WHOLE)
        names = [name or _("campaign {id}").format(id=uuid[:8]) for uuid, name in self.campaigns]
        if len(names) <= 3:
            return ", ".join(names)
        return _more(", ".join(names[:2]), len(names) - 2)

    def label(self) -> str:
        """For mrkdwn: each name clipped and escaped."""
        if self.whole:
            return _(WHOLE)
        names = [
            clip(name, 60) if name else _("campaign {id}").format(id=uuid[:8])
            for uuid, name in self.campaigns
        ]
        if len(names) <= 3:
            return ", ".join(f"*{n}*" for n in names)
        return _more(", ".join(f"*{n}*" for n in names[:2]), len(names) - 2)


def _more(names: str, more: int) -> str:
    """``A, B and 3 more campaigns``: the first names, then how many are left out."""
    return ngettext("{names} and {n} more campaign", "{names} and {n} more campaigns", more).format(
        names=names, n=more
    )


# --- calls ----------------------------------------------------------------------------


Bucket = tuple[datetime, Counts]
"""A bucket's start on the workspace's clock, and its counters."""


@dataclass(frozen=True)
class CallFigures:
    """Calls of one scope over one window, in total and per local hour."""

    scope: Scope
    window: Window
    totals: Counts
    hours: tuple[Bucket, ...]
    """Local hours that had calls, oldest first."""
    source: str
    """``statistics`` or ``call records``: what the figures were counted from."""
    records: int = 0
    """Call records counted (from call records; 0 from the statistics)."""
    campaigns: tuple[tuple[str, Counts], ...] = ()
    """Each campaign's calls, when counted from call records (same pass)."""

    def of_campaign(self, campaign_uuid: str) -> Counts | None:
        """One campaign's calls of this count, if it counted that campaign's records."""
        if campaign_uuid not in self.scope.uuids:
            return None
        return dict(self.campaigns).get(campaign_uuid, Counts())

    def caption(self) -> str:
        return caption(self.scope.label(), self.window.label())

    def buckets(self, interval: str) -> list[Bucket]:
        """Every ``interval`` bucket of the window (quiet ones as zeros), oldest first."""
        tz = self.window.tz
        sums: dict[datetime, Counts] = {}
        for hour, counts in self.hours:
            key = bucket_start(hour, interval)
            sums[key] = sums.get(key, Counts()) + counts
        moment = bucket_start(self.window.start, interval)
        out: list[Bucket] = []
        while moment < self.window.end or not out:
            out.append((moment, sums.pop(moment, Counts())))
            moment = _next_bucket(moment, interval, tz)
        # Anything outside the window (a record that started a moment early) still shows.
        out.extend(sorted(sums.items()))
        return sorted(out, key=lambda b: b[0])

    @classmethod
    def of_rows(cls, scope: Scope, window: Window, rows: Iterable[StatsRow]) -> CallFigures:
        tally = _Tally(window.tz)
        for row in rows:
            tally.add(parse_service_time(row.time, SERVICE_TZ), Counts.of_row(row))
        return tally.figures(scope, window, "statistics")

    @classmethod
    def of_records(cls, scope: Scope, window: Window, records: Iterable[Cdr]) -> CallFigures:
        tally = CallTally(window.tz)
        repeats = Repeats(keep=10_000)
        for record in records:
            tally.add_page(repeats.fresh([record]))
        return cls.of_tally(scope, window, tally)

    @classmethod
    def of_tally(cls, scope: Scope, window: Window, tally: CallTally) -> CallFigures:
        hours = tuple(sorted((k, v) for k, v in tally.hour_counts().items() if v.calls))
        return cls(
            scope,
            window,
            tally.total.counts(),
            hours,
            "call records",
            records=tally.records,
            campaigns=tuple(sorted(tally.campaign_counts().items())),
        )


class _Tally:
    def __init__(self, tz: ZoneInfo) -> None:
        self.tz = tz
        self.total = Counts()
        self.hours: dict[datetime, Counts] = {}

    def add(self, moment: datetime | None, counts: Counts) -> None:
        self.total += counts
        if moment is None:
            return
        hour = bucket_start(moment.astimezone(self.tz), "hour")
        self.hours[hour] = self.hours.get(hour, Counts()) + counts

    def figures(self, scope: Scope, window: Window, source: str) -> CallFigures:
        hours = tuple(sorted((k, v) for k, v in self.hours.items() if v.calls))
        return CallFigures(scope, window, self.total, hours, source)


def bucket_start(moment: datetime, interval: str) -> datetime:
    """The start of ``moment``'s hour, day, week (Monday) or month, in its own zone."""
    tz = moment.tzinfo
    if interval == "hour":
        return moment.replace(minute=0, second=0, microsecond=0)
    day = moment.date()
    if interval == "week":
        day = day - timedelta(days=day.weekday())
    elif interval == "month":
        day = day.replace(day=1)
    return datetime.combine(day, time(0, 0), tzinfo=tz)


def _next_bucket(moment: datetime, interval: str, tz: ZoneInfo) -> datetime:
    if interval == "hour":
        return bucket_start((moment.astimezone(UTC) + timedelta(hours=1)).astimezone(tz), "hour")
    day = moment.date()
    if interval == "day":
        day = day + timedelta(days=1)
    elif interval == "week":
        day = day + timedelta(days=7)
    else:
        day = (day.replace(day=28) + timedelta(days=4)).replace(day=1)
    return datetime.combine(day, time(0, 0), tzinfo=tz)


async def call_figures(
    cc: CallCenter, scope: Scope, window: Window, *, progress: Progress | None = None
) -> CallFigures:
    """The calls of ``scope`` that started in ``window``.

    The same scope and period asked again within a minute (a digest, the Home tab and
    ``stats`` at once) is answered by the same count (``SHARED``); ``progress`` hears
    how a count from call records goes (a late asker of a shared count hears nothing)."""
    key = (
        cc.account_key,
        scope.uuids,
        str(window.tz),
        window.start.timestamp(),
        window.end.timestamp() // 60,
    )
    figures = await SHARED.get(key, lambda: _count(cc, scope, window, progress))
    # Labelled as asked: the same instants may be "today" to one surface, a date to another.
    return replace(figures, scope=scope, window=window)


async def _count(
    cc: CallCenter, scope: Scope, window: Window, progress: Progress | None
) -> CallFigures:
    start, end = window.service_bounds()
    if scope.whole:
        result = await cc.reports.stats(start, end, interval="hour")
        return CallFigures.of_rows(scope, window, result.data)
    tally = CallTally(window.tz)
    counted = [0] * len(scope.uuids)
    totals = [0] * len(scope.uuids)

    def heard(i: int) -> Progress:
        def one(done: int, total: int) -> None:
            counted[i], totals[i] = done, total
            if progress is not None:
                progress(sum(counted), sum(totals))

        return one

    # The service takes one campaign per query: a walk per campaign, all at once, their
    # requests in flight bounded together by one gate.
    gate = asyncio.Semaphore(IN_FLIGHT)
    await asyncio.gather(
        *(
            fold_records(
                cc,
                tally,
                progress=heard(i),
                gate=gate,
                start_date=start,
                end_date=end,
                campaign_uuid=uuid,
            )
            for i, uuid in enumerate(scope.uuids)
        )
    )
    return CallFigures.of_tally(scope, window, tally)


SHARED: SharedCounts[CallFigures] = SharedCounts(ttl=60.0)
"""Counts of this process; replicas each keep their own (a minute's worth at most)."""


# --- autodialer campaigns -------------------------------------------------------------


def connection_rate(connected: int, calls: int) -> float | None:
    """Percent of calls that reached a customer (spec 4.3); None without calls."""
    return 100.0 * connected / calls if calls else None


def dropped_rate(dropped: int, connected: int) -> float | None:
    """Percent of connected calls dropped (spec 4.3); None without connected calls."""
    return 100.0 * dropped / connected if connected else None


@dataclass(frozen=True)
class DialerFigures:
    """One autodialer campaign over the service's rolling window (its rates and calls)
    and at the moment it was asked (leads in progress, its agents)."""

    campaign_uuid: str
    name: str
    type: str
    status: str
    window: Window
    calls: int
    connected: int
    dropped: int
    leads: int
    leads_in_progress: int
    agents_ready: int
    agents_paused: int
    agents_in_call: int
    agents: int
    last_call_time: str

    @classmethod
    def of(cls, stats: AutodialerStats, window: Window) -> DialerFigures:
        return cls(
            campaign_uuid=stats.campaign_uuid,
            name=stats.campaign_name,
            type=stats.type,
            status=stats.status,
            window=window,
            calls=stats.total_calls,
            connected=stats.total_connected_customers,
            dropped=stats.dropped_calls,
            leads=stats.total_leads,
            leads_in_progress=stats.leads_in_progress,
            agents_ready=stats.agents_ready,
            agents_paused=stats.agents_pause,
            agents_in_call=stats.agents_in_call,
            agents=stats.total_agents,
            last_call_time=stats.last_call_time,
        )

    @property
    def running(self) -> bool:
        return self.status in RUNNING

    @property
    def connection_rate(self) -> float | None:
        return connection_rate(self.connected, self.calls)

    @property
    def dropped_rate(self) -> float | None:
        return dropped_rate(self.dropped, self.connected)

    @property
    def dropped_warning(self) -> bool:
        rate = self.dropped_rate
        return rate is not None and rate > DROPPED_RATE_WARNING

    @property
    def scope(self) -> Scope:
        return Scope(((self.campaign_uuid, self.name),))

    def caption(self) -> str:
        return caption(self.scope.label(), self.window.label())


@dataclass(frozen=True)
class DialerTotals:
    """Several autodialer campaigns together: their calls summed, rated alike."""

    scope: Scope
    window: Window
    campaigns: int
    running: int
    calls: int
    connected: int
    dropped: int

    @classmethod
    def of(cls, items: Sequence[DialerFigures], scope: Scope, window: Window) -> DialerTotals:
        return cls(
            scope=scope,
            window=window,
            campaigns=len(items),
            running=sum(1 for s in items if s.running),
            calls=sum(s.calls for s in items),
            connected=sum(s.connected for s in items),
            dropped=sum(s.dropped for s in items),
        )

    @property
    def connection_rate(self) -> float | None:
        return connection_rate(self.connected, self.calls)

    @property
    def dropped_rate(self) -> float | None:
        return dropped_rate(self.dropped, self.connected)

    def caption(self) -> str:
        scope = _(ALL_DIALER) if self.scope.whole else self.scope.label()
        return caption(scope, self.window.label())


async def dialer_figures(
    cc: CallCenter,
    minutes: int,
    *,
    at: datetime,
    tz: ZoneInfo,
    campaigns: Sequence[str] = (),
) -> list[DialerFigures]:
    """Every autodialer campaign (or those named) over the last ``minutes`` up to ``at``."""
    window = Window.back_from(at, minutes, tz)
    return [
        DialerFigures.of(s, window)
        async for s in cc.reports.iterate_autodialer(minutes, campaign_uuids=campaigns)
    ]


# --- people and live calls ------------------------------------------------------------


@dataclass(frozen=True)
class LiveFigures:
    """The calls on the line at one moment."""

    window: Window
    calls: int
    by_direction: tuple[tuple[str, int], ...]
    scope: Scope = Scope()

    def caption(self) -> str:
        return caption(self.scope.label(), self.window.label())


def live_figures(calls: ActiveCallList, window: Window) -> LiveFigures:
    directions = Counter(call.direction.strip().lower() or "unknown" for call in calls.data)
    return LiveFigures(
        window=window,
        calls=max(calls.total, len(calls.data)),
        by_direction=tuple(sorted(directions.items())),
    )


@dataclass(frozen=True)
class AgentFigures:
    """The people of the call center at one moment, each counted once."""

    window: Window
    staffed: int
    """Enabled users with an extension: the people who can be on a call."""
    logged_in: int
    """Of them, those whose ``user_status`` is ``Available``."""
    in_call: int
    """Of them, those whose extension is a party of a live call."""
    free: int
    """Logged in and on no call."""
    scope: Scope = Scope()

    def caption(self) -> str:
        return caption(self.scope.label(), self.window.label())


def agent_figures(
    users: Iterable[User], calls: Iterable[ActiveCall], window: Window
) -> AgentFigures:
    people = [u for u in users if u.extension.strip() and u.user_enabled != "false"]
    on_call = {u.user_uuid for call in calls for u in agents_on_call(call, people)}
    logged_in = {u.user_uuid for u in people if u.user_status.strip().lower() == "available"}
    return AgentFigures(
        window=window,
        staffed=len(people),
        logged_in=len(logged_in),
        in_call=len(on_call),
        free=len(logged_in - on_call),
    )


# --- agent time -----------------------------------------------------------------------


def agent_name(a: AgentTime) -> str:
    """Plain text, not escaped."""
    return name_of(a, a.username) or _("Unknown agent")


def occupancy(a: AgentTime) -> float | None:
    """Percent of an agent's logged-in, unpaused time spent on calls and their wrap-up."""
    busy = a.total_talk_sec + a.total_dispo_sec
    whole = busy + a.total_wait_sec
    return 100.0 * busy / whole if whole else None


def worked(a: AgentTime) -> bool:
    """Whether the agent logged any talk or wait time (the others were not there)."""
    return bool(a.total_talk_sec or a.total_wait_sec)
