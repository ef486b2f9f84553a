"""The stand-in drives a real Bolt app over HTTP exactly as Slack would."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import aiohttp
import pytest

from emulators.slack import AGENT, CALL_CENTER, SUPERVISOR, SlackStandIn
from emulators.slack.driver import post, request_headers
from tests.slack_standin.bolt_app import build_bolt_app
from tests.slack_standin.loopback import serve


@pytest.fixture
async def seen(slack: SlackStandIn) -> AsyncIterator[list[str]]:
    log: list[str] = []
    async with serve(build_bolt_app(slack, log).web_app()) as url:
        slack.connect_app(url)
        yield log


async def test_command_then_click(slack: SlackStandIn, seen: list[str]) -> None:
    command = await slack.driver.slash_command(
        user=SUPERVISOR, channel=CALL_CENTER, text="campaign spring"
    )
    assert command.in_time
    card = await slack.wait_for_message(CALL_CENTER, lambda m: "running" in m["text"])
    assert card["blocks"][1]["elements"][0]["action_id"] == "pause"
    click = await slack.driver.block_action(
        user=SUPERVISOR, channel=CALL_CENTER, ts=card["ts"], action_id="pause"
    )
    assert click.in_time
    paused = await slack.wait_for_message(CALL_CENTER, lambda m: "paused" in m["text"])
    assert paused["ts"] == card["ts"] and paused["text"] == f"Spring paused by <@{SUPERVISOR}>"
    assert seen == ["command:campaign spring", "action:spring"]
    assert slack.invalid_sends() == []


async def test_ack_body_is_shown_to_the_user(slack: SlackStandIn, seen: list[str]) -> None:
    await slack.driver.slash_command(user=AGENT, channel=CALL_CENTER, text="quick")
    assert [e["text"] for e in slack.ephemerals(AGENT)] == ["Quick answer in the ack"]


async def test_modal_submission_errors_then_success(slack: SlackStandIn, seen: list[str]) -> None:
    await slack.driver.slash_command(user=SUPERVISOR, channel=CALL_CENTER, text="connect")
    [modal] = await slack.wait_for(lambda: slack.views(SUPERVISOR))
    await slack.driver.view_submission(modal["id"], {"base_url": "ftp://nope"})
    assert slack.view_errors(modal["id"]) == {"base_url": "Must start with http"}
    assert len(slack.views(SUPERVISOR)) == 1
    await slack.driver.view_submission(modal["id"], {"base_url": "http://127.0.0.1:8900"})
    assert slack.views(SUPERVISOR) == []
    await slack.wait_for_message(CALL_CENTER, lambda m: m["text"].startswith("Connected"))
    assert seen[-2:] == ["view:ftp://nope", "view:http://127.0.0.1:8900"]


async def test_view_closed_is_sent_when_asked_for(slack: SlackStandIn, seen: list[str]) -> None:
    await slack.driver.slash_command(user=SUPERVISOR, channel=CALL_CENTER, text="connect")
    [modal] = await slack.wait_for(lambda: slack.views(SUPERVISOR))
    closed = await slack.driver.view_closed(modal["id"])
    assert closed is not None and closed.in_time
    assert slack.views(SUPERVISOR) == [] and seen[-1] == "view_closed"


async def test_events_reach_bolt(slack: SlackStandIn, seen: list[str]) -> None:
    opened = await slack.driver.app_home_opened(AGENT)
    assert opened.in_time
    home = await slack.wait_for(lambda: slack.home(AGENT))
    assert home["blocks"][0]["text"]["text"] == "Wallboard"
    csv = b"phone\n+331\n+332\n+333\n"
    shared = await slack.driver.file_share(
        user=SUPERVISOR, channel=CALL_CENTER, name="leads.csv", content=csv
    )
    assert shared is not None and shared.in_time
    [upload] = slack.messages(CALL_CENTER)
    replies = await slack.wait_for(lambda: slack.thread(CALL_CENTER, upload["ts"])[1:])
    assert replies[0]["text"] == "3 leads read"
    assert "file:3" in seen


@pytest.mark.parametrize("forgery", [{"bad_signature": True}, {"timestamp_skew": 6 * 60}])
async def test_bolt_refuses_unsigned_or_stale_requests(
    slack: SlackStandIn, seen: list[str], forgery: dict[str, object]
) -> None:
    command = await slack.driver.slash_command(
        user=SUPERVISOR,
        channel=CALL_CENTER,
        text="campaign spring",
        **forgery,  # type: ignore[arg-type]
    )
    click_target = await slack.driver.event(
        {"type": "app_home_opened", "user": AGENT, "channel": "D1", "tab": "home"},
        **forgery,  # type: ignore[arg-type]
    )
    assert (command.status, click_target.status) == (401, 401)
    assert seen == [] and slack.messages(CALL_CENTER) == [] and slack.home(AGENT) is None


async def test_a_command_sent_by_another_sender_is_what_slash_command_sends(
    slack: SlackStandIn, seen: list[str]
) -> None:
    # What a benchmark's sender in a process of its own does: the stand-in builds the
    # command, the sender signs and posts it, the stand-in applies the ack.
    quick = await slack.driver.prepare_slash_command(user=AGENT, channel=CALL_CENTER, text="quick")
    later = await slack.driver.prepare_slash_command(user=SUPERVISOR, channel=CALL_CENTER)
    url = slack.driver.request_url
    assert url is not None and quick.status == 0 and slack.ephemerals(AGENT) == []
    async with aiohttp.ClientSession() as session:
        for delivery in (quick, later):
            headers = request_headers(slack.signing_secret, delivery, timestamp=int(time.time()))
            await post(session, url, delivery, headers, 10.0)
            await slack.driver.settle_slash_command(delivery)
    assert quick.in_time and later.in_time and seen == ["command:quick", "command:"]
    assert [e["text"] for e in slack.ephemerals(AGENT)] == ["Quick answer in the ack"]
    # The answer through the command's response_url reaches the stand-in.
    await slack.wait_for_message(CALL_CENTER, lambda m: m["text"] == "Spring is running")
    assert slack.driver.history[-2:] == [quick, later]


async def test_a_command_sent_by_another_sender_and_never_acked_fails(
    slack: SlackStandIn, seen: list[str]
) -> None:
    delivery = await slack.driver.prepare_slash_command(user=AGENT, channel=CALL_CENTER)
    headers = request_headers(slack.signing_secret, delivery, timestamp=int(time.time()))
    async with aiohttp.ClientSession() as session:
        await post(session, "http://127.0.0.1:9/slack/events", delivery, headers, 2.0)
    await slack.driver.settle_slash_command(delivery)
    assert delivery.status == 0 and not delivery.in_time and seen == []
    [notice] = slack.ephemerals(AGENT)
    assert notice["text"] == '/callops failed with the error "operation_timeout"'
