"""A chart, said once (``ChartSpec``), sent the way the workspace reads charts.

Slack draws charts itself with the ``data_visualization`` block (changelog 2026-06-16,
https://docs.slack.dev/reference/block-kit/blocks/data-visualization-block): a title of at
most 50 characters and one ``chart`` object, either a ``pie`` (1 to 6 ``segments`` of
``label`` and ``value`` greater than 0) or a ``bar``, ``area`` or ``line`` chart (1 to 6
``series`` of a unique ``name`` and ``data`` points of ``label`` and ``value``, plus an
``axis_config`` whose ``categories`` every series covers exactly once, with optional
``x_label`` and ``y_label`` of at most 50 characters).  Labels, names and categories are
at most 20 characters, and a series at most 20 points.  ``DV`` keeps those names and
limits in one place; the Slack stand-in (``emulators/slack/blockkit.py``) checks the same
ones.

``chart_parts`` turns a spec into what a message carries (``charts_for_message`` for
several in one message; the block is for messages only, not modals or the Home tab, where
``summary_text`` says the chart in words): a short summary in words (so the
numbers are read even where the chart is not drawn, and by screen readers), then the native
block when the chart fits and the workspace chose ``native``; else the PNG the existing
renderer draws (``commands.reports.chart``), uploaded after the message as before.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

from slack_sdk.models.blocks import Block

from commands.kernel.i18n import _
from commands.kernel.reply import context_line
from commands.kernel.text import escape, number, truncate
from commands.reports.chart import render_spec
from commands.reports.chart_spec import ChartSpec, Series
from storage import Workspace

ChartMode = Literal["native", "image"]
CHART_MODES: Final[tuple[ChartMode, ...]] = ("native", "image")
DEFAULT_MODE: Final[ChartMode] = "native"


def chart_mode(workspace: Workspace | None) -> ChartMode:
    """How ``workspace`` reads charts (``settings charts``): ``native`` unless an admin
    chose images."""
    return "image" if workspace is not None and workspace.chart_mode == "image" else "native"


class DV:
    """Slack's ``data_visualization`` block: its field names and documented limits."""

    TYPE: Final = "data_visualization"
    TITLE: Final = "title"
    CHART: Final = "chart"
    CHART_TYPE: Final = "type"
    KINDS: Final[tuple[str, ...]] = ("pie", "bar", "area", "line")
    SEGMENTS: Final = "segments"
    SERIES: Final = "series"
    NAME: Final = "name"
    DATA: Final = "data"
    LABEL: Final = "label"
    VALUE: Final = "value"
    AXIS: Final = "axis_config"
    CATEGORIES: Final = "categories"
    X_LABEL: Final = "x_label"
    Y_LABEL: Final = "y_label"

    TITLE_MAX: Final = 50
    """Characters of the title."""
    SERIES_MAX: Final = 6
    """Series of a bar, area or line chart; segments of a pie."""
    POINTS_MAX: Final = 20
    """Points of one series, and so categories of the x axis."""
    LABEL_MAX: Final = 20
    """Characters of a series name, a point's label, a category, a segment's label."""
    AXIS_LABEL_MAX: Final = 50
    """Characters of ``x_label`` and ``y_label``."""
    PER_MESSAGE_MAX: Final = 2
    """Charts in one message: not in the reference, but what Slack answers with
    ``invalid_blocks`` beyond (found by the Slack SDKs' authors against the live API)."""


@dataclass
class ChartParts:
    """What a message carries for one chart: ``blocks`` (the summary, and the native block
    when it is sent natively) and, when it is sent as an image, ``png`` to upload after."""

    blocks: list[Block] = field(default_factory=list)
    png: bytes | None = None
    title: str = ""
    filename: str = "chart.png"

    @property
    def native(self) -> bool:
        return self.png is None


class DataVisualizationBlock(Block):
    """The ``data_visualization`` block, which ``slack_sdk`` does not model yet: its dict
    is built by ``native_block`` and checked against the limits there."""

    type = DV.TYPE

    @property
    def attributes(self) -> set[str]:  # type: ignore[override]
        return super().attributes.union({DV.TITLE, DV.CHART})

    def __init__(self, *, title: str, chart: dict[str, Any], block_id: str | None = None):
        super().__init__(type=self.type, block_id=block_id)
        self.title = title
        self.chart = chart


def _fits_label(text: str) -> bool:
    return 0 < len(text) <= DV.LABEL_MAX


def _finite(values: Sequence[float]) -> bool:
    return all(isinstance(v, int | float) and math.isfinite(v) for v in values)


def _native_series(spec: ChartSpec) -> list[Series]:
    series = list(spec.series)
    if spec.band is not None:
        name = spec.band.name or _("usual")
        # Translators: the two edges of a usual range, in a chart's legend (20 characters).
        series.append(Series(_("{band} low").format(band=name), spec.band.low))
        series.append(Series(_("{band} high").format(band=name), spec.band.high))
    return series


