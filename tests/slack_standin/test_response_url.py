"""response_url semantics, driven the way an app would: POSTs with slack_sdk's webhook client."""

from __future__ import annotations

from typing import Any

from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook.async_client import AsyncWebhookClient

from emulators.slack import AGENT, CALL_CENTER, DIGESTS, SUPERVISOR, SlackStandIn
from tests.slack_standin.bolt_app import CARD
from tests.slack_standin.loopback import Receiver

BUTTON = CARD[1:]
"""The card's Pause button, alone."""


async def post(url: str, **body: Any) -> tuple[int, str]:
    response = await AsyncWebhookClient(url).send_dict(body)
    return response.status_code, response.body


async def test_slash_command_replies(slack: SlackStandIn, receiver: Receiver) -> None:
    delivery = await slack.driver.slash_command(user=AGENT, channel=DIGESTS, text="status")
    assert delivery.in_time and delivery.response_url
    url = delivery.response_url
    assert await post(url, text="Only you can see this") == (200, '{"ok": true}')
    assert [e["text"] for e in slack.ephemerals(AGENT)] == ["Only you can see this"]
    # in_channel posts as the bot even where the bot is not a member
    status, _ = await post(url, response_type="in_channel", text="For everyone")
    assert status == 200
    [message] = slack.messages(DIGESTS)
    assert message["bot_id"] == slack.team().bot_id
    await post(url, replace_original=True, text="For everyone, corrected")
    assert [m["text"] for m in slack.messages(DIGESTS)] == ["For everyone, corrected"]
    await post(url, delete_original=True)
    assert slack.messages(DIGESTS) == []
    # five uses only
    assert (await post(url, text="fifth"))[0] == 200
    assert await post(url, text="sixth") == (404, '{"ok": false, "error": "used_url"}')


async def test_response_url_expires_after_thirty_minutes(
    slack: SlackStandIn, receiver: Receiver
) -> None:
    delivery = await slack.driver.slash_command(user=AGENT, channel=CALL_CENTER, text="x")
    assert delivery.response_url
    slack.clock.advance(30 * 60 + 1)
    status, body = await post(delivery.response_url, text="late")
    assert status == 404 and "expired_url" in body


async def test_button_click_replaces_and_deletes_its_message(
    slack: SlackStandIn, client: AsyncWebClient, receiver: Receiver
) -> None:
    posted = await client.chat_postMessage(channel=CALL_CENTER, text="Spring", blocks=BUTTON)
    click = await slack.driver.block_action(
        user=SUPERVISOR, channel=CALL_CENTER, ts=posted["ts"], action_id="pause"
    )
    assert click.response_url
    await post(click.response_url, replace_original=True, text="Spring paused by sofia")
    [message] = slack.messages(CALL_CENTER)
    assert message["ts"] == posted["ts"] and message["text"] == "Spring paused by sofia"
    assert "blocks" not in message and "edited" in message
    await post(click.response_url, delete_original=True)
    assert slack.messages(CALL_CENTER) == []


async def test_ephemeral_button_replaces_the_ephemeral(
    slack: SlackStandIn, client: AsyncWebClient, receiver: Receiver
) -> None:
    answer = await client.chat_postEphemeral(
        channel=CALL_CENTER, user=AGENT, text="Which campaign?", blocks=BUTTON
    )
    click = await slack.driver.block_action(
        user=AGENT, ephemeral_ts=answer["message_ts"], action_id="pause"
    )
    assert receiver.requests[-1].body["container"]["is_ephemeral"] is True
    assert click.response_url
    await post(click.response_url, replace_original=True, text="Paused Spring")
    assert [e["text"] for e in slack.ephemerals(AGENT)] == ["Paused Spring"]


async def test_invalid_blocks_on_a_response_url(slack: SlackStandIn, receiver: Receiver) -> None:
    delivery = await slack.driver.slash_command(user=AGENT, channel=CALL_CENTER, text="x")
    assert delivery.response_url
    status, body = await post(delivery.response_url, blocks=[{"type": "nope"}], text="x")
    assert status == 400 and "invalid_blocks" in body
    assert slack.ephemerals(AGENT) == []
    assert [e.kind for e in slack.invalid_sends()] == ["response_url"]
