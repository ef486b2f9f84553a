"""Usual levels: what a KPI usually is at this hour of this weekday, and how far from it
is still normal.

A figure alone does not tell a manager whether today is normal: an answer rate of 35 %
is fine on Monday at 08:00 and alarming on Tuesday at 10:00.  This module learns, from
the last ``USUAL_WEEKS`` weeks of call records, each KPI's usual value and band per
scope (the call center, a campaign, a mobile network), weekday and local hour.

How a band is made, for one (scope, KPI, weekday, hour):

* each week gives one value: the KPI counted over that hour of that day
  (``commands.reports.kpis`` defines every KPI; the counting is theirs);
* a week counts only when the KPI's own denominator reached ``MIN_CALLS`` calls that
  hour (``MIN_VOLUME_CALLS`` for the volumes): a rate over three calls is noise;
* the usual value is the median of the weeks that count, and the band is the median
  ± 3 × 1.4826 × MAD (median absolute deviation; 1.4826 × MAD estimates the standard
  deviation of normal data while one odd week cannot stretch it), widened to at least
  the KPI's ``min_half`` and cut to its floor and ceiling (0–100 for a percentage);
* no band until ``MIN_WEEKS`` weeks count.

One odd day (a holiday, an outage) is one of four values: it shifts the median at most
to its neighbour and the MAD not at all past that, however odd it is.

``UsualLearner`` is a ``PageFold`` (``commands.reports.tally``): fed the records page
by page, it keeps a ``KpiCounter`` per scope, local date and hour, never the records.
``UsualLearner.levels()`` gives ``UsualLevels``, whose ``band(scope, kpi, weekday,
hour)`` answers ``UsualBand | None``; ``is_outside`` and ``widths_outside`` say whether
and how far a value is outside.  The API (these names and fields) is used by other
reports (anomaly alerts): keep it stable.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from typing import Literal
from zoneinfo import ZoneInfo

from callcenter import CallCenter
from callcenter.models import Cdr
from commands.kernel.networks import network_of
from commands.kernel.periods import Window
from commands.reports.kpis import KpiCounter, KpiCounts
from commands.reports.tally import LocalHours, fold_records

USUAL_WEEKS = 4
"""Weeks of records the usual levels are learned from (the four before today)."""
MIN_WEEKS = 3
"""Weeks that must count (enough calls that hour) before a band is given."""
MIN_CALLS = 10
"""Calls in a KPI's denominator, in one hour, for that week to count for a rate or an
average."""
MIN_VOLUME_CALLS = 1
"""Calls of the scope, in one hour, for that week to count for a volume (calls,
inbound calls): an hour without any call is a closed hour, not a usual zero."""
MAD_SCALE = 1.4826
"""1.4826 × MAD estimates the standard deviation of normally distributed values."""
BAND_MADS = 3.0
"""The band's half width, in scaled MADs."""

ScopeKind = Literal["center", "campaign", "network"]


@dataclass(frozen=True, order=True)
class Scope:
    """What a usual level is of: the whole call center, one campaign (its uuid) or one
    mobile network (``commands.kernel.networks`` names; ``""`` the unknown network)."""

    kind: ScopeKind
    key: str = ""


CENTER = Scope("center")
"""Every call of the call center."""


def campaign_scope(uuid: str) -> Scope:
    return Scope("campaign", uuid)


def network_scope(name: str) -> Scope:
    return Scope("network", name)


@dataclass(frozen=True)
class UsualKpi:
    """How one KPI's usual level is made: its value and denominator from ``KpiCounts``,
    the smallest denominator for a week to count, and the band's limits."""

    key: str
    value: Callable[[KpiCounts], float | None]
    denominator: Callable[[KpiCounts], int]
    min_calls: int
    floor: float = 0.0
    ceiling: float | None = None
    min_half: float = 0.0
    """The band's half width is at least this…"""
    min_relative: float = 0.0
    """…and at least this fraction of the usual value (a median of 300 s is not
    unusual at 310 s even when four weeks agreed to the second)."""
    unit: Literal["percent", "seconds", "calls"] = "percent"


def _offered(k: KpiCounts) -> int:
    return k.inbound - k.inbound_short_abandons


