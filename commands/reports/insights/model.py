"""What ``insights`` found for a day: the KPI lines, networks, agents and staffing,
and the limits that decide how much of each it keeps."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from commands.reports.kpis import KpiCounts
from commands.reports.usual import Scope, UsualBand
from commands.rules.guard import DECREE_TZ
from commands.rules.guard import Window as Hours

INSIGHTS_TZ = DECREE_TZ
"""Hours and days are Vietnam's: the usual levels are learned on that clock."""
SERVICE_LEVEL_TARGET = 0.8
"""The share of inbound calls to answer within ``SERVICE_LEVEL_SECONDS`` (80/20)."""
TOP_AGENTS = 3
MIN_AGENT_CALLS = 5
"""Answered calls before an agent is held against the team (fewer say nothing)."""
TOP_HOURS = 3
MAX_NETWORKS = 5

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
