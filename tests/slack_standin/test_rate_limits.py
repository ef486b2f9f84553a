"""HTTP 429 on demand, handled by slack_sdk's own retry handler, and the channel pace."""

from __future__ import annotations

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import AsyncRateLimitErrorRetryHandler
from slack_sdk.web.async_client import AsyncWebClient

from emulators.slack import APPROVALS, CALL_CENTER, SlackStandIn


async def test_injected_429_carries_retry_after(
    slack: SlackStandIn, client: AsyncWebClient
) -> None:
    slack.ratelimit("chat.postMessage", times=1, retry_after=7)
    with pytest.raises(SlackApiError) as caught:
        await client.chat_postMessage(channel=CALL_CENTER, text="x")
    assert caught.value.response.status_code == 429
    assert caught.value.response["error"] == "ratelimited"
    assert caught.value.response.headers["Retry-After"] == "7"
    assert (await client.chat_postMessage(channel=CALL_CENTER, text="x"))["ok"]


async def test_sdk_retry_handler_waits_and_succeeds(slack: SlackStandIn) -> None:
    retrying = AsyncWebClient(
        token=slack.bot_token(),
        base_url=slack.api_url,
        retry_handlers=[AsyncRateLimitErrorRetryHandler(max_retry_count=2)],
    )
    slack.ratelimit("chat.postMessage", times=1, retry_after=1)
    answer = await retrying.chat_postMessage(channel=CALL_CENTER, text="eventually")
    assert answer["ok"]
    assert [e.status for e in slack.journal("chat.postMessage")] == [429, 200]
    assert [m["text"] for m in slack.messages(CALL_CENTER)] == ["eventually"]


async def test_channel_pace_is_per_channel_and_off_by_default(
    slack: SlackStandIn, client: AsyncWebClient
) -> None:
    for _ in range(5):
        await client.chat_postMessage(channel=CALL_CENTER, text="burst")
    slack.channel_pace(True, per_second=1.0, burst=2)
    await client.chat_postMessage(channel=CALL_CENTER, text="1")
    await client.chat_postMessage(channel=CALL_CENTER, text="2")
    with pytest.raises(SlackApiError) as caught:
        await client.chat_postMessage(channel=CALL_CENTER, text="3")
    assert caught.value.response.status_code == 429
    assert int(caught.value.response.headers["Retry-After"]) >= 1
    await client.chat_postMessage(channel=APPROVALS, text="other channel is fine")
    slack.clock.advance(1.0)
    assert (await client.chat_postMessage(channel=CALL_CENTER, text="3"))["ok"]


async def test_channel_pace_counts_edits_with_posts_when_asked(
    slack: SlackStandIn, client: AsyncWebClient
) -> None:
    posted = await client.chat_postMessage(channel=CALL_CENTER, text="0 calls")
    for n in (1, 2, 3):  # edits are not paced by default
        await client.chat_update(channel=CALL_CENTER, ts=posted["ts"], text=f"{n} calls")
    slack.channel_pace(True, per_second=1.0, burst=1, updates=True)
    await client.chat_update(channel=CALL_CENTER, ts=posted["ts"], text="4 calls")
    with pytest.raises(SlackApiError) as caught:
        await client.chat_postMessage(channel=CALL_CENTER, text="too soon")
    assert caught.value.response.status_code == 429
    with pytest.raises(SlackApiError) as caught:
        await client.chat_update(channel=CALL_CENTER, ts=posted["ts"], text="too soon")
    assert caught.value.response.status_code == 429
    slack.clock.advance(1.0)
    assert (await client.chat_update(channel=CALL_CENTER, ts=posted["ts"], text="5 calls"))["ok"]
    assert [m["text"] for m in slack.messages(CALL_CENTER)] == ["5 calls"]


async def test_an_edit_replaces_the_metadata_it_is_given(
    slack: SlackStandIn, client: AsyncWebClient
) -> None:
    first = {"event_type": "calls", "event_payload": {"ids": ["a"]}}
    posted = await client.chat_postMessage(channel=CALL_CENTER, text="a", metadata=first)
    await client.chat_update(channel=CALL_CENTER, ts=posted["ts"], text="a, b")
    [kept] = slack.messages(CALL_CENTER)
    assert kept["metadata"] == first
    second = {"event_type": "calls", "event_payload": {"ids": ["a", "b"]}}
    await client.chat_update(channel=CALL_CENTER, ts=posted["ts"], text="a, b", metadata=second)
    history = await client.conversations_history(channel=CALL_CENTER, include_all_metadata=True)
    assert [m["metadata"] for m in history["messages"]] == [second]
