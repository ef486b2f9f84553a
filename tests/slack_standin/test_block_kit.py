"""Block Kit checking: what Slack refuses is refused, and the journal says so."""

from __future__ import annotations

from typing import Any

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from emulators.slack import CALL_CENTER, SUPERVISOR, SlackStandIn
from tests.slack_standin.refusals import refused


def section(text: str, block_id: str | None = None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "section", "text": {"type": "mrkdwn", "text": text}}
    if block_id:
        block["block_id"] = block_id
    return block


@pytest.mark.parametrize(
    ("blocks", "fragment"),
    [
        ([section("x" * 3001)], "3000"),
        ([section(str(i)) for i in range(51)], "no more than 50"),
        ([{"type": "sparkles"}], "unsupported type 'sparkles'"),
        (
            [{"type": "actions", "elements": [{"type": "laser", "action_id": "a"}]}],
            "unsupported element type 'laser'",
        ),
        ([section("a", "same"), section("b", "same")], "duplicate block_id"),
        ([{"type": "header", "text": {"type": "plain_text", "text": "h" * 151}}], "150"),
        ([{"type": "section"}], "text or fields"),
    ],
)
async def test_message_blocks_that_break_slack_rules_are_refused(
    slack: SlackStandIn, client: AsyncWebClient, blocks: list[dict[str, Any]], fragment: str
) -> None:
    body = await refused(client.chat_postMessage(channel=CALL_CENTER, text="t", blocks=blocks))
    assert body["error"] == "invalid_blocks"
    assert any(fragment in e for e in body["errors"]), body["errors"]
    assert body["response_metadata"]["messages"][0].startswith("[ERROR]")
    assert slack.messages(CALL_CENTER) == []
    [entry] = slack.invalid_sends()
    assert entry.method == "chat.postMessage" and any(fragment in p for p in entry.problems)


async def test_text_over_40000_characters_is_too_long(
    slack: SlackStandIn, client: AsyncWebClient
) -> None:
    body = await refused(client.chat_postMessage(channel=CALL_CENTER, text="x" * 40_001))
    assert body["error"] == "msg_too_long"
    assert len(slack.invalid_sends()) == 1


async def test_valid_rich_message_passes(slack: SlackStandIn, client: AsyncWebClient) -> None:
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": "Spring campaign"}},
        {
            "type": "section",
            "fields": [{"type": "mrkdwn", "text": "*Status*\nrunning"}],
            "accessory": {
                "type": "overflow",
                "action_id": "more",
                "options": [{"text": {"type": "plain_text", "text": "Stop"}, "value": "stop"}],
            },
        },
        {"type": "divider"},
        {
            "type": "actions",
            "elements": [
                {
                    "type": "button",
                    "action_id": "pause",
                    "text": {"type": "plain_text", "text": "Pause"},
                    "confirm": {
                        "title": {"type": "plain_text", "text": "Sure?"},
                        "text": {"type": "mrkdwn", "text": "Pause Spring"},
                        "confirm": {"type": "plain_text", "text": "Pause"},
                        "deny": {"type": "plain_text", "text": "Cancel"},
                    },
                },
                {"type": "datepicker", "action_id": "day"},
            ],
        },
        {"type": "context", "elements": [{"type": "mrkdwn", "text": "showing 1 of 1"}]},
    ]
    await client.chat_postMessage(channel=CALL_CENTER, text="Spring", blocks=blocks)
    assert slack.invalid_sends() == []


async def test_views_are_checked_too(slack: SlackStandIn, client: AsyncWebClient) -> None:
    trigger = slack.core.state.issue_trigger("T0001", SUPERVISOR)
    long_title = {
        "type": "modal",
        "title": {"type": "plain_text", "text": "A title far longer than allowed"},
        "blocks": [section("x")],
    }
    body = await refused(client.views_open(trigger_id=trigger, view=long_title))
    assert body["error"] == "invalid_blocks"
    too_many = {"type": "home", "blocks": [section(str(i)) for i in range(101)]}
    body = await refused(client.views_publish(user_id=SUPERVISOR, view=too_many))
    assert any("no more than 100" in e for e in body["errors"])
    # a refused view does not spend the trigger
    ok = {
        "type": "modal",
        "title": {"type": "plain_text", "text": "Fine"},
        "blocks": [section("x")],
    }
    assert (await client.views_open(trigger_id=trigger, view=ok))["ok"]
    assert len(slack.invalid_sends()) == 2
