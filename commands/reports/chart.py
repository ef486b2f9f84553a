"""The digest's picture: calls per hour or per day, answered stacked on not answered.

Drawn with Pillow into a PNG, no plotting library: a bar chart is a few rectangles, and
drawing them ourselves keeps the output byte-for-byte the same for the same numbers (no
timestamps, no randomness), so a digest re-posted for the same slot shows the same image.

The words are drawn in the reader's language with Noto Sans (``fonts/``, SIL Open Font
License), which has every Vietnamese letter; Pillow's built-in font has none of them.
"""

from __future__ import annotations

import functools
import io
import math
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from commands.kernel.formats import number
from commands.kernel.i18n import _
from commands.reports.chart_spec import ChartSpec, Series

WIDTH = 960
HEIGHT = 420
MARGIN_LEFT = 64
MARGIN_RIGHT = 24
MARGIN_TOP = 56
MARGIN_BOTTOM = 78

BACKGROUND = (255, 255, 255)
INK = (29, 28, 29)
GRID = (230, 230, 230)
ANSWERED = (46, 182, 125)
NOT_ANSWERED = (224, 30, 90)
MUTED = (97, 96, 97)

FONT = Path(__file__).resolve().parent / "fonts" / "NotoSans-Regular.ttf"
"""Noto Sans Regular, cut to the Latin letters (Vietnamese's included) and punctuation:
see ``fonts/README.md``."""


@dataclass(frozen=True)
class Bar:
    label: str
    """Shown under the bar (``08``, ``Mon 23``); thinned out when bars are narrow."""
    answered: int
    not_answered: int

    @property
    def total(self) -> int:
        return self.answered + self.not_answered


@functools.cache
def _font(size: int) -> ImageFont.FreeTypeFont:
    """The chart's font at ``size`` pixels, read once per size."""
    return ImageFont.truetype(str(FONT), size=size)


def _fitted(draw: ImageDraw.ImageDraw, text: str, font: ImageFont.FreeTypeFont) -> str:
    """``text`` cut with an ellipsis to the chart's width (a title naming several
    campaigns in a longer language would run off the picture)."""
    room = WIDTH - MARGIN_LEFT - MARGIN_RIGHT
    if draw.textlength(text, font=font) <= room:
        return text
    while text and draw.textlength(text + "…", font=font) > room:
        text = text[:-1]
    return text.rstrip() + "…"


def _plain(text: str) -> str:
    """Composed letters (``ệ`` as one character, not ``e`` and two marks), so each is drawn
    as the font's own glyph whatever form the service or the catalog wrote it in."""
    return unicodedata.normalize("NFC", text)


def _nice_ceiling(value: int) -> tuple[int, int]:
    """The axis top and tick step: 1, 2 or 5 times a power of ten, about 5 ticks."""
    if value <= 0:
        return 5, 1
    rough = value / 5
    power = 10 ** math.floor(math.log10(rough)) if rough >= 1 else 1
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= rough)
    step = max(1, int(step))
    return step * math.ceil(value / step), step


def render_bar_chart(bars: Sequence[Bar], *, title: str, x_label: str) -> bytes:
    """A PNG of ``bars``, answered stacked on not answered, with a title, both axis
    labels, y ticks and a legend (``render_spec`` of the same numbers)."""
    spec = ChartSpec(
        kind="bar",
        title=title,
        labels=tuple(b.label for b in bars),
        series=(
            Series(_("answered"), tuple(float(b.answered) for b in bars)),
            Series(_("not answered"), tuple(float(b.not_answered) for b in bars)),
        ),
        x_title=x_label,
        y_title=_("calls"),
    )
    return render_spec(spec)


# --- any chart described by a ChartSpec (commands/reports/chart_blocks.py) ------------

SERIES_COLOURS = (ANSWERED, NOT_ANSWERED, (54, 197, 240), (236, 178, 46), (120, 80, 190), INK)
"""One colour per series, in order: the digest's answered and not answered first."""
BAND = (214, 236, 226)
"""The usual range, drawn behind the series."""


@functools.cache
def _spec_palette() -> Image.Image:
    """``_palette`` with the series' and the band's colours: a fixed palette keeps the
    bytes the same for the same numbers."""
    colours = [BACKGROUND, INK, MUTED, GRID, BAND, *SERIES_COLOURS[2:5]]
    colours += [ANSWERED, NOT_ANSWERED]
    colours += [(v, v, v) for v in range(0, 256, 8)]
    flat = [channel for colour in colours for channel in colour]
    palette = Image.new("P", (1, 1))
    palette.putpalette(flat + [0] * (768 - len(flat)))
    return palette


def _legend(draw: ImageDraw.ImageDraw, items: Sequence[tuple[tuple[int, int, int], str]]) -> None:
    font = _font(13)
    x, y = MARGIN_LEFT, HEIGHT - 24
    for colour, name in items:
        name = _plain(name)
        draw.rectangle([(x, y), (x + 12, y + 12)], fill=colour)
        draw.text((x + 18, y - 1), name, fill=INK, font=font)
        x += 30 + round(draw.textlength(name, font=font))


def _pie(draw: ImageDraw.ImageDraw, labels: Sequence[str], values: Sequence[float]) -> None:
    total = sum(v for v in values if v > 0)
    size = HEIGHT - MARGIN_TOP - MARGIN_BOTTOM
    left = (WIDTH - size) // 2
    box = [(left, MARGIN_TOP), (left + size, MARGIN_TOP + size)]
    if total <= 0:
        draw.ellipse(box, outline=GRID, width=2)
        return
    start = -90.0
    for i, value in enumerate(values):
        if value <= 0:
            continue
        sweep = 360.0 * value / total
        colour = SERIES_COLOURS[i % len(SERIES_COLOURS)]
        draw.pieslice(box, start, start + sweep, fill=colour, outline=BACKGROUND)
        start += sweep


