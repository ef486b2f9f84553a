"""What a chart shows, said once (``ChartSpec``), whoever draws it: Slack's native block
(``commands.reports.chart_blocks``) or the PNG (``commands.reports.chart``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ChartKind = Literal["line", "bar", "area", "pie"]


@dataclass(frozen=True)
class Series:
    """One line, area or set of bars; for a pie, the one series holds each slice's value."""

    name: str
    values: tuple[float, ...]


@dataclass(frozen=True)
class Band:
    """The usual range around a series (``commands/reports/usual.py``): drawn shaded in
    the PNG, sent as two more series (low and high) in the native chart."""

    low: tuple[float, ...]
    high: tuple[float, ...]
    name: str = ""
    """What the band is (``usual``); the reader's words."""


@dataclass(frozen=True)
class ChartSpec:
    """What to chart, in the reader's words (callers translate; nothing here is mrkdwn)."""

    kind: ChartKind
    title: str
    labels: tuple[str, ...]
    """The x axis's categories, left to right; for a pie, each slice's label."""
    series: tuple[Series, ...]
    band: Band | None = None
    x_title: str = ""
    y_title: str = ""
    summary: str = ""
    """A sentence or two saying what the chart shows (plain text, escaped when placed);
    empty: each series' total and highest point, said by ``summary_text``."""
    filename: str = "chart.png"
    """The PNG's file name when it is sent as an image."""
    additive: bool = True
    """The values add up (counts): the summary may give a series' total.  Not for rates."""
    native_title: str = ""
    """A shorter title for Slack's chart when ``title`` is over its 50 characters (the
    message around it already says the rest: the period, say); empty: ``title`` cut."""

    def __post_init__(self) -> None:
        if not self.series:
            raise ValueError("a chart needs at least one series")
        for s in self.series:
            if len(s.values) != len(self.labels):
                raise ValueError(
                    f"series {s.name!r} has {len(s.values)} values for {len(self.labels)} labels"
                )
        if self.band is not None and not (
            len(self.band.low) == len(self.band.high) == len(self.labels)
        ):
            raise ValueError("the band needs one low and one high per label")
