"""``insights [campaign] [day]``: a day against the usual levels, and what to do next.

A manager asks "is today normal?", "when should we call?", "has a network stopped
answering?", "who is off?" and, for an inbound queue, "do we have enough people for
the next hour?".  Each answer is read from call records (``commands.reports.kpis``
defines the figures) against the usual levels of the four weeks before
(``commands.reports.usual``); hours are Vietnam's (the customers' clock, the calling
rules' clock), whatever zone the reader displays.

What call records cannot say, the reply says instead of guessing: who is ready for one
campaign's queue (the service counts ready agents only for autodialer campaigns, so an
inbound queue is held against the agents free in the whole call center), wrap-up time
and shrinkage (Erlang C counts agents on the phones), and why a network stopped
answering.
"""

from __future__ import annotations

import asyncio
import time as clock_time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from slack_sdk.models.blocks import (
    Block,
    DividerBlock,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)

from callcenter import CallCenter
from callcenter.models import Campaign
from commands.campaigns.cards import guess_note
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError, split_options
from commands.kernel.i18n import N_, _
from commands.kernel.matching import fold
from commands.kernel.periods import WEEKDAY_SHORT, WEEKDAYS, PeriodError, Window, parse_moment
from commands.kernel.reply import Reply, context_line, labelled, section
from commands.kernel.resolve import (
    CampaignMatch,
    CampaignNotFound,
    all_campaigns,
    find_campaign,
)
from commands.kernel.text import (
    campaign_label,
    clip,
    code,
    duration,
    escape,
    number,
    percent,
    truncate,
)
from commands.reports.chart_blocks import DV, ChartMode, chart_mode, chart_parts
from commands.reports.chart_spec import Band, ChartSpec, Series
from commands.reports.erlang import agents_needed
from commands.reports.figures import agent_figures
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
    learn_usual,
    usual_window,
    widths_outside,
)
from commands.rules.guard import DECREE_HOURS, DECREE_TZ, window_words, within
from commands.rules.guard import Window as Hours
from storage.offload import off_loop

INSIGHTS_TZ = DECREE_TZ
"""Hours and days are Vietnam's: the usual levels are learned on that clock."""
SERVICE_LEVEL_TARGET = 0.8
"""The share of inbound calls to answer within ``SERVICE_LEVEL_SECONDS`` (80/20)."""
TOP_AGENTS = 3
MIN_AGENT_CALLS = 5
"""Answered calls before an agent is held against the team (fewer say nothing)."""
TOP_HOURS = 3
MAX_NETWORKS = 5
CACHE_SECONDS = 3600
CACHE_ENTRIES = 32

KPI_NAMES = {
    "calls": N_("Calls"),
    "answer_rate": N_("Answer rate"),
    "asr": N_("ASR"),
    "acd": N_("ACD"),
    "aht": N_("AHT"),
    "abandonment": N_("Abandonment"),
    "service_level": N_("Service level"),
    "asa": N_("ASA"),
}
"""Short KPI names for the rows (``help metrics`` defines each)."""
OUTBOUND_ROWS = ("calls", "answer_rate", "asr", "acd", "aht")
INBOUND_ROWS = ("calls", "answer_rate", "service_level", "abandonment", "asa", "aht")
CENTER_ROWS = ("calls", "answer_rate", "asr", "acd", "service_level", "abandonment", "asa", "aht")


@dataclass(frozen=True)
class KpiLine:
    """One KPI: the latest hour and the day so far, each with its usual level."""

    key: str
    hour_value: float | None
    hour_band: UsualBand | None
    day_value: float | None
    day_band: UsualBand | None


@dataclass(frozen=True)
class NetworkLine:
    name: str
    value: float
    band: UsualBand
    widths: float
    calls: int


@dataclass(frozen=True)
class AgentLine:
    extension: str
    counts: KpiCounts
    score: float
    """The larger of the relative gaps of its handle time and answer rate to the team's."""


@dataclass(frozen=True)
class Staffing:
    """Erlang C for one hour of an inbound queue."""

    weekday: int
    hour: int
    calls: float
    aht: float
    needed: int
    ready: int | None
    """Agents free now in the whole call center; None for a past day."""
    next_hour: bool
    """The hour after now (today), else the usual busiest hour of that weekday."""