def render_spec(spec: ChartSpec) -> bytes:
    """A PNG of any ``ChartSpec``: bars stacked (the digest's answered on not answered),
    lines, areas layered first at the back, a pie; the band shaded behind the series."""
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    title_font, font, small = _font(18), _font(13), _font(11)
    draw.text(
        (MARGIN_LEFT, 16), _fitted(draw, _plain(spec.title), title_font), fill=INK, font=title_font
    )
    legend = [(SERIES_COLOURS[i % len(SERIES_COLOURS)], s.name) for i, s in enumerate(spec.series)]
    if spec.kind == "pie":
        _pie(draw, spec.labels, spec.series[0].values)
        legend = [
            (SERIES_COLOURS[i % len(SERIES_COLOURS)], label)
            for i, label in enumerate(spec.labels)
            if spec.series[0].values[i] > 0
        ]
        _legend(draw, legend)
        return _encode(image)

    plot_left, plot_right = MARGIN_LEFT, WIDTH - MARGIN_RIGHT
    plot_top, plot_bottom = MARGIN_TOP, HEIGHT - MARGIN_BOTTOM
    count = len(spec.labels)
    if spec.kind == "bar":
        tallest = max(
            (sum(max(0, s.values[i]) for s in spec.series) for i in range(count)), default=0
        )
    else:
        tallest = max((max(s.values, default=0) for s in spec.series), default=0)
    if spec.band is not None:
        tallest = max(tallest, max(spec.band.high, default=0))
    top, step = _nice_ceiling(math.ceil(tallest))
    scale = (plot_bottom - plot_top) / top

    def y_of(value: float) -> int:
        return plot_bottom - round(max(0.0, min(value, top)) * scale)

    for tick in range(0, top + 1, step):
        y = y_of(tick)
        draw.line([(plot_left, y), (plot_right, y)], fill=GRID, width=1)
        text = number(tick)
        width = draw.textlength(text, font=small)
        draw.text((plot_left - 8 - width, y - 7), text, fill=MUTED, font=small)

    slot = (plot_right - plot_left) / max(1, count)

    def x_of(i: int) -> float:
        return plot_left + i * slot + slot / 2

    if spec.band is not None and count:
        upper = [(x_of(i), y_of(v)) for i, v in enumerate(spec.band.high)]
        lower = [(x_of(i), y_of(v)) for i, v in reversed(list(enumerate(spec.band.low)))]
        if count == 1:
            draw.rectangle(
                [(x_of(0) - slot / 3, upper[0][1]), (x_of(0) + slot / 3, lower[0][1])], fill=BAND
            )
        else:
            draw.polygon(upper + lower, fill=BAND)
        legend.append((BAND, spec.band.name or _("usual")))

    if spec.kind == "bar":
        bar_width = max(1, round(slot * 0.7))
        for i in range(count):
            x0 = round(plot_left + i * slot + (slot - bar_width) / 2)
            x1 = x0 + bar_width - 1
            base = 0.0
            bottom = plot_bottom - 1
            for k, s in enumerate(spec.series):
                value = max(0.0, s.values[i])
                if not value:
                    continue
                base += value
                # A part that is not zero shows at least one pixel (see render_bar_chart).
                part_top = min(y_of(base), bottom)
                colour = SERIES_COLOURS[k % len(SERIES_COLOURS)]
                draw.rectangle([(x0, part_top), (x1, bottom)], fill=colour)
                bottom = part_top - 1
    else:
        for k, s in enumerate(spec.series):
            colour = SERIES_COLOURS[k % len(SERIES_COLOURS)]
            points = [(x_of(i), y_of(v)) for i, v in enumerate(s.values)]
            if spec.kind == "area" and len(points) > 1:
                outline = [*points, (points[-1][0], plot_bottom), (points[0][0], plot_bottom)]
                draw.polygon(outline, fill=colour)
            elif len(points) > 1:
                draw.line(points, fill=colour, width=3, joint="curve")
            for x, y in points if spec.kind == "line" else ():
                draw.ellipse([(x - 3, y - 3), (x + 3, y + 3)], fill=colour)

    draw.line([(plot_left, plot_top), (plot_left, plot_bottom)], fill=INK, width=1)
    draw.line([(plot_left, plot_bottom), (plot_right, plot_bottom)], fill=INK, width=1)
    label_every = max(1, math.ceil(34 / slot)) if slot < 34 else 1
    for i, label in enumerate(spec.labels):
        if i % label_every:
            continue
        text = _plain(label)
        width = draw.textlength(text, font=small)
        draw.text((x_of(i) - width / 2, plot_bottom + 6), text, fill=MUTED, font=small)
    if spec.y_title:
        draw.text((8, plot_top - 22), _plain(spec.y_title), fill=INK, font=font)
    if spec.x_title:
        x_label = _plain(spec.x_title)
        x_width = draw.textlength(x_label, font=font)
        draw.text(
            ((plot_left + plot_right) / 2 - x_width / 2, plot_bottom + 28), x_label, fill=INK,
            font=font,
        )  # fmt: skip
    _legend(draw, legend)
    return _encode(image)


def _encode(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.quantize(palette=_spec_palette(), dither=Image.Dither.NONE).save(out, format="PNG")
    return out.getvalue()
