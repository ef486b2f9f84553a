"""The console's JSON and live-feed API on the Slack stand-in, without a browser."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest

from emulators.slack import (
    AGENT,
    CALL_CENTER,
    DIGESTS,
    SUPERVISOR,
    SampleFile,
    SlackStandIn,
    console_api,
)
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


CSV = b"phone_number,lead_name\n0912345678,An\n"


async def share(
    http: httpx.AsyncClient, user: str, channel: str, name: str, content: bytes, text: str = ""
) -> httpx.Response:
    return await http.post(
        "console/api/file",
        data={"user": user, "channel": channel, "text": text},
        files={"file": (name, content, "text/csv")},
    )


async def test_a_shared_file_is_the_persons_message_as_in_slack(
    slack: SlackStandIn, http: httpx.AsyncClient
) -> None:
    answer = await share(http, AGENT, CALL_CENTER, "june leads.csv", CSV, "for @sofia")
    # callops subscribes to no message events: as in Slack, the app hears nothing now and
    # finds the file in the channel's history when asked to.
    assert answer.status_code == 200 and answer.json()["delivered"] is False
    [message] = slack.messages(CALL_CENTER)
    assert message["user"] == AGENT and message["text"] == "for <@U0001|sofia>"
    [shared] = message["files"]
    assert shared["name"] == "june leads.csv" and shared["filetype"] == "csv"
    assert shared["user"] == AGENT
    _, content = slack.file(shared["id"])
    assert content == CSV
    async with httpx.AsyncClient(base_url=slack.api_url, trust_env=False) as api:
        bot = {"Authorization": f"Bearer {slack.bot_token()}"}
        history = (
            await api.post("conversations.history", data={"channel": CALL_CENTER}, headers=bot)
        ).json()
        info = (await api.post("files.info", data={"file": shared["id"]}, headers=bot)).json()
    assert history["messages"][0]["files"][0]["id"] == shared["id"]
    assert info["file"]["shares"]["public"][CALL_CENTER][0]["ts"] == message["ts"]


async def test_sharing_a_file_that_cannot_be_shared_says_why(
    slack: SlackStandIn, http: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = await http.post("console/api/file", data={"user": AGENT, "channel": CALL_CENTER})
    assert missing.status_code == 400 and "send the file as multipart" in missing.json()["error"]
    no_file = await http.post(
        "console/api/file",
        data={"user": AGENT, "channel": CALL_CENTER},
        files={"other": ("", b"", "text/plain")},
    )
    assert no_file.status_code == 400
    empty = await share(http, AGENT, CALL_CENTER, "empty.csv", b"")
    assert empty.status_code == 400 and "empty" in empty.json()["error"]
    dm = await share(http, AGENT, "app", "leads.csv", CSV)
    assert dm.status_code == 400 and "read-only" in dm.json()["error"]
    monkeypatch.setattr(console_api, "MAX_UPLOAD_BYTES", 10)
    large = await share(http, AGENT, CALL_CENTER, "big.csv", CSV)
    assert large.status_code == 413 and "big.csv" in large.json()["error"]
    assert slack.messages(CALL_CENTER) == []


async def test_samples_are_offered_and_served(slack: SlackStandIn, http: httpx.AsyncClient) -> None:
    slack.set_samples([SampleFile("sample-leads.csv", CSV, "two rows")])
    body = (await http.get("console/api/workspace")).json()
    assert body["samples"] == [
        {
            "name": "sample-leads.csv",
            "summary": "two rows",
            "size": len(CSV),
            "url": "/console/samples/sample-leads.csv",
        }
    ]
    served = await http.get("console/samples/sample-leads.csv")
    assert served.status_code == 200 and served.content == CSV
    assert (await http.get("console/samples/other.csv")).status_code == 404