@dataclass(frozen=True)
class Insights:
    day: date
    today: bool
    scope: Scope
    name: str
    """The campaign's name, or empty for the call center (plain, not escaped)."""
    inbound: bool
    hour: int | None
    """The latest hour with calls that day."""
    in_progress: bool
    lines: tuple[KpiLine, ...]
    allowed: Hours
    grid: dict[tuple[int, int], float]
    """The usual answer rate per (weekday, hour) within the allowed hours."""
    networks: tuple[NetworkLine, ...]
    agents: tuple[AgentLine, ...]
    team: KpiCounts
    staffing: Staffing | None
    records: int
    learned_from: int
    usual_known: bool = True
    """False: the levels were not learned yet (the Home tab does not learn them)."""
    chart_points: tuple[tuple[int, float, float, float], ...] = ()
    """The answer rate per hour that day with its usual band: (hour, value, low, high),
    for the hours that have both."""

    @property
    def weekday(self) -> int:
        return self.day.weekday()

    def best(self, weekday: int | None = None) -> list[tuple[int, int, float]]:
        """The hours with the highest usual answer rate, of one weekday or all."""
        cells = [
            (wd, hour, rate)
            for (wd, hour), rate in self.grid.items()
            if weekday is None or wd == weekday
        ]
        return sorted(cells, key=lambda c: (-c[2], c[0], c[1]))[:TOP_HOURS]


# --- learning, with a cache: the four weeks before a day do not change during it ----------

LevelsKey = tuple[str, str, date, int]
"""Account (service and API key), campaign, day, records in the four weeks."""
_CACHE: dict[tuple[str, str, date], tuple[float, int, UsualLevels]] = {}
"""The latest levels learned per account, campaign and day: when, from how many records."""
_LEARNING: dict[LevelsKey, asyncio.Task[UsualLevels]] = {}
"""Learning under way: a second asker waits for the same walk, and a caller that gives up
does not stop it, so the next one finds it done."""
NO_LEVELS = UsualLevels({})
"""Nothing learned: every band is None."""


async def usual_levels(cc: CallCenter, day: date, campaign: str = "") -> tuple[UsualLevels, int]:
    """The usual levels for ``day`` (of one campaign or the call center) and the records
    they were learned from.  Kept an hour per account, campaign and day while the
    record count of the four weeks stays the same (one cheap request checks it): four
    weeks of records are read once, not on every ask."""
    low, high = usual_window(day, INSIGHTS_TZ).service_bounds()
    first = await cc.cdrs.list(
        limit=1, offset=0, start_date=low, end_date=high, campaign_uuid=campaign or None
    )
    kept = _CACHE.get((cc.account_key, campaign, day))
    if kept is not None and kept[1] == first.total and _fresh(kept[0]):
        return kept[2], first.total
    key = (cc.account_key, campaign, day, first.total)
    task = _LEARNING.get(key)
    if task is None or task.get_loop() is not asyncio.get_running_loop():
        task = asyncio.get_running_loop().create_task(
            learn_usual(cc, day, INSIGHTS_TZ, campaign=campaign, campaigns=False)
        )
        _LEARNING[key] = task
        task.add_done_callback(lambda done: _learned(key, done))
    return await asyncio.shield(task), first.total


def kept_usual_levels(
    cc: CallCenter, day: date, campaign: str = ""
) -> tuple[UsualLevels, int] | None:
    """The levels already learned for ``day``, without asking the service (the Home tab,
    which must stay quick: it never walks four weeks itself)."""
    kept = _CACHE.get((cc.account_key, campaign, day))
    return (kept[2], kept[1]) if kept is not None and _fresh(kept[0]) else None


def _fresh(at: float) -> bool:
    return clock_time.monotonic() - at < CACHE_SECONDS


def forget_usual_levels() -> None:
    """Drops every kept level (tests start afresh, as with ``reports.shared``)."""
    _CACHE.clear()
    _LEARNING.clear()


