"""chat.*, users.*, conversations.* through a real AsyncWebClient, with Slack's errors."""

from __future__ import annotations

import aiohttp
import pytest
from slack_sdk.web.async_client import AsyncWebClient

from emulators.slack import (
    AGENT,
    APPROVALS,
    CALL_CENTER,
    DIGESTS,
    MANAGER,
    SUPERVISOR,
    SlackStandIn,
)
from tests.slack_standin.refusals import error_of

SECTION = [{"type": "section", "text": {"type": "mrkdwn", "text": "*3* campaigns running"}}]


async def test_post_message_is_stored_with_slacks_shape(
    slack: SlackStandIn, client: AsyncWebClient
) -> None:
    answer = await client.chat_postMessage(channel=CALL_CENTER, text="3 running", blocks=SECTION)
    assert answer["ok"] and answer["channel"] == CALL_CENTER
    team = slack.team()
    message = answer["message"]
    assert message["bot_id"] == team.bot_id and message["user"] == team.bot_user_id
    assert message["blocks"][0]["block_id"]  # Slack fills missing block ids
    stored = slack.messages(CALL_CENTER)
    assert [m["ts"] for m in stored] == [answer["ts"]]
    assert stored[0]["text"] == "3 running"
    # by name works as in Slack
    again = await client.chat_postMessage(channel="#call-center", text="again")
    assert float(again["ts"]) > float(answer["ts"])


async def test_threads_keep_replies_out_of_the_channel(
    slack: SlackStandIn, client: AsyncWebClient
) -> None:
    parent = await client.chat_postMessage(channel=APPROVALS, text="Approve start of Spring?")
    reply = await client.chat_postMessage(
        channel=APPROVALS, text="Approved by sofia", thread_ts=parent["ts"]
    )
    assert [m["ts"] for m in slack.messages(APPROVALS)] == [parent["ts"]]
    thread = slack.thread(APPROVALS, parent["ts"])
    assert [m["ts"] for m in thread] == [parent["ts"], reply["ts"]]
    assert thread[0]["reply_count"] == 1
    history = await client.conversations_replies(channel=APPROVALS, ts=parent["ts"])
    assert len(history["messages"]) == 2
    bad = client.chat_postMessage(channel=APPROVALS, text="x", thread_ts="1.000001")
    assert await error_of(bad) == "thread_not_found"


async def test_update_delete_and_permalink(slack: SlackStandIn, client: AsyncWebClient) -> None:
    posted = await client.chat_postMessage(channel=CALL_CENTER, text="Spring: running")
    updated = await client.chat_update(channel=CALL_CENTER, ts=posted["ts"], text="Spring: paused")
    assert updated["message"]["text"] == "Spring: paused"
    assert slack.messages(CALL_CENTER)[0]["edited"]["user"] == slack.team().bot_user_id
    link = await client.chat_getPermalink(channel=CALL_CENTER, message_ts=posted["ts"])
    assert link["permalink"].startswith("https://acme-callcenter.slack.com/archives/C0001/p")
    await client.chat_delete(channel=CALL_CENTER, ts=posted["ts"])
    assert slack.messages(CALL_CENTER) == []
    gone = client.chat_update(channel=CALL_CENTER, ts=posted["ts"], text="x")
    assert await error_of(gone) == "message_not_found"


async def test_cannot_edit_someone_elses_message(
    slack: SlackStandIn, client: AsyncWebClient
) -> None:
    human = await slack.driver.user_message(user=AGENT, channel=DIGESTS, text="hello")
    assert human is None  # the bot is not in #digests: Slack tells the app nothing
    ts = slack.messages(DIGESTS)[0]["ts"]
    assert await error_of(client.chat_update(channel=DIGESTS, ts=ts, text="x")) == (
        "cant_update_message"
    )
    assert await error_of(client.chat_delete(channel=DIGESTS, ts=ts)) == "cant_delete_message"


async def test_error_codes(slack: SlackStandIn, client: AsyncWebClient) -> None:
    assert await error_of(client.chat_postMessage(channel="C9999", text="x")) == (
        "channel_not_found"
    )
    assert await error_of(client.chat_postMessage(channel=DIGESTS, text="x")) == "not_in_channel"
    with pytest.warns(UserWarning, match="text"):
        assert await error_of(client.chat_postMessage(channel=CALL_CENTER)) == "no_text"
    assert await error_of(client.users_info(user="U404")) == "user_not_found"
    unknown = AsyncWebClient(token="xoxb-not-a-token", base_url=slack.api_url)
    assert await error_of(unknown.auth_test()) == "invalid_auth"
    anonymous = AsyncWebClient(base_url=slack.api_url)
    assert await error_of(anonymous.auth_test()) == "not_authed"
    app_level = AsyncWebClient(token=slack.app_token, base_url=slack.api_url)
    assert await error_of(app_level.chat_postMessage(channel=CALL_CENTER, text="x")) == (
        "not_allowed_token_type"
    )
    slack.core.state.revoke_tokens("T0001")
    assert await error_of(client.auth_test()) == "token_revoked"


