"""A KPI's hours today against its usual band: the picture of an anomaly alert.

The same drawing as the digest's chart (``commands.reports.chart``: Pillow, Noto Sans,
its sizes and colours, no timestamps, so the same figures give the same bytes): for each
local hour, the usual band as a grey bar from its low to its high edge with the usual
value marked, and today's value as a dot, green inside the band and red outside.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from commands.kernel.formats import number
from commands.kernel.i18n import _
from commands.reports.chart import (
    ANSWERED,
    BACKGROUND,
    GRID,
    HEIGHT,
    INK,
    MARGIN_BOTTOM,
    MARGIN_LEFT,
    MARGIN_RIGHT,
    MARGIN_TOP,
    MUTED,
    NOT_ANSWERED,
    WIDTH,
    _fitted,
    _font,
    _nice_ceiling,
    _plain,
)

BAND = (221, 221, 221)


@dataclass(frozen=True)
class BandHour:
    label: str
    """``08`` under the hour."""
    low: float | None
    usual: float | None
    high: float | None
    """The usual band of that hour (None: no band, too few calls in past weeks)."""
    value: float | None
    """Today's value (None: too few calls, or an hour still to come)."""


def render_band_chart(hours: Sequence[BandHour], *, title: str, unit: str, percent: bool) -> bytes:
    """A PNG of ``hours``: band bars, usual ticks, today's dots, a legend."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    title_font, font, small = _font(18), _font(13), _font(11)
    draw.text(
        (MARGIN_LEFT, 16), _fitted(draw, _plain(title), title_font), fill=INK, font=title_font
    )
    plot_left, plot_right = MARGIN_LEFT, WIDTH - MARGIN_RIGHT
    plot_top, plot_bottom = MARGIN_TOP, HEIGHT - MARGIN_BOTTOM
    highest = max((v for h in hours for v in (h.high, h.value) if v is not None), default=1.0)
    top, step = (100, 20) if percent else _nice_ceiling(max(1, round(highest * 1.1)))
    scale = (plot_bottom - plot_top) / top

    def y_of(value: float) -> int:
        return plot_bottom - round(min(max(value, 0.0), float(top)) * scale)

    for tick in range(0, top + 1, step):
        y = y_of(tick)
        draw.line([(plot_left, y), (plot_right, y)], fill=GRID, width=1)
        text = number(tick)
        width = draw.textlength(text, font=small)
        draw.text((plot_left - 8 - width, y - 7), text, fill=MUTED, font=small)
    draw.line([(plot_left, plot_top), (plot_left, plot_bottom)], fill=INK, width=1)
    draw.line([(plot_left, plot_bottom), (plot_right, plot_bottom)], fill=INK, width=1)

    slot = (plot_right - plot_left) / max(1, len(hours))
    width_of_bar = max(2, round(slot * 0.6))
    for i, hour in enumerate(hours):
        centre = plot_left + i * slot + slot / 2
        x0, x1 = round(centre - width_of_bar / 2), round(centre + width_of_bar / 2)
        if hour.low is not None and hour.high is not None:
            draw.rectangle(
                [(x0, y_of(hour.high)), (x1, max(y_of(hour.low), y_of(hour.high)))], fill=BAND
            )
        if hour.usual is not None:
            y = y_of(hour.usual)
            draw.line([(x0, y), (x1, y)], fill=MUTED, width=2)
        if hour.value is not None:
            outside = (hour.low is not None and hour.value < hour.low) or (
                hour.high is not None and hour.value > hour.high
            )
            y = y_of(hour.value)
            draw.ellipse(
                [(centre - 5, y - 5), (centre + 5, y + 5)],
                fill=NOT_ANSWERED if outside else ANSWERED,
            )
        label = _plain(hour.label)
        label_width = draw.textlength(label, font=small)
        draw.text((centre - label_width / 2, plot_bottom + 6), label, fill=MUTED, font=small)

    draw.text((8, plot_top - 22), _plain(unit), fill=INK, font=font)
    legend_y = HEIGHT - 24
    x = plot_left
    for colour, name in (
        (BAND, _("usual band")),
        (ANSWERED, _("today, in the band")),
        (NOT_ANSWERED, _("today, out of the band")),
    ):
        name = _plain(name)
        draw.rectangle([(x, legend_y), (x + 12, legend_y + 12)], fill=colour)
        draw.text((x + 18, legend_y - 1), name, fill=INK, font=font)
        x += 30 + round(draw.textlength(name, font=font))
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=False)
    return out.getvalue()
