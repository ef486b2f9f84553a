"""The console's JSON and live-feed API on the Slack stand-in, without a browser."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest

from emulators.slack import AGENT, CALL_CENTER, DIGESTS, SUPERVISOR, SlackStandIn
from emulators.slack.console_api import escape_mentions, split_command


@pytest.fixture
async def slack() -> AsyncIterator[SlackStandIn]:
    completions = [("campaigns", "campaigns [type]", "List campaigns."), ("help", "help", "")]
    async with SlackStandIn(completions=completions) as stand_in:
        yield stand_in


@pytest.fixture
async def http(slack: SlackStandIn) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=slack.base_url, trust_env=False) as client:
        yield client


def test_mentions_are_escaped_as_slack_does_for_should_escape_commands(
    slack: SlackStandIn,
) -> None:
    typed = "role @alex operator in #digests, not @nobody or mail a@b.example; A&B <x>"
    assert escape_mentions(slack.core, "T0001", typed) == (
        "role <@U0002|alex> operator in <#C0003|digests>, not @nobody or mail a@b.example; "
        "A&amp;B &lt;x&gt;"
    )


def test_split_command() -> None:
    assert split_command("/callops  campaigns autocall ", "/callops") == (
        "/callops",
        "campaigns autocall",
    )
    assert split_command("help", "/callops") == ("/callops", "help")


async def test_workspace_lists_people_channels_and_completions(
    slack: SlackStandIn, http: httpx.AsyncClient
) -> None:
    body = (await http.get("console/api/workspace")).json()
    assert [p["name"] for p in body["people"]] == ["sofia", "alex", "maria"]
    assert [c["name"] for c in body["channels"]] == ["call-center", "approvals", "digests"]
    assert body["command"] == "/callops"
    assert body["completions"][0] == {
        "name": "campaigns",
        "usage": "campaigns [type]",
        "summary": "List campaigns.",
    }
    slack.set_completions([("status", "status", "Show the connection.")])
    again = (await http.get("console/api/workspace")).json()
    assert [c["name"] for c in again["completions"]] == ["status"]


async def test_the_page_and_only_its_own_files_are_served(http: httpx.AsyncClient) -> None:
    page = await http.get("console/")
    assert page.status_code == 200 and "console.js" in page.text
    assert (await http.get("console/static/console.js")).status_code == 200
    assert (await http.get("console/static/..%2Fserver.py")).status_code == 404
    assert (await http.get("console/static/server.py")).status_code == 404


async def test_state_shows_a_persons_own_ephemerals_only(
    slack: SlackStandIn, http: httpx.AsyncClient
) -> None:
    slack.core.state.add_ephemeral(
        "T0001",
        channel_id=CALL_CENTER,
        user_id=SUPERVISOR,
        text="for sofia",
        blocks=None,
        thread_ts=None,
        source="response_url",
    )
    mine = await http.get("console/api/state", params={"user": "sofia", "channel": "C0001"})
    theirs = await http.get("console/api/state", params={"user": AGENT, "channel": "C0001"})
    assert [e["text"] for e in mine.json()["ephemerals"]] == ["for sofia"]
    assert theirs.json()["ephemerals"] == []


async def test_bad_requests_say_what_was_wrong(http: httpx.AsyncClient) -> None:
    unknown = await http.post("console/api/command", json={"user": "U9999", "channel": "C0001"})
    assert unknown.status_code == 400 and "no person" in unknown.json()["error"]
    other = await http.post(
        "console/api/command", json={"user": SUPERVISOR, "channel": "C0001", "text": "/giphy x"}
    )
    assert other.status_code == 400 and "/callops" in other.json()["error"]
    no_app = await http.post(
        "console/api/command", json={"user": SUPERVISOR, "channel": "C0001", "text": "help"}
    )
    assert no_app.status_code == 503, "no app connected yet: the console says so"
    gone = await http.post("console/api/submit", json={"user": SUPERVISOR, "view_id": "V404"})
    assert gone.status_code == 400 and "not open" in gone.json()["error"]


async def test_live_feed_reports_changes(slack: SlackStandIn, http: httpx.AsyncClient) -> None:
    async with http.stream("GET", "console/api/events") as stream:
        lines = stream.aiter_lines()
        assert (await anext(lines)).startswith(": connected")
        await slack.driver.user_message(user=AGENT, channel=DIGESTS, text="hello")

        async def next_event() -> dict[str, object]:
            async for line in lines:
                if line.startswith("data: "):
                    event: dict[str, object] = json.loads(line[6:])
                    return event
            raise AssertionError("the feed ended")

        event = await asyncio.wait_for(next_event(), 5)
        assert event["kind"] == "message.posted" and event["channel"] == DIGESTS
        assert "hello" not in json.dumps(event), "the feed carries no message bodies"


async def test_the_apps_messages_tab_is_read_only(
    slack: SlackStandIn, http: httpx.AsyncClient
) -> None:
    state = (await http.get("console/api/state", params={"user": AGENT, "channel": "app"})).json()
    assert state["channel"]["is_im"] is True and state["messages"] == []
    typed = await http.post(
        "console/api/message", json={"user": AGENT, "channel": "app", "text": "hi"}
    )
    assert typed.status_code == 400 and "read-only" in typed.json()["error"]
    assert slack.dm(AGENT) == []
