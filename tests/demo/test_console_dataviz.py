"""The console draws Slack's data_visualization block: grouped bars, lines, areas and a pie
in SVG, with the title above, axis titles and a legend; the app's words stay text."""

from __future__ import annotations

from typing import Any

from playwright.async_api import expect
from slack_sdk.web.async_client import AsyncWebClient

from demo.offline import Demo
from emulators.slack import CALL_CENTER
from tests.demo.conftest import BROWSER, Console

pytestmark = BROWSER

HOURS = ["08", "09", "10"]


def series_chart(kind: str, title: str) -> dict[str, Any]:
    return {
        "type": "data_visualization",
        "title": title,
        "chart": {
            "type": kind,
            "series": [
                {
                    "name": "answered",
                    "data": [
                        {"label": h, "value": v} for h, v in zip(HOURS, (5, 9, 3), strict=True)
                    ],
                },
                {
                    "name": "not answered",
                    "data": [
                        {"label": h, "value": v} for h, v in zip(HOURS, (2, 0, -1), strict=True)
                    ],
                },
            ],
            "axis_config": {"categories": HOURS, "x_label": "hour", "y_label": "calls"},
        },
    }


async def test_every_chart_type_is_drawn(console: Console, demo: Demo) -> None:
    await console.open()
    client = AsyncWebClient(token=demo.slack.bot_token(), base_url=demo.slack.api_url)
    pie = {
        "type": "data_visualization",
        "title": "Calls by network",
        "chart": {
            "type": "pie",
            "segments": [{"label": "Viettel", "value": 3}, {"label": "Vinaphone", "value": 1}],
        },
    }
    await client.chat_postMessage(
        channel=CALL_CENTER,
        text="bars and lines",
        blocks=[series_chart("bar", "<b>Bars</b> & more"), series_chart("line", "Lines")],
    )
    await client.chat_postMessage(
        channel=CALL_CENTER, text="areas and pie", blocks=[series_chart("area", "Areas"), pie]
    )

    bars = console.message_with("& more").locator(".dataviz-block[data-chart='bar']")
    # Grouped: one rectangle per series and hour (a zero is a bar of no height).
    await expect(bars.locator("rect.dataviz-bar")).to_have_count(6)
    await expect(bars.locator(".dataviz-title")).to_have_text("<b>Bars</b> & more")
    assert await bars.locator("b").count() == 0
    await expect(bars.locator(".dataviz-legend .dataviz-key")).to_have_text(
        ["answered", "not answered"]
    )
    await expect(bars.locator("text.dataviz-axis-title")).to_have_text(["hour", "calls"])
    await expect(bars.locator("svg")).to_have_attribute("role", "img")

    lines = console.message_with("& more").locator(".dataviz-block[data-chart='line']")
    await expect(lines.locator("polyline.dataviz-line")).to_have_count(2)
    areas = console.message_with("Calls by network").locator(".dataviz-block[data-chart='area']")
    await expect(areas.locator("polygon.dataviz-area")).to_have_count(2)
    slices = console.message_with("Calls by network").locator(".dataviz-block[data-chart='pie']")
    await expect(slices.locator(".dataviz-segment")).to_have_count(2)
    await expect(slices.locator(".dataviz-legend")).to_contain_text("Vinaphone")
    assert console.blocked == []
    assert await console.page.locator(".unsupported").count() == 0
