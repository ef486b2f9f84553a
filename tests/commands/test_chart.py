"""The digest chart: a real PNG, the same bytes for the same numbers, bars to scale."""

from __future__ import annotations

import ast
import io
import unicodedata
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

from commands.kernel.i18n import _, use_language
from commands.reports.chart import (
    ANSWERED,
    FONT,
    HEIGHT,
    NOT_ANSWERED,
    WIDTH,
    Bar,
    _font,
    render_bar_chart,
)


def _bars() -> list[Bar]:
    return [Bar(f"{h:02d}", answered=h * 2, not_answered=h % 5) for h in range(24)]


def test_the_chart_is_a_png_of_the_agreed_size() -> None:
    png = render_bar_chart(_bars(), title="Calls per hour, Mon 23 Nov", x_label="hour (UTC)")
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    image = Image.open(io.BytesIO(png))
    image.verify()
    assert image.size == (WIDTH, HEIGHT)


def test_the_same_numbers_give_the_same_bytes() -> None:
    first = render_bar_chart(_bars(), title="t", x_label="hour (UTC)")
    assert render_bar_chart(_bars(), title="t", x_label="hour (UTC)") == first
    other = render_bar_chart(_bars()[:-1], title="t", x_label="hour (UTC)")
    assert other != first


def test_answered_and_not_answered_are_drawn_in_their_colours() -> None:
    png = render_bar_chart(
        [Bar("a", answered=10, not_answered=0), Bar("b", answered=0, not_answered=10)],
        title="t",
        x_label="day (UTC)",
    )
    counted = Image.open(io.BytesIO(png)).convert("RGB").getcolors(10**6)
    assert counted is not None
    colours = {colour for _, colour in counted}
    assert ANSWERED in colours and NOT_ANSWERED in colours


def test_a_part_too_small_for_the_scale_still_shows() -> None:
    """One unanswered call on a bar of a thousand, one answered call on a bar of three:
    each rounds to no pixel at this scale, and is drawn as one."""
    png = render_bar_chart(
        [
            Bar("a", answered=1000, not_answered=1),
            Bar("b", answered=1, not_answered=2),
            Bar("c", answered=999, not_answered=0),
        ],
        title="t",
        x_label="hour (UTC)",
    )
    image = Image.open(io.BytesIO(png)).convert("RGB")
    width = WIDTH // 3
    for bar in range(2):
        colours = {
            image.getpixel((x, y))
            for x in range(bar * width, (bar + 1) * width)
            for y in range(HEIGHT)
        }
        assert ANSWERED in colours and NOT_ANSWERED in colours


def test_an_empty_period_still_draws_axes() -> None:
    png = render_bar_chart([], title="Calls per day", x_label="day (UTC)")
    Image.open(io.BytesIO(png)).verify()


# --- the font: Vietnamese letters drawn, not boxes ------------------------------------


def _seeded_text() -> set[str]:
    """Every character of the emulator's seeded strings: campaign, agent, customer,
    carrier, group and place names, templates."""
    root = Path(__file__).resolve().parents[2] / "emulators" / "pbx"
    chars: set[str] = set()
    for module in ("seed.py", "fakedata.py"):
        for node in ast.walk(ast.parse((root / module).read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                chars.update(node.value)
    return {c for c in chars if c.isprintable() and not c.isspace()}


def _drawn(font: ImageFont.FreeTypeFont, char: str) -> bytes:
    image = Image.new("L", (48, 48))
    ImageDraw.Draw(image).text((8, 8), char, font=font, fill=255)
    return image.tobytes()


def test_the_chart_font_has_every_letter_of_the_seeded_names() -> None:
    """A character the font lacks is drawn as its .notdef box: the same pixels as a
    code point no font has."""
    font = _font(20)
    box = _drawn(font, "\U0010fffd")
    chars = _seeded_text()
    assert "ệ" in chars and "Đ" in chars  # the seed is Vietnamese
    missing = sorted(c for c in chars if _drawn(font, c) == box)
    assert not missing, f"no glyph for {''.join(missing)!r} in {FONT.name}"


def test_the_chart_draws_in_the_readers_language() -> None:
    english = render_bar_chart(_bars(), title="Telesale HCM", x_label="hour (UTC)")
    with use_language("vi"):
        vietnamese = render_bar_chart(_bars(), title="Telesale HCM", x_label="hour (UTC)")
        translated = _("answered") != "answered"
    assert (vietnamese != english) == translated


def test_decomposed_marks_are_drawn_as_the_composed_letter() -> None:
    composed = "Telesale thử tận dụng HCM"
    decomposed = unicodedata.normalize("NFD", composed)
    assert decomposed != composed
    assert render_bar_chart(_bars(), title=decomposed, x_label="x") == render_bar_chart(
        _bars(), title=composed, x_label="x"
    )


def test_a_title_too_long_for_the_chart_is_cut_not_run_off_the_edge() -> None:
    title = ", ".join(["Gọi lại khách hàng chăm sóc sau bán hàng CT"] * 6)
    png = render_bar_chart(_bars(), title=title, x_label="giờ (UTC+07)")
    image = Image.open(io.BytesIO(png)).convert("RGB")
    edge = {image.getpixel((x, y)) for x in range(WIDTH - 20, WIDTH) for y in range(10, 44)}
    assert edge == {(255, 255, 255)}
