"""Socket Mode: slack_sdk's aiohttp SocketModeClient and Bolt's handler, against the stand-in."""

from __future__ import annotations

from slack_bolt.adapter.socket_mode.aiohttp import AsyncSocketModeHandler
from slack_sdk.socket_mode.aiohttp import SocketModeClient
from slack_sdk.socket_mode.request import SocketModeRequest
from slack_sdk.socket_mode.response import SocketModeResponse
from slack_sdk.web.async_client import AsyncWebClient

from emulators.slack import AGENT, CALL_CENTER, SUPERVISOR, SlackStandIn
from tests.slack_standin.bolt_app import build_bolt_app


async def test_sdk_client_receives_and_acks_a_slash_command(slack: SlackStandIn) -> None:
    received: list[SocketModeRequest] = []

    async def on_request(client: SocketModeClient, request: SocketModeRequest) -> None:
        received.append(request)
        reply = SocketModeResponse(envelope_id=request.envelope_id, payload={"text": "On it"})
        await client.send_socket_mode_response(reply)

    client = SocketModeClient(
        app_token=slack.app_token, web_client=AsyncWebClient(base_url=slack.api_url)
    )
    client.socket_mode_request_listeners.append(on_request)  # type: ignore[arg-type]
    await client.connect()  # type: ignore[no-untyped-call]
    try:
        await slack.wait_for(lambda: slack.hub.connected)
        delivery = await slack.driver.slash_command(user=AGENT, channel=CALL_CENTER, text="calls")
    finally:
        await client.close()  # type: ignore[no-untyped-call]
    assert delivery.transport == "socket" and delivery.in_time
    assert delivery.json() == {"text": "On it"}
    [request] = received
    assert request.type == "slash_commands" and request.accepts_response_payload
    assert request.payload["text"] == "calls" and request.payload["user_id"] == AGENT
    assert [e["text"] for e in slack.ephemerals(AGENT)] == ["On it"]
    assert slack.hub.received[0]["envelope_id"] == request.envelope_id


async def test_connections_open_needs_the_app_level_token(slack: SlackStandIn) -> None:
    bot = AsyncWebClient(token=slack.bot_token(), base_url=slack.api_url)
    try:
        await bot.apps_connections_open(app_token=slack.bot_token())
    except Exception as exc:  # SlackApiError
        assert "not_allowed_token_type" in str(exc)
    else:
        raise AssertionError("a bot token must not open Socket Mode")
    opened = await bot.apps_connections_open(app_token=slack.app_token)
    assert opened["url"].startswith(slack.base_url.replace("http://", "ws://") + "socket?")


async def test_bolt_over_socket_mode(slack: SlackStandIn) -> None:
    seen: list[str] = []
    handler = AsyncSocketModeHandler(build_bolt_app(slack, seen), slack.app_token)
    await handler.connect_async()  # type: ignore[no-untyped-call]
    try:
        await slack.wait_for(lambda: slack.hub.connected)
        command = await slack.driver.slash_command(
            user=SUPERVISOR, channel=CALL_CENTER, text="campaign spring"
        )
        card = await slack.wait_for_message(CALL_CENTER, lambda m: "running" in m["text"])
        click = await slack.driver.block_action(
            user=SUPERVISOR, channel=CALL_CENTER, ts=card["ts"], action_id="pause"
        )
        await slack.wait_for_message(CALL_CENTER, lambda m: "paused" in m["text"])
        event = await slack.driver.app_home_opened(AGENT)
        await slack.wait_for(lambda: slack.home(AGENT))
    finally:
        await handler.close_async()  # type: ignore[no-untyped-call]
    assert {command.transport, click.transport, event.transport} == {"socket"}
    assert command.in_time and click.in_time and event.in_time
    assert seen == ["command:campaign spring", "action:spring", "event:app_home_opened"]