def _learned(key: LevelsKey, task: asyncio.Task[UsualLevels]) -> None:
    """Keeps what a walk learned (a failed one is forgotten: the next asker tries again)."""
    if _LEARNING.get(key) is task:
        del _LEARNING[key]
    if task.cancelled() or task.exception() is not None:
        return
    account, campaign, day, total = key
    if len(_CACHE) >= CACHE_ENTRIES:
        del _CACHE[min(_CACHE, key=lambda k: _CACHE[k][0])]
    _CACHE[account, campaign, day] = (clock_time.monotonic(), total, task.result())


# --- computing ---------------------------------------------------------------------------


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
    users = [u async for u in cc.users.iterate(page_size=100)]
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


# --- words --------------------------------------------------------------------------------


def weekday_word(weekday: int) -> str:
    return _(WEEKDAY_SHORT[WEEKDAYS[weekday]])


def _hh(hour: int) -> str:
    return f"{hour:02d}:00"


def show(key: str, value: float | None) -> str:
    """A KPI's value in its unit."""
    if value is None:
        return "–"
    unit = USUAL_KPIS[key].unit
    if unit == "percent":
        return percent(value)
    if unit == "seconds":
        return duration(value)
    return number(round(value, 1))


def band_words(key: str, band: UsualBand | None, value: float | None) -> str:
    """``usual 45% (38–52%) · :arrow_down: 1.2 bands below`` or why there is no band."""
    if band is None:
        return _("no usual level yet")
    usual = _("usual {value} ({low}–{high})").format(
        value=show(key, band.value), low=show(key, band.low), high=show(key, band.high)
    )
    if value is None:
        return usual
    widths = widths_outside(band, value)
    if widths < 0:
        return (
            usual
            + " · "
            + _(":arrow_down: {n} band widths below").format(n=number(round(-widths, 1)))
        )
    if widths > 0:
        return (
            usual + " · " + _(":arrow_up: {n} band widths above").format(n=number(round(widths, 1)))
        )
    return usual + " · " + _("within it")


def _now_block(ins: Insights) -> Block:
    if ins.hour is None:
        return section(_("*Against the usual*\n:zzz: No calls that day yet."))
    title = _("*Against the usual* · {day} {hour}{so_far}").format(
        day=weekday_word(ins.weekday),
        hour=_hh(ins.hour),
        so_far=" " + _("(hour in progress)") if ins.in_progress else "",
    )
    rows = []
    for line in ins.lines:
        name = _(KPI_NAMES[line.key])
        if line.key == "calls":
            rows.append(
                _("• *{name}*: this hour *{hour}* · {band} · that day {day}").format(
                    name=name,
                    hour=show("calls", line.hour_value),
                    band=band_words("calls", line.hour_band, line.hour_value),
                    day=show("calls", line.day_value),
                )
            )
            continue
        rows.append(
            _(
                "• *{name}*: this hour *{hour}* · {band}\n      ↳ that day *{day}* · {day_band}"
            ).format(
                name=name,
                hour=show(line.key, line.hour_value),
                band=band_words(line.key, line.hour_band, line.hour_value),
                day=show(line.key, line.day_value),
                day_band=band_words(line.key, line.day_band, line.day_value),
            )
        )
    return section(title + "\n" + "\n".join(rows))


def best_words(ins: Insights) -> str:
    """``Mon 10:00 62%, 09:00 55%`` for the day's weekday."""
    best = ins.best(ins.weekday)
    if not best:
        return ""
    hours = ", ".join(f"{_hh(h)} {percent(rate, 0)}" for _wd, h, rate in best)
    return f"{weekday_word(ins.weekday)} {hours}"


def hours_words(window: Hours) -> str:
    """``08:00–17:00``, or ``all day`` for a window of the whole day."""
    return _("all day") if window[0] == window[1] else window_words(window)


