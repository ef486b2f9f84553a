"""Shortcuts end to end: "Call back with callops" on a message, and "Call-center status"
from the ⚡ menu, sent by the stand-in as Slack's ``message_action`` and ``shortcut``."""

from __future__ import annotations

from typing import Any

import pytest

from bot.runtime import Runtime
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, CALL_CENTER, SUPERVISOR, TEAM, Delivery, SlackStandIn
from storage import Role
from tests.bot.test_commands_e2e import shown

JSON = dict[str, Any]


def post_as(slack: SlackStandIn, user: str, text: str) -> JSON:
    """A person's message in #call-center (callops does not listen to messages)."""
    state = slack.core.state
    message: JSON = {
        "type": "message",
        "text": text,
        "user": user,
        "ts": slack.core.ids.ts(slack.core.clock.now()),
        "team": TEAM,
    }
    return state.add_message(state.channel(CALL_CENTER), message)


async def top_view(slack: SlackStandIn, user: str, needle: str) -> JSON:
    return await slack.wait_for(
        lambda: v if (views := slack.views(user)) and needle in shown(v := views[-1]) else None
    )


def element(view: JSON, action_id: str) -> JSON:
    for block in view.get("blocks", []):
        for item in [block.get("element"), *block.get("elements", [])]:
            if isinstance(item, dict) and item.get("action_id") == action_id:
                return item
    raise AssertionError(f"no {action_id} in {shown(view)}")


async def call_back(slack: SlackStandIn, text: str) -> Delivery:
    """Sofia posts ``text``; Alex uses Call back with callops on it."""
    message = post_as(slack, SUPERVISOR, text)
    return await slack.driver.message_shortcut(
        user=AGENT, channel=CALL_CENTER, ts=message["ts"], callback_id="call_back"
    )


async def test_call_back_opens_the_autocall_form_with_the_number_from_the_message(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    app.storage.roles.set_role(TEAM, AGENT, Role.OPERATOR)
    delivery = await call_back(slack, "Khách hàng gọi lại số 0912 345 678 nhé")
    assert delivery.in_time
    assert delivery.payload["type"] == "message_action"
    pick = await top_view(slack, AGENT, "from which campaign?")
    assert "0912 345 678" in shown(pick)
    select = element(pick, "call_back_pick")
    options = select["options"]
    assert options, "the autocall campaigns are offered"
    await slack.driver.block_action(
        user=AGENT, action_id="call_back_pick", view_id=pick["id"], value=options[0]["value"]
    )
    form = await top_view(slack, AGENT, "Push one automated call")
    assert form["callback_id"] == "autocall_form"
    assert element(form, "phone")["initial_value"] == "0912345678"
    assert len(slack.views(AGENT)) == 1, "the choice became the form: one modal"
    assert pbx.journal(method="POST", path="/v3/autocall/import") == []


@pytest.mark.parametrize(
    ("role", "message", "said", "also"),
    [
        (Role.OPERATOR, "Khách hàng gọi lại nhé, số 12345", "no phone number", "10 digits"),
        (None, "Gọi lại 0912345678", "needs the operator role", "Call back with callops"),
    ],
    ids=["a message without a number", "a viewer"],
)
async def test_call_back_that_cannot_go_ahead_says_why_and_opens_nothing(
    app: Runtime,
    slack: SlackStandIn,
    pbx: EmulatorServer,
    role: Role | None,
    message: str,
    said: str,
    also: str,
) -> None:
    if role is not None:
        app.storage.roles.set_role(TEAM, AGENT, role)
    await call_back(slack, message)
    reply = await slack.wait_for_ephemeral(AGENT, lambda m: said in shown(m))
    assert also in shown(reply)
    assert slack.views(AGENT) == []


async def test_call_center_status_opens_the_wallboard_and_refreshes_it(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    delivery = await slack.driver.global_shortcut(user=AGENT, callback_id="callcenter_status")
    assert delivery.in_time and delivery.payload["type"] == "shortcut"
    board = await top_view(slack, AGENT, "Call center wallboard")
    assert board["title"]["text"] == "Call-center status"
    assert "Live calls" in shown(board) or "live call" in shown(board).lower()
    first_hash = board["hash"]
    await slack.driver.block_action(user=AGENT, action_id="status_refresh", view_id=board["id"])
    await slack.wait_for(lambda: slack.views(AGENT)[-1]["hash"] != first_hash or None)
    assert "Call center wallboard" in shown(slack.views(AGENT)[-1])
    assert slack.home(AGENT) is None, "the Home tab was left alone"