async def test_private_channel_is_invisible_unless_the_bot_is_in_it(
    slack: SlackStandIn, client: AsyncWebClient
) -> None:
    slack.add_channel(
        "T0001", "secret", id="G0001", members=[SUPERVISOR], bot_member=False, is_private=True
    )
    assert await error_of(client.conversations_info(channel="G0001")) == "channel_not_found"
    slack.set_bot_member("G0001", True)
    info = await client.conversations_info(channel="G0001")
    assert info["channel"]["is_private"] and info["channel"]["is_member"]


async def test_ephemeral_goes_to_one_user(slack: SlackStandIn, client: AsyncWebClient) -> None:
    answer = await client.chat_postEphemeral(channel=CALL_CENTER, user=AGENT, text="only you")
    assert answer["message_ts"]
    assert [e["text"] for e in slack.ephemerals(AGENT)] == ["only you"]
    assert slack.ephemerals(SUPERVISOR) == []
    assert slack.messages(CALL_CENTER) == []
    slack.add_user("T0001", "outsider", id="U0099")
    outsider = client.chat_postEphemeral(channel=CALL_CENTER, user="U0099", text="x")
    assert await error_of(outsider) == "user_not_in_channel"


async def test_users_and_conversations(slack: SlackStandIn, client: AsyncWebClient) -> None:
    boss = (await client.users_info(user=SUPERVISOR))["user"]
    assert boss["is_admin"] is True and boss["tz"] == "Europe/Paris"
    assert boss["profile"]["real_name"] == "Sofia Supervisor"
    assert "locale" not in boss  # only when asked for, as Slack does
    slack.add_user("T0001", "lan", id="U0098", locale="vi-VN", tz="Asia/Ho_Chi_Minh")
    lan = (await client.users_info(user="U0098", include_locale=True))["user"]
    assert (lan["locale"], lan["tz"]) == ("vi-VN", "Asia/Ho_Chi_Minh")
    assert (await client.users_info(user=AGENT, include_locale=True))["user"]["locale"] == "en-US"
    manager = (await client.users_info(user=MANAGER))["user"]
    assert manager["is_admin"] is False and manager["tz"] == "America/New_York"
    assert manager["tz_offset"] in (-4 * 3600, -5 * 3600)
    info = await client.conversations_info(channel=DIGESTS)
    assert info["channel"]["name"] == "digests" and info["channel"]["is_member"] is False
    members = await client.conversations_members(channel=CALL_CENTER)
    assert {SUPERVISOR, AGENT, MANAGER, slack.team().bot_user_id} == set(members["members"])
    dm = await client.conversations_open(users=AGENT)
    await client.chat_postMessage(channel=dm["channel"]["id"], text="psst")
    await client.chat_postMessage(channel=AGENT, text="a user id opens the DM too")
    assert [m["text"] for m in slack.dm(AGENT)] == ["psst", "a user id opens the DM too"]


async def test_form_bodies_and_token_parameter_work_like_slack(slack: SlackStandIn) -> None:
    token = slack.bot_token()
    async with aiohttp.ClientSession() as session:
        form = {"token": token, "channel": CALL_CENTER, "text": "from a form"}
        async with session.post(slack.api_url + "chat.postMessage", data=form) as response:
            assert (await response.json())["ok"] is True
        # JSON bodies must carry the token in the header, as in Slack
        body = {"token": token, "channel": CALL_CENTER, "text": "x"}
        async with session.post(slack.api_url + "chat.postMessage", json=body) as response:
            assert (await response.json())["error"] == "not_authed"
        async with session.post(slack.api_url + "chat.nope", data={"token": token}) as response:
            assert response.status == 404
            assert (await response.json())["error"] == "unknown_method"
    assert [m["text"] for m in slack.messages(CALL_CENTER)] == ["from a form"]


async def test_journal_redacts_tokens(slack: SlackStandIn, client: AsyncWebClient) -> None:
    await client.chat_postMessage(channel=CALL_CENTER, text="hi", token=slack.bot_token())
    entries = slack.journal("chat.postMessage")
    assert len(entries) == 1 and entries[0].ok
    assert slack.bot_token() not in repr(entries)
