"""A chart described once goes out as Slack's native block where it fits, else as the PNG,
with the same summary in words either way."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Sequence
from typing import Any

from PIL import Image
from slack_sdk.models.blocks import Block

from commands.kernel.i18n import use_language
from commands.reports.chart import HEIGHT, WIDTH, render_spec
from commands.reports.chart_blocks import (
    DV,
    chart_parts,
    charts_for_message,
    coarsened,
    native_block,
    summary_text,
)
from commands.reports.chart_spec import Band, ChartSpec, Series
from emulators.slack.blockkit import check_blocks

HOURS = tuple(f"{h:02d}" for h in range(8, 20))


def _bar(**kw: Any) -> ChartSpec:
    values: dict[str, Any] = dict(
        kind="bar",
        title="Calls per hour, Telesale HCM",
        labels=HOURS,
        series=(
            Series("answered", tuple(float(i * 3) for i in range(12))),
            Series("not answered", tuple(float(12 - i) for i in range(12))),
        ),
        x_title="hour (UTC+07)",
        y_title="calls",
    )
    values.update(kw)
    return ChartSpec(**values)


def _dicts(blocks: Sequence[Block]) -> list[dict[str, Any]]:
    return [b.to_dict() for b in blocks]


def test_a_chart_that_fits_goes_native_beside_its_summary() -> None:
    parts = asyncio.run(chart_parts(_bar(), "native"))
    assert parts.native and parts.png is None
    summary, block = _dicts(parts.blocks)
    assert summary["type"] == "context"
    assert "*Calls per hour, Telesale HCM*" in str(summary)
    assert "answered: 198 in all, highest 33 at 19" in str(summary)
    assert block["type"] == DV.TYPE and block["title"] == "Calls per hour, Telesale HCM"
    chart = block["chart"]
    assert isinstance(chart, dict) and chart["type"] == "bar"
    assert chart["axis_config"] == {
        "categories": list(HOURS),
        "x_label": "hour (UTC+07)",
        "y_label": "calls",
    }
    assert [s["name"] for s in chart["series"]] == ["answered", "not answered"]
    assert chart["series"][0]["data"][1] == {"label": "09", "value": 3.0}
    assert check_blocks(_dicts(parts.blocks), limit=50) == []


def test_the_workspace_choosing_images_gets_the_png_with_the_same_summary() -> None:
    native = asyncio.run(chart_parts(_bar(), "native"))
    image = asyncio.run(chart_parts(_bar(), "image"))
    assert image.png is not None and image.png.startswith(b"\x89PNG\r\n\x1a\n")
    assert Image.open(io.BytesIO(image.png)).size == (WIDTH, HEIGHT)
    assert _dicts(image.blocks) == _dicts(native.blocks)[:1]


def test_what_breaks_slacks_limits_falls_back_to_the_png() -> None:
    day = tuple(f"{h:02d}" for h in range(24))
    too_many_points = _bar(
        labels=day, series=(Series("rate", tuple(1.0 for _ in day)),), additive=False
    )
    seven = tuple(Series(f"s{i}", tuple(1.0 for _ in HOURS)) for i in range(7))
    long_name = _bar(series=(Series("x" * 21, tuple(1.0 for _ in HOURS)),))
    for spec in (too_many_points, _bar(series=seven), long_name):
        assert native_block(spec) is None
        parts = asyncio.run(chart_parts(spec, "native"))
        assert parts.png is not None and len(parts.blocks) == 1


def test_counts_over_more_than_twenty_points_are_added_up_to_fit() -> None:
    """A day of hours: quiet hours at both ends left out, then neighbours added in pairs;
    the summary still says the hours themselves, and the PNG draws every hour."""
    day = tuple(f"{h:02d}" for h in range(24))
    answered = tuple(float(h) if 2 <= h <= 23 else 0.0 for h in range(24))
    spec = _bar(labels=day, series=(Series("answered", answered),))
    assert len(coarsened(spec).labels) == 11  # 02..23: 22 hours in pairs
    parts = asyncio.run(chart_parts(spec, "native"))
    summary, block = _dicts(parts.blocks)
    chart = block["chart"]
    assert chart["axis_config"]["categories"][:2] == ["02–03", "04–05"]
    assert chart["series"][0]["data"][0] == {"label": "02–03", "value": 5.0}
    assert sum(p["value"] for p in chart["series"][0]["data"]) == sum(answered)
    assert "highest 23 at 23" in str(summary)
    assert check_blocks(_dicts(parts.blocks), limit=50) == []


def test_a_long_title_is_cut_to_fifty_and_said_whole_in_the_summary() -> None:
    title = "Calls per hour, Telesale HCM and Chăm sóc khách hàng, Mon 23 Nov 08:00 to 12:00"
    parts = asyncio.run(chart_parts(_bar(title=title), "native"))
    summary, block = _dicts(parts.blocks)
    assert len(str(block["title"])) == DV.TITLE_MAX and str(block["title"]).endswith("…")
    assert title in str(summary)


def test_a_native_title_stands_in_for_a_long_one() -> None:
    title = "Calls per hour, Telesale HCM, Mon 23 Nov 08:00 to Tue 24 Nov 08:00 (UTC+07)"
    block = native_block(_bar(title=title, native_title="Calls per hour, Telesale HCM"))
    assert block is not None and block.to_dict()["title"] == "Calls per hour, Telesale HCM"
    short = native_block(_bar(title="Calls per hour", native_title="Calls"))
    assert short is not None and short.to_dict()["title"] == "Calls per hour"


def test_a_message_carries_at_most_two_native_charts() -> None:
    parts = asyncio.run(charts_for_message([_bar(), _bar(), _bar()], "native"))
    assert [p.native for p in parts] == [True, True, False]
    assert parts[2].png is not None
    blocks = [b for p in parts for b in _dicts(p.blocks)]
    assert check_blocks(blocks, limit=50) == []
    image = asyncio.run(charts_for_message([_bar(), _bar()], "image"))
    assert [p.native for p in image] == [False, False]


def test_a_band_is_two_more_series_natively_and_shaded_in_the_png() -> None:
    spec = ChartSpec(
        kind="line",
        title="Answer rate against usual",
        labels=("08", "09", "10"),
        series=(Series("today", (50.0, 20.0, 70.0)),),
        band=Band(low=(40.0, 45.0, 50.0), high=(60.0, 70.0, 80.0), name="usual"),
        additive=False,
    )
    block = native_block(spec)
    assert block is not None
    names = [s["name"] for s in block.to_dict()["chart"]["series"]]
    assert names == ["today", "usual low", "usual high"]
    assert "today: highest 70 at 10, lowest 20 at 09" in summary_text(spec)
    png = render_spec(spec)
    colours = {c for _, c in Image.open(io.BytesIO(png)).convert("RGB").getcolors(10**6) or []}
    assert (214, 236, 226) in colours  # the band


def test_a_pie_leaves_out_empty_slices_natively_but_says_them() -> None:
    spec = ChartSpec(
        kind="pie",
        title="Calls by network",
        labels=("Viettel", "Mobifone", "Vinaphone"),
        series=(Series("calls", (50.0, 0.0, 20.0)),),
    )
    block = native_block(spec)
    assert block is not None
    assert block.to_dict()["chart"] == {
        "type": "pie",
        "segments": [{"label": "Viettel", "value": 50.0}, {"label": "Vinaphone", "value": 20.0}],
    }
    assert "Mobifone 0" in summary_text(spec)
    assert render_spec(spec).startswith(b"\x89PNG")


def test_the_summary_escapes_outside_names_and_speaks_vietnamese() -> None:
    spec = _bar(title="<!channel> & co", series=(Series("a<b>", tuple(1.0 for _ in HOURS)),))
    text = summary_text(spec)
    assert "<!channel>" not in text and "&lt;!channel&gt; &amp; co" in text
    assert "a&lt;b&gt;" in text
    with use_language("vi"):
        vi = summary_text(spec)
    assert "in all" not in vi and "cao nhất" in vi


def test_the_same_spec_gives_the_same_png() -> None:
    assert render_spec(_bar()) == render_spec(_bar())
    assert render_spec(_bar()) != render_spec(_bar(title="other"))
