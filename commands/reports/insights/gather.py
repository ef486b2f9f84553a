"""Reading a day's insights from the service: its records folded per hour, held
against the usual levels, with the best hours, the networks and agents furthest from
their usual, and the staffing an inbound queue needs."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from datetime import UTC, date, datetime, time, timedelta

from callcenter import CallCenter
from callcenter.models import Campaign
from commands.kernel.periods import Window
from commands.kernel.resolve import all_users
from commands.reports.chart_blocks import DV
from commands.reports.erlang import agents_needed
from commands.reports.figures import agent_figures
from commands.reports.insights.levels import NO_LEVELS, kept_usual_levels, usual_levels
from commands.reports.insights.model import (
    CENTER_ROWS,
    INBOUND_ROWS,
    INSIGHTS_TZ,
    MAX_NETWORKS,
    MIN_AGENT_CALLS,
    OUTBOUND_ROWS,
    SERVICE_LEVEL_TARGET,
    TOP_AGENTS,
    AgentLine,
    Insights,
    KpiLine,
    NetworkLine,
    Staffing,
)
from commands.reports.kpis import SERVICE_LEVEL_SECONDS, KpiCounts, KpiTally
from commands.reports.tally import Folds, fold_records
from commands.reports.usual import (
    CENTER,
    USUAL_KPIS,
    Scope,
    UsualBand,
    UsualLearner,
    UsualLevels,
    campaign_scope,
    widths_outside,
)
from commands.rules.guard import DECREE_HOURS, within
from commands.rules.guard import Window as Hours


def _midnight(day: date) -> datetime:
    return datetime.combine(day, time(0, 0), tzinfo=INSIGHTS_TZ)


def _value(counts: KpiCounts, key: str) -> float | None:
    return USUAL_KPIS[key].value(counts)


def usual_for_hours(
    levels: UsualLevels, scope: Scope, key: str, weekday: int, weights: dict[int, int]
) -> UsualBand | None:
    """The usual level of a stretch of hours: each hour's band weighted by ``weights``
    (that day's calls counted by the KPI, per hour); none when hours with a band carry
    less than half the weight."""
    total = sum(weights.values())
    bands = [(levels.band(scope, key, weekday, h), w) for h, w in weights.items() if w > 0]
    known = [(b, w) for b, w in bands if b is not None]
    covered = sum(w for _b, w in known)
    if total <= 0 or covered * 2 < total:
        return None
    return UsualBand(
        value=sum(b.value * w for b, w in known) / covered,
        low=sum(b.low * w for b, w in known) / covered,
        high=sum(b.high * w for b, w in known) / covered,
        weeks=min(b.weeks for b, _w in known),
        calls=sum(b.calls for b, _w in known),
    )


def allowed_hours(window: Hours) -> list[int]:
    """The local hours that lie wholly within the allowed window."""
    return [h for h in range(24) if within(window, h * 60) and within(window, h * 60 + 59)]


def _lines(
    levels: UsualLevels,
    scope: Scope,
    rows: Sequence[str],
    hourly: dict[int, KpiCounts],
    day_counts: KpiCounts,
    weekday: int,
    hour: int | None,
    in_progress: bool,
) -> list[KpiLine]:
    lines = []
    for key in rows:
        kpi = USUAL_KPIS[key]
        counts = hourly.get(hour) if hour is not None else None
        hour_value = _value(counts, key) if counts is not None else None
        hour_band = levels.band(scope, key, weekday, hour) if hour is not None else None
        if key in ("calls", "inbound"):
            if in_progress:  # a count of part of an hour is not comparable
                hour_value, hour_band = None, None
            lines.append(KpiLine(key, hour_value, hour_band, day_counts.calls, None))
            continue
        weights = {h: kpi.denominator(c) for h, c in hourly.items()}
        day_band = usual_for_hours(levels, scope, key, weekday, weights)
        lines.append(KpiLine(key, hour_value, hour_band, _value(day_counts, key), day_band))
    return lines


def _networks(levels: UsualLevels, today: UsualLearner, weekday: int) -> list[NetworkLine]:
    found = []
    for scope in today.scopes("network"):
        if not scope.key:
            continue
        hourly = today.hourly(scope)
        calls = sum(c.calls for c in hourly.values())
        answered = sum(c.answered for c in hourly.values())
        band = usual_for_hours(
            levels, scope, "answer_rate", weekday, {h: c.calls for h, c in hourly.items()}
        )
        if band is None or calls == 0:
            continue
        value = 100.0 * answered / calls
        widths = widths_outside(band, value)
        if widths < 0:
            found.append(NetworkLine(scope.key, value, band, widths, calls))
    found.sort(key=lambda n: (n.widths, n.name))
    return found[:MAX_NETWORKS]


def _agents(tally: KpiTally) -> tuple[list[AgentLine], KpiCounts]:
    team = tally.counts()
    lines = []
    for extension, counts in tally.agent_counts().items():
        if counts.agent_answered < MIN_AGENT_CALLS:
            continue
        gaps = []
        if counts.aht is not None and team.aht:
            gaps.append(abs(counts.aht / team.aht - 1))
        if counts.answer_rate is not None and team.answer_rate:
            gaps.append(abs(counts.answer_rate / team.answer_rate - 1))
        if gaps:
            lines.append(AgentLine(extension, counts, max(gaps)))
    lines.sort(key=lambda a: (-a.score, a.extension))
    return lines[:TOP_AGENTS], team


def _staffing(
    levels: UsualLevels, scope: Scope, day: date, now: datetime, today: bool, ready: int | None
) -> Staffing | None:
    if today:
        after = (now.astimezone(INSIGHTS_TZ) + timedelta(hours=1)).replace(minute=0)
        weekday, hour, next_hour = after.weekday(), after.hour, True
    else:
        weekday, next_hour = day.weekday(), False
        busiest = [
            (band.value, h)
            for h in range(24)
            if (band := levels.band(scope, "inbound", weekday, h)) is not None
        ]
        if not busiest:
            return None
        hour = max(busiest, key=lambda b: (b[0], -b[1]))[1]
    arrivals = levels.band(scope, "inbound", weekday, hour)
    handle = levels.band(scope, "aht", weekday, hour)
    if arrivals is None or handle is None:
        return None
    needed = agents_needed(
        arrivals.value, handle.value, target=SERVICE_LEVEL_TARGET, seconds=SERVICE_LEVEL_SECONDS
    )
    return Staffing(weekday, hour, arrivals.value, handle.value, needed, ready, next_hour)


async def _ready_now(cc: CallCenter) -> int:
    users = await all_users(cc)
    calls = await cc.calls.list()
    now = datetime.now(UTC)
    return agent_figures(users, calls.data, Window.instant(now, INSIGHTS_TZ)).free


async def gather_insights(
    cc: CallCenter,
    day: date,
    *,
    campaign: Campaign | None = None,
    allowed: Hours = DECREE_HOURS,
    now: datetime | None = None,
    learn: bool = True,
) -> Insights:
    """Everything ``insights`` shows for ``day`` (Vietnam's), read from the service.
    ``now`` decides whether ``day`` is today (and so the next hour's staffing).  Without
    ``learn``, only levels learned already are used (none: ``learned_from`` is 0)."""
    moment = (now or datetime.now(UTC)).astimezone(INSIGHTS_TZ)
    today = day == moment.date()
    start = _midnight(day)
    end = min(moment, _midnight(day + timedelta(days=1))) if today else start + timedelta(days=1)
    uuid = campaign.campaign_uuid if campaign else ""
    scope = campaign_scope(uuid) if campaign else CENTER
    inbound = campaign is not None and campaign.type == "inbound"
    tally = KpiTally(INSIGHTS_TZ)
    hours = UsualLearner(INSIGHTS_TZ, campaigns=False)
    low, high = Window(start, max(end, start + timedelta(seconds=1))).service_bounds()
    (levels, learned), _total, ready = await asyncio.gather(
        usual_levels(cc, day, uuid) if learn else _kept(cc, day, uuid),
        fold_records(
            cc, Folds(tally, hours), start_date=low, end_date=high, campaign_uuid=uuid or None
        ),
        _ready_now(cc) if inbound and today else _none(),
    )
    # Learned without campaign scopes: a campaign's records are its call center's.
    learned_scope = CENTER
    hourly = hours.hourly(CENTER)
    busy = [h for h, c in hourly.items() if c.calls]
    hour = max(busy) if busy else None
    in_progress = today and hour == moment.hour
    rows = INBOUND_ROWS if inbound else OUTBOUND_ROWS if campaign else CENTER_ROWS
    weekday = day.weekday()
    lines = _lines(levels, learned_scope, rows, hourly, tally.counts(), weekday, hour, in_progress)
    grid: dict[tuple[int, int], float] = {}
    if not inbound:
        for wd in range(7):
            for h in allowed_hours(allowed):
                band = levels.band(learned_scope, "answer_rate", wd, h)
                if band is not None:
                    grid[wd, h] = band.value
    agents, team = _agents(tally)
    points = []
    for h, counts in hourly.items():
        rate = counts.answer_rate
        usual = levels.band(learned_scope, "answer_rate", weekday, h)
        if rate is not None and usual is not None:
            points.append((h, rate, usual.low, usual.high))
    staffing = _staffing(levels, learned_scope, day, moment, today, ready) if inbound else None
    return Insights(
        day=day,
        today=today,
        scope=scope,
        name=campaign.campaign_name if campaign else "",
        inbound=inbound,
        hour=hour,
        in_progress=in_progress,
        lines=tuple(lines),
        allowed=allowed,
        grid=grid,
        networks=tuple(_networks(levels, hours, weekday)),
        agents=tuple(agents),
        team=team,
        staffing=staffing,
        records=tally.records,
        learned_from=learned,
        usual_known=learn or levels is not NO_LEVELS,
        chart_points=tuple(points[-DV.POINTS_MAX :]),
    )


async def _none() -> None:
    return None


async def _kept(cc: CallCenter, day: date, campaign: str) -> tuple[UsualLevels, int]:
    return kept_usual_levels(cc, day, campaign) or (NO_LEVELS, 0)