def _best_block(ins: Insights) -> list[Block]:
    title = _("*Best hours to call* · usual answer rate within the allowed hours {hours}").format(
        hours=hours_words(ins.allowed)
    )
    if not ins.grid:
        return [
            section(title + "\n" + _("No usual levels yet: too few calls in the last four weeks."))
        ]
    lines = [title]
    today = best_words(ins)
    if today:
        lines.append(
            _("• {day}: {hours}").format(
                day=weekday_word(ins.weekday), hours=today.split(" ", 1)[1]
            )
        )
    week = ins.best()
    if week:
        lines.append(
            _("• Any day: {hours}").format(
                hours=", ".join(
                    f"{weekday_word(wd)} {_hh(h)} {percent(rate, 0)}" for wd, h, rate in week
                )
            )
        )
    hours = sorted({h for _wd, h in ins.grid})
    head = "     " + "".join(f"{weekday_word(wd)[:4]:>6}" for wd in range(7))
    grid = [head]
    for h in hours:
        cells = "".join(
            f"{(percent(ins.grid[wd, h], 0) if (wd, h) in ins.grid else '–'):>6}" for wd in range(7)
        )
        grid.append(f"{_hh(h)}{cells}")
    return [section("\n".join(lines)), section("```\n" + "\n".join(grid) + "\n```")]


def _network_block(ins: Insights) -> Block:
    title = _("*Mobile networks below their usual answer rate*")
    if not ins.networks:
        return section(title + "\n" + _("None: every network with a usual level is within it."))
    rows = [
        _("• *{name}*: {value} of {calls} calls · {band}").format(
            name=escape(n.name),
            value=percent(n.value),
            calls=number(n.calls),
            band=band_words("answer_rate", n.band, n.value),
        )
        for n in ins.networks
    ]
    return section(title + "\n" + "\n".join(rows))


def _agent_block(ins: Insights) -> Block:
    title = _("*Agents furthest from the team* · team AHT {aht}, answer rate {rate}").format(
        aht=duration(ins.team.aht), rate=percent(ins.team.answer_rate)
    )
    if not ins.agents:
        return section(
            title
            + "\n"
            + _("No agent answered {n} calls or more that day.").format(n=MIN_AGENT_CALLS)
        )
    rows = [
        _("• {ext}: AHT {aht} · answer rate {rate} · {n} answered").format(
            ext=code(clip(a.extension, 30)),
            aht=duration(a.counts.aht),
            rate=percent(a.counts.answer_rate),
            n=number(a.counts.agent_answered),
        )
        for a in ins.agents
    ]
    return section(title + "\n" + "\n".join(rows))


def staffing_words(s: Staffing) -> str:
    when = (
        _("next hour ({day} {hour})") if s.next_hour else _("the usual busiest hour ({day} {hour})")
    )
    text = _(
        "{when}: usual {calls} calls, AHT {aht}: *{needed} agents* needed for {target} "
        "answered within {seconds} s"
    ).format(
        when=when.format(day=weekday_word(s.weekday), hour=_hh(s.hour)),
        calls=number(round(s.calls, 1)),
        aht=duration(s.aht),
        needed=number(s.needed),
        target=percent(SERVICE_LEVEL_TARGET * 100, 0),
        seconds=SERVICE_LEVEL_SECONDS,
    )
    if s.ready is not None:
        text += " · " + _("{ready} free now").format(ready=number(s.ready))
    return text


def _staffing_block(ins: Insights) -> Block:
    title = _("*Agents needed* (Erlang C)")
    if ins.staffing is None:
        return section(
            title + "\n" + _("No usual arrivals and handle time for that hour yet: too few calls.")
        )
    return section(title + "\n" + staffing_words(ins.staffing))


def scope_words(ins: Insights) -> str:
    """The campaign's name (escaped) or the call center."""
    return campaign_label(ins.name, 100) if ins.name else _("the whole call center")


CANNOT_KNOW = N_(
    "Hours are Vietnam time. Usual: median of the same weekday and hour over the four "
    "weeks before, band median ± 3 × 1.4826 × MAD (`help metrics`). Networks are read "
    "from number prefixes: a number moved to another network keeps its first one. Call "
    "records cannot say wrap-up time, shrinkage, or who is ready for one campaign's "
    "queue: Erlang C counts agents on the phones, against the agents free in the whole "
    "call center."
)


