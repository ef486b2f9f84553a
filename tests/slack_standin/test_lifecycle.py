"""Running modes, the live feed, late acks and reset."""

from __future__ import annotations

import asyncio

import pytest
from aiohttp import web
from slack_sdk.web.async_client import AsyncWebClient

from emulators.slack import AGENT, CALL_CENTER, SUPERVISOR, SlackStandIn, StandInEvent
from tests.slack_standin.loopback import Receiver, serve


def test_background_thread_mode_serves_another_loop() -> None:
    with SlackStandIn() as slack:

        async def scenario() -> None:
            client = AsyncWebClient(token=slack.bot_token(), base_url=slack.api_url)
            await client.chat_postMessage(channel=CALL_CENTER, text="from the test's loop")
            receiver = Receiver(slack.signing_secret)
            async with serve(receiver.app()) as url:
                slack.connect_app(url)
                # the driver runs on the stand-in's loop and posts to an app on this one
                delivery = await slack.driver.slash_command(
                    user=AGENT, channel=CALL_CENTER, text="hi"
                )
                assert delivery.in_time and receiver.requests[0].signature_valid
                await slack.wait_for(lambda: slack.journal("chat.postMessage"))

        asyncio.run(scenario())
        assert [m["text"] for m in slack.messages(CALL_CENTER)] == ["from the test's loop"]


async def test_event_feed_reports_every_change(slack: SlackStandIn, client: AsyncWebClient) -> None:
    kinds: list[str] = []

    def collect(event: StandInEvent) -> None:
        if event.kind != "api.call":
            kinds.append(event.kind)

    unsubscribe = slack.subscribe(collect)
    posted = await client.chat_postMessage(channel=CALL_CENTER, text="a")
    await client.chat_update(channel=CALL_CENTER, ts=posted["ts"], text="b")
    await client.chat_delete(channel=CALL_CENTER, ts=posted["ts"])
    await client.chat_postEphemeral(channel=CALL_CENTER, user=AGENT, text="psst")
    await client.views_publish(
        user_id=AGENT,
        view={"type": "home", "blocks": [{"type": "divider"}]},
    )
    unsubscribe()
    await client.chat_postMessage(channel=CALL_CENTER, text="unheard")
    assert kinds == [
        "message.posted",
        "message.updated",
        "message.deleted",
        "ephemeral.posted",
        "home.published",
    ]


async def test_an_app_that_does_not_ack_in_time_fails_the_command(slack: SlackStandIn) -> None:
    release = asyncio.Event()

    async def stuck(request: web.Request) -> web.Response:
        await release.wait()
        return web.Response()

    app = web.Application()
    app.router.add_post("/slack/events", stuck)
    async with serve(app) as url:
        slack.connect_app(url)
        delivery = await slack.driver.slash_command(
            user=AGENT, channel=CALL_CENTER, text="calls", ack_timeout=0.2
        )
        release.set()
    assert delivery.status == 0 and not delivery.in_time
    [notice] = slack.ephemerals(AGENT)
    assert notice["text"] == '/callops failed with the error "operation_timeout"'


async def test_socket_transport_without_a_connection_is_an_error(slack: SlackStandIn) -> None:
    with pytest.raises(RuntimeError, match="Socket Mode"):
        await slack.driver.slash_command(user=AGENT, channel=CALL_CENTER, transport="socket")


async def test_reset_restores_the_seed_and_keeps_credentials(
    slack: SlackStandIn, client: AsyncWebClient
) -> None:
    token = slack.bot_token()
    slack.add_team("Other Center", id="T0002")
    await client.chat_postMessage(channel=CALL_CENTER, text="before")
    slack.clock.advance(100)
    slack.reset()
    assert slack.messages(CALL_CENTER) == [] and slack.journal() == []
    assert slack.bot_token() == token and slack.clock.offset == 0
    with pytest.raises(LookupError):
        slack.team("T0002")
    assert (await client.auth_test())["user_id"] == slack.team().bot_user_id
    assert slack.user(SUPERVISOR).is_admin


async def test_two_workspaces_are_separate(slack: SlackStandIn) -> None:
    other = slack.add_team("Other Center", id="T0002", domain="other")
    slack.add_user("T0002", "olga", id="U0201", is_admin=True)
    slack.add_channel("T0002", "ops", id="C0201", members=["U0201"])
    theirs = AsyncWebClient(token=slack.bot_token("T0002"), base_url=slack.api_url)
    assert (await theirs.auth_test())["team_id"] == "T0002"
    await theirs.chat_postMessage(channel="#ops", text="hello T0002")
    with pytest.raises(Exception, match="channel_not_found"):
        await theirs.chat_postMessage(channel=CALL_CENTER, text="x")
    with pytest.raises(Exception, match="user_not_found"):
        await theirs.users_info(user=SUPERVISOR)
    assert [m["text"] for m in slack.messages("C0201", team=None)] == ["hello T0002"]
    assert other.bot_user_id != slack.team().bot_user_id
