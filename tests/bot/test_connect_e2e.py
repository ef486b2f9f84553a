"""Connecting a workspace end to end: ``/callops connect`` opens the form, the key is checked
with the service before it is saved, ``status`` names the domain (never the key), and
``disconnect`` asks first.  Admin-only, enforced on the server even for forged requests."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import pytest

from bot.runtime import Runtime
from bot.server import serving
from bot.settings import Settings
from callcenter import CallCenter
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from tests.bot.test_commands_e2e import ask, shown

WRONG_KEY = "not-the-key-0000"


@pytest.fixture
async def unconnected(settings: Settings, slack: SlackStandIn) -> AsyncIterator[Runtime]:
    """The app served as installed but before any admin connected it to a service."""
    rt = Runtime.open(settings)
    async with serving(rt, port=0) as url:
        slack.connect_app(url + "/slack/events")
        yield rt
    rt.storage.close()
    assert slack.invalid_sends() == [], "the app sent Block Kit that Slack would reject"


def closed_port_url() -> str:
    """A loopback address nobody listens on (the port was free a moment ago)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def top_view(slack: SlackStandIn, user: str) -> dict[str, Any] | None:
    """The modal on top of the user's stack, if one is open."""
    stack = slack.views(user)
    return stack[-1] if stack else None


async def open_connect_form(slack: SlackStandIn, user: str = SUPERVISOR) -> dict[str, Any]:
    delivery = await slack.driver.slash_command(user=user, channel=CALL_CENTER, text="connect")
    assert delivery.in_time
    view = await slack.wait_for(lambda: top_view(slack, user))
    assert view["callback_id"] == "connect_workspace"
    return view


def everything_slack_saw(slack: SlackStandIn) -> str:
    """Every call the app made to Slack and everything shown to anyone there."""
    seen: list[Any] = [(e.params, e.response) for e in slack.journal()]
    for user in (SUPERVISOR, AGENT):
        seen += [slack.ephemerals(user), slack.home(user)]
    seen.append(slack.messages(CALL_CENTER))
    return json.dumps(seen, ensure_ascii=False)


async def test_admin_connects_after_a_wrong_key_and_an_unreachable_url(
    unconnected: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    view = await open_connect_form(slack)

    wrong = await slack.driver.view_submission(
        view["id"], {"base_url": pbx.base_url, "api_key": WRONG_KEY}
    )
    assert wrong.in_time
    errors = slack.view_errors(view["id"])
    # In callops' words: what the other side answered is never shown.
    assert errors["api_key"] == "The call-center service refused this API key.", errors
    assert unconnected.storage.workspaces.api_key(TEAM) is None

    nowhere = await slack.driver.view_submission(
        view["id"], {"base_url": closed_port_url(), "api_key": pbx.api_key}
    )
    assert nowhere.in_time
    errors = slack.view_errors(view["id"])
    assert "callops could not reach 127.0.0.1" in errors["base_url"], errors
    assert unconnected.storage.workspaces.api_key(TEAM) is None

    right = await slack.driver.view_submission(
        view["id"], {"base_url": pbx.base_url, "api_key": pbx.api_key}
    )
    assert right.in_time
    assert slack.views(SUPERVISOR) == []  # the form closed
    assert unconnected.storage.workspaces.api_key(TEAM) == pbx.api_key
    confirmed = await slack.wait_for_ephemeral(SUPERVISOR, lambda m: "Connected to" in shown(m))
    assert pbx.base_url in shown(confirmed)

    status = await ask(slack, "status")
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        token = await cc.auth.verify()
        assert token.domain_uuid and token.user_id
        service_user = await cc.users.get(token.user_id)
    assert token.domain_uuid in shown(status)
    assert service_user.username in shown(status)
    assert "never shown" in shown(status)

    assert pbx.api_key not in everything_slack_saw(slack)
    audit = unconnected.storage.audit.entries(TEAM)
    assert pbx.api_key not in json.dumps([e.as_export() for e in audit])
    connects = [(e.user_id, e.outcome) for e in audit if e.action == "workspace.connect"]
    assert connects == [(SUPERVISOR, "refused"), (SUPERVISOR, "refused"), (SUPERVISOR, "ok")]


async def test_viewer_can_neither_open_nor_submit_the_form(
    unconnected: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    reply = await ask(slack, "connect", user=AGENT)
    assert "needs the admin role" in shown(reply)
    assert slack.views(AGENT) == []

    # A forged submission: the admin's form, sent back as if the viewer pressed Submit.
    view = await open_connect_form(slack)
    forged = await slack.driver.view_submission(
        view["id"], {"base_url": pbx.base_url, "api_key": pbx.api_key}, user=AGENT
    )
    assert forged.in_time
    assert "needs the admin role" in slack.view_errors(view["id"])["base_url"]
    assert unconnected.storage.workspaces.api_key(TEAM) is None
    refused = [e for e in unconnected.storage.audit.entries(TEAM) if e.user_id == AGENT]
    assert [(e.action, e.outcome) for e in refused] == [("workspace.connect", "refused")]


async def test_disconnect_asks_first_then_forgets_the_key(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    question = await ask(slack, "disconnect")
    assert "Disconnect this workspace?" in shown(question)
    button = next(
        e
        for block in question["blocks"]
        for e in block.get("elements", [])
        if e.get("action_id") == "workspace_disconnect"
    )
    assert button["confirm"]["confirm"]["text"] == "Disconnect"  # Slack asks once more
    assert app.storage.workspaces.api_key(TEAM) == pbx.api_key  # asking changes nothing

    # A viewer's forged click on the admin's button is refused.
    await slack.driver.block_action(
        user=AGENT, action_id="workspace_disconnect", ephemeral_ts=question["ts"]
    )
    await slack.wait_for_ephemeral(AGENT, lambda m: "needs the admin role" in shown(m))
    assert app.storage.workspaces.api_key(TEAM) == pbx.api_key

    await slack.driver.block_action(
        user=SUPERVISOR, action_id="workspace_disconnect", ephemeral_ts=question["ts"]
    )
    await slack.wait_for_ephemeral(SUPERVISOR, lambda m: "disconnected this workspace" in shown(m))
    assert app.storage.workspaces.api_key(TEAM) is None

    reply = await ask(slack, "campaigns")
    assert "not connected" in shown(reply) and "/callops connect" in shown(reply)
    reply = await ask(slack, "status")
    assert "not connected" in shown(reply)

    actions = [(e.user_id, e.action, e.outcome) for e in app.storage.audit.entries(TEAM)]
    assert (AGENT, "workspace.disconnect", "refused") in actions
    assert (SUPERVISOR, "workspace.disconnect", "ok") in actions
