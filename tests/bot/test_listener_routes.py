"""Every button and form a family declares is registered with Bolt and reaches the
family's handler through the dispatcher; an id nobody declared is left unhandled."""

from __future__ import annotations

from typing import Any

from slack_bolt.request.async_request import AsyncBoltRequest

from bot.app import create_app
from bot.runtime import Runtime
from commands.calls.transfer import TRANSFER_BUTTON
from commands.campaigns.family import FAMILY as CAMPAIGNS
from commands.kernel.help import FAMILY as HELP
from commands.kernel.interactions import OnClick
from emulators.slack import TEAM
from tests.registry import INTERACTIONS

USER = "U0001"


def concrete(route: OnClick) -> str:
    """An action id as a rendered button carries it."""
    if route.suffixes:
        return f"{route.action_id}_{route.suffixes[0]}"
    return f"{route.action_id}_0" if route.numbered else route.action_id


def interaction(kind: str) -> dict[str, Any]:
    """What every interaction payload carries: its type, the team, the person, the app."""
    user = {"id": USER, "team_id": TEAM}
    return {"type": kind, "team": {"id": TEAM}, "user": user, "api_app_id": "A0001"}


def click_body(action_id: str) -> dict[str, Any]:
    return interaction("block_actions") | {
        "trigger_id": "1.2.expired",
        "container": {"type": "message", "channel_id": "C0001", "is_ephemeral": True},
        "channel": {"id": "C0001"},
        "actions": [{"action_id": action_id, "block_id": "b", "type": "button", "value": "x"}],
    }


def submission_body(callback_id: str) -> dict[str, Any]:
    return interaction("view_submission") | {
        "view": {
            "id": "V0001",
            "type": "modal",
            "callback_id": callback_id,
            "private_metadata": "{}",
            "state": {"values": {}},
        },
    }


async def test_every_declared_click_is_registered_and_routed(app: Runtime) -> None:
    bolt = create_app(app)
    assert INTERACTIONS.clicks, "the families declare buttons"
    for route in INTERACTIONS.clicks:
        action_id = concrete(route)
        assert INTERACTIONS.click(action_id) is route
        response = await bolt.async_dispatch(
            AsyncBoltRequest(body=click_body(action_id), mode="socket_mode")
        )
        assert response.status == 200, action_id


async def test_every_declared_form_is_registered_and_routed(app: Runtime) -> None:
    bolt = create_app(app)
    assert INTERACTIONS.submissions, "the families declare forms"
    for route in INTERACTIONS.submissions:
        assert INTERACTIONS.submission(route.callback_id) is route
        response = await bolt.async_dispatch(
            AsyncBoltRequest(body=submission_body(route.callback_id), mode="socket_mode")
        )
        assert response.status == 200, route.callback_id


def shortcut_body(callback_id: str, kind: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "type": "message_action" if kind == "message" else "shortcut",
        "callback_id": callback_id,
        "team": {"id": TEAM},
        "user": {"id": USER, "team_id": TEAM},
        "api_app_id": "A0001",
        "trigger_id": "1.2.expired",
    }
    if kind == "message":
        body["channel"] = {"id": "C0001"}
        body["message"] = {"ts": "1.000001", "text": "no number here"}
    return body


def step_body(callback_id: str) -> dict[str, Any]:
    return {
        "type": "event_callback",
        "team_id": TEAM,
        "api_app_id": "A0001",
        "event_id": f"Ev{callback_id}",
        "event": {
            "type": "function_executed",
            "function": {"callback_id": callback_id},
            "inputs": {},
            "function_execution_id": "Fx0001",
            "bot_access_token": "xwfp-expired",
        },
    }


async def test_every_declared_shortcut_is_registered_and_routed(app: Runtime) -> None:
    bolt = create_app(app)
    assert {s.kind for s in INTERACTIONS.shortcuts} == {"message", "global"}
    for route in INTERACTIONS.shortcuts:
        assert INTERACTIONS.shortcut(route.callback_id) is route
        response = await bolt.async_dispatch(
            AsyncBoltRequest(body=shortcut_body(route.callback_id, route.kind), mode="socket_mode")
        )
        assert response.status == 200, route.callback_id


async def test_every_declared_step_is_registered_and_routed(app: Runtime) -> None:
    bolt = create_app(app)
    assert len(INTERACTIONS.steps) == 7
    for route in INTERACTIONS.steps:
        assert INTERACTIONS.step(route.callback_id) is route
        response = await bolt.async_dispatch(
            AsyncBoltRequest(body=step_body(route.callback_id), mode="socket_mode")
        )
        assert response.status == 200, route.callback_id
    unknown = await bolt.async_dispatch(
        AsyncBoltRequest(body=step_body("nobody_declared_this"), mode="socket_mode")
    )
    assert unknown.status == 404


async def test_an_undeclared_id_reaches_no_listener(app: Runtime) -> None:
    bolt = create_app(app)
    assert INTERACTIONS.click("nobody_declared_this") is None
    response = await bolt.async_dispatch(
        AsyncBoltRequest(body=click_body("nobody_declared_this"), mode="socket_mode")
    )
    assert response.status == 404


def test_ids_are_declared_once() -> None:
    ids = [route.action_id for route in INTERACTIONS.clicks]
    callbacks = [route.callback_id for route in INTERACTIONS.submissions]
    assert len(ids) == len(set(ids)) and len(callbacks) == len(set(callbacks))
    shortcuts = [route.callback_id for route in INTERACTIONS.shortcuts]
    steps = [route.callback_id for route in INTERACTIONS.steps]
    assert len(shortcuts) == len(set(shortcuts)) and len(steps) == len(set(steps))


async def test_an_app_answers_only_the_families_it_was_given(app: Runtime) -> None:
    """Two apps side by side, built from two lists: the one without the calls family has
    no listener for its buttons, and no ``calls`` command in its catalog."""
    small = Runtime.build(app.settings, app.storage, families=(HELP, CAMPAIGNS))
    try:
        assert small.registry.catalog.match(["calls"]) is None
        assert app.registry.catalog.match(["calls"]) is not None
        transfer = click_body(f"{TRANSFER_BUTTON}_0")
        full, partial = create_app(app), create_app(small)
        answered = await full.async_dispatch(AsyncBoltRequest(body=transfer, mode="socket_mode"))
        unheard = await partial.async_dispatch(AsyncBoltRequest(body=transfer, mode="socket_mode"))
        assert (answered.status, unheard.status) == (200, 404)
    finally:
        await small.close()