def insights_chart(ins: Insights) -> ChartSpec | None:
    """The day's answer rate per hour inside its usual band (at least two hours)."""
    if len(ins.chart_points) < 2:
        return None
    return ChartSpec(
        kind="line",
        title=_("Answer rate by hour against the usual"),
        labels=tuple(_hh(h) for h, _v, _l, _u in ins.chart_points),
        series=(Series(_("that day"), tuple(round(v, 1) for _h, v, _l, _u in ins.chart_points)),),
        band=Band(
            low=tuple(round(low, 1) for _h, _v, low, _u in ins.chart_points),
            high=tuple(round(high, 1) for _h, _v, _l, high in ins.chart_points),
            name=_("usual"),
        ),
        x_title=_("hour (Vietnam time)"),
        y_title="%",
        additive=False,
        filename=f"callops-insights-{ins.day:%Y%m%d}.png",
    )


async def chart_blocks(ins: Insights, mode: ChartMode) -> list[Block]:
    """The chart drawn by Slack beside its summary, when the workspace reads charts
    natively and it fits; nothing otherwise (an ephemeral reply cannot carry a file,
    and its text says the same figures)."""
    spec = insights_chart(ins)
    if spec is None or mode != "native":
        return []
    parts = await chart_parts(spec, mode)
    return parts.blocks if parts.native else []


def insights_reply(ins: Insights, chart: Sequence[Block] = ()) -> Reply:
    title = _("Insights: {scope}, {day}").format(
        scope=ins.name or _("the whole call center"),
        day=f"{weekday_word(ins.weekday)} {ins.day:%d/%m/%Y}",
    )
    blocks: list[Block] = [
        HeaderBlock(text=clip(title, 150)),
        context_line(
            _(
                ":calendar: {scope} · {day} · {n} calls that day · "
                "usual levels from {m} call records"
            ).format(
                scope=scope_words(ins),
                day=f"{weekday_word(ins.weekday)} {ins.day:%d/%m/%Y}",
                n=number(ins.records),
                m=number(ins.learned_from),
            )
        ),
        _now_block(ins),
        *chart,
    ]
    if not ins.inbound:
        blocks.extend(_best_block(ins))
    blocks.append(_network_block(ins))
    blocks.append(_agent_block(ins))
    if ins.inbound:
        blocks.append(_staffing_block(ins))
    blocks.append(context_line(":information_source: " + _(CANNOT_KNOW)))
    return Reply(text=escape(title), blocks=blocks)


def summary_lines(ins: Insights) -> list[str]:
    """The same, in a few lines (mrkdwn), for a digest's section and the Home tab."""
    lines = []
    if not ins.usual_known:
        lines.append(
            _(
                ":hourglass: The usual levels are not learned yet today: `/callops insights` "
                "learns them from the four weeks before, then they show here."
            )
        )
    outside = [
        line
        for line in ins.lines
        if line.hour_band is not None
        and line.hour_value is not None
        and widths_outside(line.hour_band, line.hour_value) != 0
    ]
    if ins.hour is None:
        lines.append(_(":zzz: No calls that day yet."))
    elif outside:
        lines.append(
            _(":warning: Outside the usual at {hour}: {kpis}").format(
                hour=_hh(ins.hour),
                kpis="; ".join(
                    f"{_(KPI_NAMES[line.key])} {show(line.key, line.hour_value)} "
                    f"({band_words(line.key, line.hour_band, None)})"
                    for line in outside
                ),
            )
        )
    else:
        lines.append(
            _(":white_check_mark: At {hour} every KPI with a usual level is within it.").format(
                hour=_hh(ins.hour)
            )
        )
    best = best_words(ins)
    if best:
        lines.append(_(":alarm_clock: Best hours to call: {hours}").format(hours=best))
    if ins.networks:
        lines.append(
            _(":signal_strength: Below their usual answer rate: {networks}").format(
                networks=", ".join(
                    _("{name} {value} (usual {usual})").format(
                        name=escape(n.name), value=percent(n.value), usual=percent(n.band.value)
                    )
                    for n in ins.networks
                )
            )
        )
    if ins.staffing is not None:
        lines.append(":busts_in_silhouette: " + staffing_words(ins.staffing))
    return lines


