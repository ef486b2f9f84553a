"""``callops socket``: the same app over Socket Mode.  The stand-in's ``apps.connections.open``
hands out its own WebSocket, sends ``hello``, pushes the slash command as an envelope and
waits for the ack by ``envelope_id``; the reply must be the one HTTP gets."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic import SecretStr

from bot.drain import Drain
from bot.runtime import Runtime
from bot.server import socket_mode
from bot.settings import Settings
from emulators.pbx.testing import EmulatorServer
from emulators.slack import CALL_CENTER, SUPERVISOR, SlackStandIn
from tests.bot.test_commands_e2e import shown


@pytest.fixture
async def socket_app(settings: Settings, slack: SlackStandIn, app: Runtime) -> AsyncIterator[None]:
    """A second process's worth of app on the same database, connected over Socket Mode
    only (no signing secret: nothing reaches it over HTTP)."""
    socket_settings = settings.model_copy(
        update={"slack_app_token": SecretStr(slack.app_token), "slack_signing_secret": None}
    )
    rt = Runtime.open(socket_settings)
    try:
        async with socket_mode(rt):
            await slack.wait_for(lambda: slack.hub.connected)
            yield
    finally:
        rt.storage.close()


def without_ids(message: dict[str, Any]) -> Any:
    """What the user sees, minus the ids Slack assigns (ts, generated block ids)."""

    def strip(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k != "block_id"}
        if isinstance(node, list):
            return [strip(v) for v in node]
        return node

    return {"text": message.get("text"), "blocks": strip(message.get("blocks"))}


async def reply_over(slack: SlackStandIn, transport: str, text: str) -> dict[str, Any]:
    before = len(slack.ephemerals(SUPERVISOR))
    delivery = await slack.driver.slash_command(
        user=SUPERVISOR,
        channel=CALL_CENTER,
        text=text,
        transport="socket" if transport == "socket" else "http",
    )
    assert delivery.transport == transport
    assert delivery.in_time, f"{transport}: ack after {delivery.ack_seconds:.2f}s"
    return await slack.wait_for(
        lambda: (
            slack.ephemerals(SUPERVISOR)[before]
            if len(slack.ephemerals(SUPERVISOR)) > before
            else None
        )
    )


async def test_campaigns_over_socket_mode_match_http(socket_app: None, slack: SlackStandIn) -> None:
    over_socket = await reply_over(slack, "socket", "campaigns")
    over_http = await reply_over(slack, "http", "campaigns")
    assert "Campaigns" in shown(over_socket)
    assert without_ids(over_socket) == without_ids(over_http)
    acks = [m for m in slack.hub.received if "envelope_id" in m]
    assert acks, "the app acknowledged the envelope by its id"


async def test_a_stopping_socket_process_answers_its_work_before_it_disconnects(
    settings: Settings, slack: SlackStandIn, app: Runtime, pbx: EmulatorServer
) -> None:
    """SIGTERM to ``callops socket`` (a drain begun): commands acknowledged over the
    connection are answered first, and only then does the connection close."""
    socket_settings = settings.model_copy(
        update={"slack_app_token": SecretStr(slack.app_token), "slack_signing_secret": None}
    )
    rt = Runtime.open(socket_settings)
    drain = Drain(settings.callops_drain_seconds)
    pbx.set_faults(latency_ms=1500)  # the command's work takes a while after its ack
    before = len(slack.ephemerals(SUPERVISOR))
    answered_at_close: list[int] = []

    async def watch() -> None:
        await slack.wait_for(lambda: not slack.hub.connected, within=30)
        answered_at_close.append(len(slack.ephemerals(SUPERVISOR)) - before)

    try:
        async with socket_mode(rt, drain=drain):
            await slack.wait_for(lambda: slack.hub.connected)
            watcher = asyncio.create_task(watch())
            sent = await asyncio.gather(
                *(
                    slack.driver.slash_command(
                        user=SUPERVISOR, channel=CALL_CENTER, text="campaigns", transport="socket"
                    )
                    for _ in range(3)
                )
            )
            assert all(d.in_time for d in sent)
            drain.begin("SIGTERM")
        await watcher
    finally:
        pbx.set_faults(latency_ms=0)
        rt.storage.close()
    assert answered_at_close == [3]