def _percent(key: str, denominator: Callable[[KpiCounts], int]) -> UsualKpi:
    return UsualKpi(
        key,
        lambda k: getattr(k, key),
        denominator,
        MIN_CALLS,
        ceiling=100.0,
        min_half=5.0,
    )


def _seconds(key: str, denominator: Callable[[KpiCounts], int]) -> UsualKpi:
    return UsualKpi(
        key,
        lambda k: getattr(k, key),
        denominator,
        MIN_CALLS,
        min_half=5.0,
        min_relative=0.1,
        unit="seconds",
    )


USUAL_KPIS: dict[str, UsualKpi] = {
    u.key: u
    for u in (
        UsualKpi(
            "calls",
            lambda k: float(k.calls),
            lambda k: k.calls,
            MIN_VOLUME_CALLS,
            min_half=3.0,
            min_relative=0.2,
            unit="calls",
        ),
        UsualKpi(
            "inbound",
            lambda k: float(k.inbound),
            lambda k: k.calls,
            MIN_VOLUME_CALLS,
            min_half=3.0,
            min_relative=0.2,
            unit="calls",
        ),
        _percent("answer_rate", lambda k: k.calls),
        _percent("asr", lambda k: k.outbound),
        _percent("abandonment", _offered),
        _percent("service_level", _offered),
        _seconds("acd", lambda k: k.outbound_answered),
        _seconds("asa", lambda k: k.inbound_answered),
        _seconds("aht", lambda k: k.agent_answered),
    )
}
"""The KPIs with a usual level, by key (``kpis.KPIS``' keys, plus the volumes ``calls``
and ``inbound``: arrivals per hour, which Erlang C needs).  The repeat-call rate and the
key-press funnel have none: they are not figures of one hour."""


@dataclass(frozen=True)
class UsualBand:
    """The usual level of one KPI for one scope, weekday and hour."""

    value: float
    """The median of the weeks that counted."""
    low: float
    high: float
    weeks: int
    """Weeks that counted (enough calls that hour)."""
    calls: int
    """The KPI's denominator over those weeks (calls, answered calls…)."""

    @property
    def width(self) -> float:
        return self.high - self.low


def is_outside(band: UsualBand, value: float) -> bool:
    """Whether ``value`` is outside the band (its limits are still usual)."""
    return value < band.low or value > band.high


def widths_outside(band: UsualBand, value: float) -> float:
    """How far ``value`` is outside the band, in band widths: 0 inside, positive above
    ``high``, negative below ``low`` (−0.5: half a band's width below it)."""
    width = band.width if band.width > 0 else 1.0
    if value > band.high:
        return (value - band.high) / width
    if value < band.low:
        return (value - band.low) / width
    return 0.0


def usual_band(kpi: UsualKpi, weeks: Iterable[KpiCounts]) -> UsualBand | None:
    """The band of one KPI from one value per week (``None``: too few weeks counted)."""
    values: list[float] = []
    calls = 0
    for counts in weeks:
        denominator = kpi.denominator(counts)
        value = kpi.value(counts)
        if denominator < kpi.min_calls or value is None:
            continue
        values.append(value)
        calls += denominator
    if len(values) < MIN_WEEKS:
        return None
    median = statistics.median(values)
    mad = statistics.median(abs(v - median) for v in values)
    half = max(BAND_MADS * MAD_SCALE * mad, kpi.min_half, kpi.min_relative * abs(median))
    low = max(kpi.floor, median - half)
    high = median + half if kpi.ceiling is None else min(kpi.ceiling, median + half)
    return UsualBand(median, low, high, len(values), calls)


Slot = tuple[Scope, date, int]
"""A scope's calls in one local hour of one day."""