# --- the command ---------------------------------------------------------------------------

DAY_WORDS = ("today", "yesterday")


def _day(word: str, now: datetime) -> date | None:
    """``today``, ``yesterday`` (also in Vietnamese) or ``YYYY-MM-DD``; None if not a day."""
    try:
        return parse_moment(word, INSIGHTS_TZ, now=now).date()
    except PeriodError:
        return None


async def insights(ctx: CommandContext, args: list[str]) -> Reply:
    usage = usage_of("insights")
    positional, options = split_options(args)
    if options:
        raise UsageError(_("insights takes no options; give a campaign and a day."), usage)
    now = datetime.now(UTC)
    day = now.astimezone(INSIGHTS_TZ).date()
    if positional:
        last = positional[-1]
        if fold(last) in ("week", "month", "tuan", "thang"):
            raise UsageError(
                _(
                    "insights looks at one day: today, yesterday or YYYY-MM-DD, not '{word}'."
                ).format(word=last),
                usage,
            )
        found = _day(last, now)
        if found is not None:
            day = found
            positional = positional[:-1]
    if day > now.astimezone(INSIGHTS_TZ).date():
        raise UsageError(_("{day} has not come yet.").format(day=day.isoformat()), usage)
    cc = ctx.client()
    campaign: Campaign | None = None
    match: CampaignMatch | None = None
    if positional:
        query = " ".join(positional)
        try:
            # Read-only: a clear nearest name is taken for a typo, and said so.
            match = find_campaign(await all_campaigns(cc), query, take_guess=True)
            campaign = match.campaign
        except CampaignNotFound as exc:
            raise UsageError(
                _("No campaign is named '{query}' or starts with it.").format(query=exc.query),
                usage,
            ) from exc
    rules = await off_loop(ctx.storage.calling_rules.rules, ctx.team_id)
    allowed = rules.hours_of(campaign.campaign_uuid) if campaign else rules.hours
    found_insights = await gather_insights(cc, day, campaign=campaign, allowed=allowed, now=now)
    chart = await chart_blocks(found_insights, chart_mode(ctx.workspace))
    reply = insights_reply(found_insights, chart)
    note = guess_note([match]) if match is not None else None
    if note is not None:
        reply.blocks.insert(1, note)
    return reply


# --- the digest's section and the Home tab's tile ------------------------------------------

DAY_KPIS = ("answer_rate", "asr", "acd", "aht", "service_level", "abandonment", "asa")
"""The KPIs of the day a digest or the Home tab shows, when the day has them."""


def kpi_pairs(ins: Insights) -> list[tuple[str, str]]:
    """The day's KPIs (label, value) that have a value, in ``DAY_KPIS``' order."""
    days = {line.key: line.day_value for line in ins.lines}
    return [
        (_(KPI_NAMES[key]), show(key, days[key])) for key in DAY_KPIS if days.get(key) is not None
    ]


def insights_blocks(ins: Insights | str | None) -> list[Block]:
    """The insights in a few lines: a digest's ``insights`` section and the Home tab's
    tile.  ``ins`` may be why they could not be read (escaped words)."""
    if ins is None:
        return []
    if isinstance(ins, str):
        return [
            DividerBlock(),
            section(_(":warning: *Insights unavailable*: {reason}.").format(reason=ins)),
        ]
    head = _("*Insights* · {scope}, {day}").format(
        scope=scope_words(ins), day=f"{weekday_word(ins.weekday)} {ins.day:%d/%m/%Y}"
    )
    body = "\n".join(summary_lines(ins))
    blocks: list[Block] = [DividerBlock()]
    pairs = kpi_pairs(ins)
    if pairs:
        blocks.append(
            SectionBlock(
                text=MarkdownTextObject(text=truncate(f"{head}\n{body}", 3000)),
                fields=labelled(pairs),
            )
        )
    else:
        blocks.append(section(truncate(f"{head}\n{body}", 3000)))
    blocks.append(
        context_line(
            _(
                ":information_source: Hours are Vietnam time; usual levels from the four "
                "weeks before; `/callops insights` shows the whole analysis."
            )
        )
    )
    return blocks
