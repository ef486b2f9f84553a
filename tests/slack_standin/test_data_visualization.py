"""Slack's ``data_visualization`` block: the stand-in takes what the reference allows and
refuses the rest with ``invalid_blocks``, as for any other block."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from emulators.slack import CALL_CENTER, SUPERVISOR, SlackStandIn
from tests.slack_standin.refusals import refused


def line_chart() -> dict[str, Any]:
    return {
        "type": "data_visualization",
        "title": "Calls per hour",
        "chart": {
            "type": "line",
            "series": [
                {
                    "name": "answered",
                    "data": [{"label": "08", "value": 12}, {"label": "09", "value": 30.5}],
                },
                {
                    "name": "not answered",
                    "data": [{"label": "09", "value": 4}, {"label": "08", "value": -1}],
                },
            ],
            "axis_config": {"categories": ["08", "09"], "x_label": "hour", "y_label": "calls"},
        },
    }


def pie_chart() -> dict[str, Any]:
    return {
        "type": "data_visualization",
        "block_id": "networks",
        "title": "Calls by network",
        "chart": {
            "type": "pie",
            "segments": [{"label": "Viettel", "value": 45}, {"label": "Vinaphone", "value": 0.5}],
        },
    }


async def test_every_documented_chart_type_is_accepted(
    slack: SlackStandIn, client: AsyncWebClient
) -> None:
    bar, area = line_chart(), line_chart()
    bar["chart"]["type"], area["chart"]["type"] = "bar", "area"
    del area["chart"]["axis_config"]["x_label"], area["chart"]["axis_config"]["y_label"]
    for blocks in ([line_chart(), pie_chart()], [bar, area]):
        await client.chat_postMessage(channel=CALL_CENTER, text="charts", blocks=blocks)
    assert slack.invalid_sends() == []
    posted = slack.messages(CALL_CENTER)
    assert [b["chart"]["type"] for m in posted for b in m["blocks"]] == [
        "line",
        "pie",
        "bar",
        "area",
    ]
    assert posted[0]["blocks"][1]["block_id"] == "networks"


def _edit(change: Callable[[dict[str, Any]], None], base: Callable[[], dict[str, Any]]) -> Any:
    block = copy.deepcopy(base())
    change(block)
    return block


def _series(n: int) -> list[dict[str, Any]]:
    return [{"name": f"s{i}", "data": [{"label": "08", "value": 1}]} for i in range(n)]


BAD: list[tuple[str, Any, str]] = [
    ("title over 50", lambda b: b.update(title="x" * 51), "less than 51 characters"),
    ("no title", lambda b: b.pop("title"), "missing required field: title"),
    ("no chart", lambda b: b.pop("chart"), "missing required field: chart"),
    ("unknown chart", lambda b: b["chart"].update(type="scatter"), "must be one of"),
    (
        "seven series",
        lambda b: b["chart"].update(series=_series(7), axis_config={"categories": ["08"]}),
        "no more than 6 items",
    ),
    ("no axis_config", lambda b: b["chart"].pop("axis_config"), "axis_config"),
    (
        "a value in a string",
        lambda b: b["chart"]["series"][0]["data"][0].update(value="12"),
        "must provide a number",
    ),
    (
        "a boolean value",
        lambda b: b["chart"]["series"][0]["data"][0].update(value=True),
        "must provide a number",
    ),
    (
        "a point off the axis",
        lambda b: b["chart"]["series"][0]["data"][0].update(label="07"),
        "must match axis_config.categories",
    ),
    (
        "a name over 20",
        lambda b: b["chart"]["series"][0].update(name="n" * 21),
        "less than 21 characters",
    ),
    (
        "twice the same name",
        lambda b: b["chart"]["series"][1].update(name="answered"),
        "series names must be unique",
    ),
    (
        "21 categories",
        lambda b: b["chart"]["axis_config"].update(categories=[str(i) for i in range(21)]),
        "no more than 20 items",
    ),
    (
        "y_label over 50",
        lambda b: b["chart"]["axis_config"].update(y_label="y" * 51),
        "less than 51 characters",
    ),
]


BAD_PIE: list[tuple[str, Any, str]] = [
    ("a zero segment", lambda b: b["chart"]["segments"][0].update(value=0), "greater than 0"),
    ("no segments", lambda b: b["chart"].update(segments=[]), "non-empty array"),
    (
        "seven segments",
        lambda b: b["chart"].update(segments=[{"label": str(i), "value": 1} for i in range(7)]),
        "no more than 6 items",
    ),
    ("an empty label", lambda b: b["chart"]["segments"][0].update(label=""), "non-empty string"),
]
"""What a pie may not be (``BAD`` is what a series chart may not be)."""


@pytest.mark.parametrize(
    ("base", "change", "fragment"),
    [(line_chart, c, f) for _, c, f in BAD] + [(pie_chart, c, f) for _, c, f in BAD_PIE],
    ids=[f"series: {n}" for n, *_ in BAD] + [f"pie: {n}" for n, *_ in BAD_PIE],
)
async def test_a_chart_breaking_a_limit_is_refused(
    slack: SlackStandIn,
    client: AsyncWebClient,
    base: Callable[[], dict[str, Any]],
    change: Any,
    fragment: str,
) -> None:
    block = _edit(change, base)
    body = await refused(client.chat_postMessage(channel=CALL_CENTER, text="t", blocks=[block]))
    assert body["error"] == "invalid_blocks"
    assert any(fragment in e for e in body["errors"]), body["errors"]
    assert slack.messages(CALL_CENTER) == []


async def test_three_charts_in_one_message_or_one_in_a_view_are_refused(
    slack: SlackStandIn, client: AsyncWebClient
) -> None:
    three = [line_chart(), pie_chart(), line_chart()]
    three[2]["block_id"] = "third"
    body = await refused(client.chat_postMessage(channel=CALL_CENTER, text="t", blocks=three))
    assert any("no more than 2 data_visualization" in e for e in body["errors"])
    home = {"type": "home", "blocks": [line_chart()]}
    body = await refused(client.views_publish(user_id=SUPERVISOR, view=home))
    assert any("only be used in messages" in e for e in body["errors"])
    assert len(slack.invalid_sends()) == 2
