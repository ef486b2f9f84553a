"""The stand-in flags a ``<`` in mrkdwn that starts none of Slack's control sequences, on
every surface an app writes to (messages, ephemerals, updates, response_url replies,
slash-command acks, modals, App Home), and leaves Slack's own sequences and plain text
alone.  These tests send stray markup on purpose, so they opt out of the suite-wide check
(``tests/conftest.py``) and assert the findings themselves."""

from __future__ import annotations

from typing import Any

import pytest
from aiohttp import web
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from emulators.slack import AGENT, CALL_CENTER, SUPERVISOR, SlackStandIn
from emulators.slack.mrkdwn import AUDIT, stray_controls
from tests.slack_standin.loopback import Receiver

MEANT = (
    "Paused by <@U0002> in <#C0001|call-center> <!here> <!subteam^S123|@leads> "
    "<https://example.com/a?b=1|the docs> <mailto:ops@example.com|mail us> "
    "<!date^1392734382^{date_short}|Feb 18, 2014> &lt;command&gt; a &amp; b"
)


def section(text: str) -> list[dict[str, Any]]:
    return [{"type": "section", "text": {"type": "mrkdwn", "text": text}}]


def test_slacks_own_sequences_and_escaped_text_are_meant() -> None:
    assert stray_controls(MEANT) == []


@pytest.mark.parametrize(
    "text",
    [
        "/callops help <command>",
        "a < b",
        "<javascript:alert(1)|x>",
        "<@U0002",
        "<#general>",
        "<https://example.com|a <b> label>",
    ],
)
def test_anything_else_is_stray(text: str) -> None:
    assert stray_controls(text), text


@pytest.mark.stray_markup
async def test_every_surface_is_scanned(slack: SlackStandIn, receiver: Receiver) -> None:
    client = AsyncWebClient(token=slack.bot_token(), base_url=slack.api_url)
    before = AUDIT.scanned
    mark = AUDIT.mark()
    await client.chat_postMessage(channel=CALL_CENTER, text=MEANT, blocks=section(MEANT))
    posted = await client.chat_postMessage(channel=CALL_CENTER, text="run <name>")
    await client.chat_update(
        channel=posted["channel"], ts=posted["ts"], text="b", blocks=section("<b>")
    )
    await client.chat_postEphemeral(channel=CALL_CENTER, user=AGENT, text="use <campaign>")
    home = {
        "type": "home",
        "blocks": [
            {"type": "context", "elements": [{"type": "mrkdwn", "text": "<home>"}]},
            {"type": "header", "text": {"type": "plain_text", "text": "Plain <is> fine"}},
        ],
    }
    await client.views_publish(user_id=SUPERVISOR, view=home)
    trigger = slack.core.state.issue_trigger("T0001", SUPERVISOR)
    modal = {
        "type": "modal",
        "title": {"type": "plain_text", "text": "Form"},
        "blocks": section("fields: <modal>"),
    }
    await client.views_open(trigger_id=trigger, view=modal)
    receiver.answer = lambda body: web.json_response({"text": "ack <reply>"})
    delivery = await slack.driver.slash_command(user=AGENT, channel=CALL_CENTER, text="x")
    assert delivery.response_url
    await AsyncWebhookClient(delivery.response_url).send_dict({"text": "later <reply>"})

    found = AUDIT.since(mark)
    assert [f.split(":", 1)[0] for f in found] == [
        "api chat.postMessage",
        "api chat.update",
        "api chat.postEphemeral",
        "api views.publish",
        "api views.open",
        "ack slash_command",
        f"response_url {delivery.response_url.rsplit('/', 1)[-1]}",
    ]
    assert "[json-pointer:/blocks/0/text/text]" in found[1]
    assert "[json-pointer:/view/blocks/0/elements/0/text]" in found[3]
    assert AUDIT.scanned - before >= 9
    assert len(slack.stray_markup()) == len(found)
    assert slack.invalid_sends() == [], "stray markup is no Block Kit error: Slack accepts it"


async def test_a_message_with_mrkdwn_off_is_not_read_for_controls(slack: SlackStandIn) -> None:
    client = AsyncWebClient(token=slack.bot_token(), base_url=slack.api_url)
    await client.chat_postMessage(channel=CALL_CENTER, text="a <b> c", mrkdwn=False)
    assert slack.stray_markup() == []