class UsualLearner:
    """Folds call records into counters per scope, local date and hour (in ``tz``);
    ``levels()`` turns them into bands.  Memory grows with scopes × days × hours with
    calls (a few thousand counters a campaign for four weeks), never with the records.

    ``campaigns`` and ``networks`` say which scopes to learn (a campaign's uuid; every
    network, or none); the call center as a whole always."""

    def __init__(self, tz: ZoneInfo, *, campaigns: bool = True, networks: bool = True) -> None:
        self.tz = tz
        self.records = 0
        self._hour = LocalHours(tz)
        self._campaigns = campaigns
        self._networks = networks
        self._slots: dict[Slot, KpiCounter] = {}

    def add_page(self, records: Sequence[Cdr]) -> None:
        for record in records:
            self.add(record)

    def add(self, record: Cdr) -> None:
        self.records += 1
        hour = self._hour(record.time_started)
        if hour is None:
            return
        day, clock = hour.date(), hour.hour
        self._count((CENTER, day, clock), record)
        if self._campaigns and record.campaign_uuid:
            self._count((campaign_scope(record.campaign_uuid), day, clock), record)
        if self._networks:
            inbound = str(record.direction).strip().lower() == "inbound"
            customer = record.from_number if inbound else record.to_number
            network = network_of(customer) if customer else ""
            self._count((network_scope(network), day, clock), record)

    def _count(self, slot: Slot, record: Cdr) -> None:
        counter = self._slots.get(slot)
        if counter is None:
            counter = self._slots[slot] = KpiCounter()
        counter.add_record(record)

    def hourly(self, scope: Scope) -> dict[int, KpiCounts]:
        """``scope``'s counts per local hour, every day fed added together (fed one day,
        that day's hours): what today is compared with the usual levels by."""
        counters: dict[int, KpiCounter] = {}
        for (slot_scope, _day, clock), counter in self._slots.items():
            if slot_scope != scope:
                continue
            total = counters.setdefault(clock, KpiCounter())
            total.values = [a + b for a, b in zip(total.values, counter.values, strict=True)]
            for key, n in counter.keys.items():
                total.keys[key] = total.keys.get(key, 0) + n
        return {clock: c.counts() for clock, c in sorted(counters.items())}

    def scopes(self, kind: ScopeKind | None = None) -> list[Scope]:
        """The scopes fed, of one kind or all, sorted."""
        return sorted({s for s, _d, _h in self._slots if kind is None or s.kind == kind})

    def levels(self) -> UsualLevels:
        weeks: dict[tuple[Scope, int, int], list[KpiCounts]] = {}
        for (scope, day, clock), counter in self._slots.items():
            weeks.setdefault((scope, day.weekday(), clock), []).append(counter.counts())
        return UsualLevels(weeks)


class UsualLevels:
    """The learned usual levels; a band is computed when first asked and kept."""

    def __init__(self, weeks: dict[tuple[Scope, int, int], list[KpiCounts]]) -> None:
        self._weeks = weeks
        self._bands: dict[tuple[Scope, str, int, int], UsualBand | None] = {}

    def band(self, scope: Scope, kpi: str, weekday: int, hour: int) -> UsualBand | None:
        """The usual band of ``kpi`` (a ``USUAL_KPIS`` key) for ``scope`` on ``weekday``
        (Monday 0, as ``date.weekday``) at local ``hour``; ``None`` without enough
        calls or for an unknown KPI."""
        key = (scope, kpi, weekday, hour)
        if key not in self._bands:
            definition = USUAL_KPIS.get(kpi)
            counts = self._weeks.get((scope, weekday, hour), [])
            self._bands[key] = usual_band(definition, counts) if definition else None
        return self._bands[key]

    def scopes(self, kind: ScopeKind | None = None) -> list[Scope]:
        """The scopes that had calls, of one kind or all, sorted."""
        found = {scope for scope, _w, _h in self._weeks if kind is None or scope.kind == kind}
        return sorted(found)


def usual_window(today: date, tz: ZoneInfo) -> Window:
    """The ``USUAL_WEEKS`` whole local weeks before ``today`` (today excluded: it is what
    is compared)."""
    end = datetime.combine(today, time(0, 0), tzinfo=tz)
    start = datetime.combine(today - timedelta(weeks=USUAL_WEEKS), time(0, 0), tzinfo=tz)
    return Window(start, end)


async def learn_usual(
    cc: CallCenter,
    today: date,
    tz: ZoneInfo,
    *,
    campaign: str = "",
    campaigns: bool = True,
    networks: bool = True,
) -> UsualLevels:
    """The usual levels of the four weeks before ``today``, read from the service's
    call records (of one campaign when ``campaign`` is given)."""
    learner = UsualLearner(tz, campaigns=campaigns, networks=networks)
    low, high = usual_window(today, tz).service_bounds()
    if campaign:
        await fold_records(cc, learner, start_date=low, end_date=high, campaign_uuid=campaign)
    else:
        await fold_records(cc, learner, start_date=low, end_date=high)
    return learner.levels()
