"""Message metadata as Slack documents it, history windows, held answers, and requests
sent again: signed afresh by Slack, byte for byte by someone replaying them."""

from __future__ import annotations

import asyncio

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from emulators.slack import APPROVALS, CALL_CENTER, SUPERVISOR, SlackStandIn
from tests.slack_standin.loopback import Receiver

CARD = {"event_type": "callops_call_card", "event_payload": {"record_id": "cdr-1"}}


async def test_metadata_comes_back_only_when_asked_for(
    slack: SlackStandIn, client: AsyncWebClient
) -> None:
    posted = await client.chat_postMessage(channel=CALL_CENTER, text="card", metadata=CARD)
    plain = await client.conversations_history(channel=CALL_CENTER)
    assert plain["messages"][0]["ts"] == posted["ts"]
    assert "metadata" not in plain["messages"][0]
    full = await client.conversations_history(channel=CALL_CENTER, include_all_metadata=True)
    assert full["messages"][0]["metadata"] == CARD

    reply = await client.chat_postMessage(
        channel=CALL_CENTER, text="reply", thread_ts=posted["ts"], metadata=CARD
    )
    thread = await client.conversations_replies(channel=CALL_CENTER, ts=posted["ts"])
    assert all("metadata" not in m for m in thread["messages"])
    thread = await client.conversations_replies(
        channel=CALL_CENTER, ts=posted["ts"], include_all_metadata=True
    )
    assert [m["ts"] for m in thread["messages"]] == [posted["ts"], reply["ts"]]
    assert thread["messages"][1]["metadata"] == CARD


@pytest.mark.parametrize(
    "metadata",
    [{"event_type": "x"}, {"event_payload": {}}, {"event_type": "", "event_payload": {}}, {}],
)
async def test_malformed_metadata_is_refused(
    client: AsyncWebClient, slack: SlackStandIn, metadata: dict[str, object]
) -> None:
    with pytest.raises(SlackApiError) as caught:
        await client.chat_postMessage(channel=CALL_CENTER, text="x", metadata=metadata)
    assert caught.value.response["error"] == "invalid_metadata_format"
    assert slack.messages(CALL_CENTER) == []


async def test_history_windows_and_pages_newest_first(
    slack: SlackStandIn, client: AsyncWebClient
) -> None:
    stamps = []
    for n in range(5):
        slack.clock.advance(1)
        stamps.append((await client.chat_postMessage(channel=CALL_CENTER, text=f"m{n}"))["ts"])
    since = await client.conversations_history(channel=CALL_CENTER, oldest=stamps[1])
    assert [m["text"] for m in since["messages"]] == ["m4", "m3", "m2"]
    inclusive = await client.conversations_history(
        channel=CALL_CENTER, oldest=stamps[1], latest=stamps[3], inclusive=True
    )
    assert [m["text"] for m in inclusive["messages"]] == ["m3", "m2", "m1"]
    first = await client.conversations_history(channel=CALL_CENTER, limit=2)
    assert [m["text"] for m in first["messages"]] == ["m4", "m3"] and first["has_more"]
    cursor = first["response_metadata"]["next_cursor"]
    rest = await client.conversations_history(channel=CALL_CENTER, limit=10, cursor=cursor)
    assert [m["text"] for m in rest["messages"]] == ["m2", "m1", "m0"] and not rest["has_more"]


async def test_a_held_answer_comes_after_the_message_is_posted(
    slack: SlackStandIn, client: AsyncWebClient
) -> None:
    hold = slack.hold("chat.postMessage")
    posting = asyncio.ensure_future(client.chat_postMessage(channel=APPROVALS, text="held"))
    message = await slack.wait_for_message(APPROVALS, lambda m: m["text"] == "held")
    await slack.wait_for(lambda: hold.held or None)
    assert not posting.done()  # in the channel, but the poster has not heard back
    hold.release()
    answer = await posting
    assert answer["ts"] == message["ts"]
    # Used up: the next post is answered at once.
    await asyncio.wait_for(client.chat_postMessage(channel=APPROVALS, text="next"), 5)


async def test_slack_signs_a_resent_request_afresh_and_a_replay_is_the_same_bytes(
    slack: SlackStandIn, receiver: Receiver
) -> None:
    first = await slack.driver.slash_command(user=SUPERVISOR, channel=CALL_CENTER, text="help")
    again = await slack.driver.resend(first, as_retry=False)
    replayed = await slack.driver.replay(first)
    original, resent, copied = receiver.requests
    assert original.raw == resent.raw == copied.raw
    assert resent.signature_valid and copied.signature_valid
    assert int(resent.headers["X-Slack-Request-Timestamp"]) > int(
        original.headers["X-Slack-Request-Timestamp"]
    )
    assert resent.headers["X-Slack-Signature"] != original.headers["X-Slack-Signature"]
    assert copied.headers["X-Slack-Signature"] == original.headers["X-Slack-Signature"]
    assert again.status == replayed.status == 200