def native_block(spec: ChartSpec) -> DataVisualizationBlock | None:
    """The ``data_visualization`` block for ``spec``, or None when it breaks one of Slack's
    limits (more than 6 series or 20 points, a label over 20 characters, a pie slice of
    zero).  A long title is cut to 50 characters: the summary beside it says it whole."""
    whole = " ".join(spec.title.split())
    if len(whole) > DV.TITLE_MAX and spec.native_title:
        whole = " ".join(spec.native_title.split())
    title = truncate(whole, DV.TITLE_MAX)
    if not title:
        return None
    chart: dict[str, Any]
    if spec.kind == "pie":
        values = spec.series[0].values
        slices = [(x, v) for x, v in zip(spec.labels, values, strict=True) if v > 0]
        if not (0 < len(slices) <= DV.SERIES_MAX) or not _finite(values):
            return None
        if not all(_fits_label(label) for label, _value in slices):
            return None
        segments = [{DV.LABEL: label, DV.VALUE: value} for label, value in slices]
        chart = {DV.CHART_TYPE: "pie", DV.SEGMENTS: segments}
        return DataVisualizationBlock(title=title, chart=chart)
    series = _native_series(spec)
    labels = spec.labels
    if not (0 < len(series) <= DV.SERIES_MAX) or not (0 < len(labels) <= DV.POINTS_MAX):
        return None
    names = [s.name for s in series]
    if len(set(labels)) != len(labels) or len(set(names)) != len(names):
        return None
    if not all(_fits_label(x) for x in (*labels, *names)):
        return None
    if not all(_finite(s.values) for s in series):
        return None
    if len(spec.x_title) > DV.AXIS_LABEL_MAX or len(spec.y_title) > DV.AXIS_LABEL_MAX:
        return None
    axis: dict[str, Any] = {DV.CATEGORIES: list(labels)}
    if spec.x_title:
        axis[DV.X_LABEL] = spec.x_title
    if spec.y_title:
        axis[DV.Y_LABEL] = spec.y_title
    chart = {
        DV.CHART_TYPE: spec.kind,
        DV.SERIES: [
            {
                DV.NAME: s.name,
                DV.DATA: [
                    {DV.LABEL: label, DV.VALUE: value}
                    for label, value in zip(labels, s.values, strict=True)
                ],
            }
            for s in series
        ],
        DV.AXIS: axis,
    }
    return DataVisualizationBlock(title=title, chart=chart)


def coarsened(spec: ChartSpec, most: int = DV.POINTS_MAX) -> ChartSpec:
    """``spec`` with at most ``most`` points, for counts (``additive``): quiet points at
    both ends left out, then neighbours added together (``08–09``), so a day of hours
    still fits Slack's 20 points.  The band cannot be added up, so a banded spec, a pie
    or one that fits already comes back as it is."""
    if spec.kind == "pie" or not spec.additive or spec.band is not None:
        return spec
    if len(spec.labels) <= most:
        return spec
    busy = [i for i in range(len(spec.labels)) if any(s.values[i] for s in spec.series)]
    first, last = (busy[0], busy[-1]) if busy else (0, len(spec.labels) - 1)
    kept = range(first, last + 1)
    size = math.ceil(len(kept) / most)
    groups = [list(kept[i : i + size]) for i in range(0, len(kept), size)]
    labels = tuple(
        spec.labels[g[0]] if len(g) == 1 else f"{spec.labels[g[0]]}–{spec.labels[g[-1]]}"
        for g in groups
    )
    series = tuple(
        Series(s.name, tuple(float(sum(s.values[i] for i in g)) for g in groups))
        for s in spec.series
    )
    return replace(spec, labels=labels, series=series)


def _shown(value: float) -> str:
    return number(int(value) if float(value).is_integer() else round(value, 1))


def summary_text(spec: ChartSpec) -> str:
    """What the chart shows in words, as escaped mrkdwn: its title, then the caller's
    summary or, without one, each series' total and highest point."""
    lines = [f"*{escape(spec.title)}*"]
    if spec.summary:
        lines.append(escape(spec.summary))
    elif spec.kind == "pie":
        total = sum(spec.series[0].values)
        parts = [
            _("{label} {value}").format(label=escape(label), value=_shown(value))
            for label, value in zip(spec.labels, spec.series[0].values, strict=True)
        ]
        lines.append(
            _("{parts} (in all {total})").format(parts=" · ".join(parts), total=_shown(total))
        )
    else:
        for s in spec.series:
            if not s.values:
                continue
            peak = max(range(len(s.values)), key=lambda i: s.values[i])
            low = min(range(len(s.values)), key=lambda i: s.values[i])
            words = {
                "name": escape(s.name),
                "total": _shown(sum(s.values)),
                "peak": _shown(s.values[peak]),
                "at": escape(spec.labels[peak]),
                "low": _shown(s.values[low]),
                "low_at": escape(spec.labels[low]),
            }
            if spec.additive:
                line = _("{name}: {total} in all, highest {peak} at {at}")
            else:
                line = _("{name}: highest {peak} at {at}, lowest {low} at {low_at}")
            lines.append(line.format(**words))
    return truncate("\n".join(lines), 3000)


async def charts_for_message(
    specs: Sequence[ChartSpec], mode: ChartMode = DEFAULT_MODE
) -> list[ChartParts]:
    """``chart_parts`` for several charts of one message: Slack takes at most two
    ``data_visualization`` blocks in a message, so the first two that fit are drawn by
    Slack and the others are sent as images."""
    out: list[ChartParts] = []
    for spec in specs:
        room = sum(1 for p in out if p.native) < DV.PER_MESSAGE_MAX
        out.append(await chart_parts(spec, mode if room else "image"))
    return out


async def chart_parts(spec: ChartSpec, mode: ChartMode = DEFAULT_MODE) -> ChartParts:
    """The blocks (and the PNG, when it is one) that carry ``spec`` in a workspace that
        reads charts as ``mode``: the native block beside its summary when the workspace
        reads them natively and the chart fits Slack's limits (counts over more than 20 points
    are added up in neighbouring pairs or more, see ``coarsened``); else the summary alone in the
        message, and the PNG (drawn in a thread, off the event loop) to upload after it."""
    summary = context_line(summary_text(spec))
    block = native_block(coarsened(spec)) if mode == "native" else None
    if block is not None:
        return ChartParts(blocks=[summary, block], title=spec.title, filename=spec.filename)
    png = await asyncio.to_thread(render_spec, spec)
    return ChartParts(blocks=[summary], png=png, title=spec.title, filename=spec.filename)
