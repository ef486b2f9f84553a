"""Campaign control end to end: pause and stop need the requester's confirm only, run once
and keep every other field; the card's buttons ask the same way; ``pause all`` pauses
every running campaign, and nothing else, and says so in the approvals channel."""

from __future__ import annotations

from typing import Any

import pytest

from bot.runtime import Runtime
from callcenter.models import Campaign
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, APPROVALS, TEAM, SlackStandIn
from storage import Role
from tests.bot.approval_helpers import (
    ask,
    audit_outcomes,
    button_ids,
    campaign,
    campaigns,
    confirm,
    ephemeral_with,
    give_roles,
    prompt_for,
    puts,
    result_card,
    shown,
)

VOLATILE = {"status", "run_id", "updated_at"}


JSON = dict[str, Any]


async def running(pbx: EmulatorServer, kind: str = "manual") -> Campaign:
    return next(c for c in await campaigns(pbx) if c.status == "start" and c.type == kind)


async def asked_to_pause(slack: SlackStandIn, pbx: EmulatorServer) -> tuple[Campaign, JSON]:
    """A running manual campaign and AGENT's prompt to pause it, not yet confirmed."""
    target = await running(pbx)
    return target, await prompt_for(slack, f"pause {target.campaign_uuid}")


async def autodialer_card(slack: SlackStandIn, pbx: EmulatorServer) -> tuple[Campaign, JSON]:
    """A running autodialer campaign and its card as AGENT sees it."""
    target = await running(pbx, "autodialer")
    return target, await ask(slack, f"campaign {target.campaign_uuid}", user=AGENT)


@pytest.mark.usefixtures("roles")
async def test_pause_is_confirmed_by_the_requester_and_sent_once(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target, prompt = await asked_to_pause(slack, pbx)
    assert "Pause campaign" in shown(prompt) and "Ask for approval" not in shown(prompt)
    first = await slack.driver.block_action(
        user=AGENT, action_id="approval_confirm", ephemeral_ts=prompt["ts"]
    )
    card = await result_card(slack, target.campaign_uuid)
    assert card["text"].endswith(": done") and "Confirmed by <@U0002>" in shown(card)
    await slack.driver.resend(first, as_retry=False)
    assert await ephemeral_with(slack, AGENT, "already confirmed")
    after = await campaign(pbx, target.campaign_uuid)
    assert after.status == "pause"
    assert after.model_dump(exclude=VOLATILE) == target.model_dump(exclude=VOLATILE)
    assert len(puts(pbx, f"/v3/campaign/{target.campaign_uuid}")) == 1
    assert audit_outcomes(app, "campaign.pause") == ["requested", "approved", "ok"]


async def card_now(slack: SlackStandIn, user: str, ts: str, needle: str) -> dict[str, Any]:
    """The ephemeral card ``ts`` once it shows ``needle`` (it is redrawn in place)."""
    return await slack.wait_for(
        lambda: next(
            (m for m in slack.ephemerals(user) if m["ts"] == ts and needle in shown(m)), None
        )
    )


@pytest.mark.usefixtures("roles")
async def test_stop_from_the_card_button_keeps_the_other_fields(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target, card = await autodialer_card(slack, pbx)
    assert {"campaign_control_pause", "campaign_control_stop"} <= set(button_ids(card))
    assert "campaign_control_start" not in button_ids(card)
    stop = next(
        e
        for b in card["blocks"]
        for e in b.get("elements", [])
        if e.get("action_id") == "campaign_control_stop"
    )
    # Slack asks before the click is sent: confirming that dialog is the confirm.
    assert stop["confirm"]["title"]["text"] == f"Stop {target.campaign_name}?"
    await slack.driver.block_action(
        user=AGENT, action_id="campaign_control_stop", ephemeral_ts=card["ts"]
    )
    redrawn = await card_now(slack, AGENT, card["ts"], "Confirmed by")
    assert "stopped" in shown(redrawn)
    done = await result_card(slack, target.campaign_uuid)
    assert done["text"].endswith(": done")
    after = await campaign(pbx, target.campaign_uuid)
    assert after.status == "stop"
    assert after.model_dump(exclude=VOLATILE) == target.model_dump(exclude=VOLATILE)
    assert len(puts(pbx, f"/v3/campaign/{target.campaign_uuid}")) == 1


@pytest.mark.usefixtures("roles")
async def test_a_paused_campaigns_card_is_redrawn_in_place_without_pause(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target, card = await autodialer_card(slack, pbx)
    older = await ask(slack, f"campaign {target.campaign_uuid}", user=AGENT)
    assert "campaign_control_pause" in button_ids(card)
    assert "Campaign last changed" in shown(card)
    await slack.driver.block_action(
        user=AGENT, action_id="campaign_control_pause", ephemeral_ts=card["ts"]
    )
    redrawn = await card_now(slack, AGENT, card["ts"], "Confirmed by")
    assert "campaign_control_pause" not in button_ids(redrawn)
    assert {"campaign_control_start", "campaign_control_stop"} <= set(button_ids(redrawn))
    assert "paused" in shown(redrawn)
    assert (await campaign(pbx, target.campaign_uuid)).status == "pause"

    # The Pause left on another copy of the card: that copy is redrawn too, and says so.
    await slack.driver.block_action(
        user=AGENT, action_id="campaign_control_pause", ephemeral_ts=older["ts"]
    )
    again = await card_now(slack, AGENT, older["ts"], "already paused")
    assert "campaign_control_pause" not in button_ids(again)
    assert len(puts(pbx, f"/v3/campaign/{target.campaign_uuid}")) == 1


async def test_a_viewers_card_has_no_switches_and_an_old_one_is_refused(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target, viewer_card = await autodialer_card(slack, pbx)
    assert target.campaign_name in shown(viewer_card)
    assert not [b for b in button_ids(viewer_card) if b.startswith("campaign_control")]
    assert "campaign_refresh" in button_ids(viewer_card)
    give_roles(app)
    card = await ask(slack, f"campaign {target.campaign_uuid}", user=AGENT)
    assert "campaign_control_pause" in button_ids(card)
    # The person is a viewer again; the switch left on their earlier card says why not.
    app.storage.roles.set_role(TEAM, AGENT, Role.VIEWER)
    await slack.driver.block_action(
        user=AGENT, action_id="campaign_control_pause", ephemeral_ts=card["ts"]
    )
    assert await ephemeral_with(slack, AGENT, "This button needs the operator role")
    assert app.storage.approvals.list(TEAM) == []
    assert puts(pbx, f"/v3/campaign/{target.campaign_uuid}") == []


@pytest.mark.usefixtures("roles")
async def test_a_campaign_already_in_that_state_is_left_alone(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target = await running(pbx)
    reply = await ask(slack, f"start {target.campaign_uuid}", user=AGENT)
    assert "already running" in shown(reply)
    assert app.storage.approvals.list("T0001") == []


@pytest.mark.usefixtures("roles")
async def test_the_campaign_vanishing_before_the_confirm_is_explained(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target, prompt = await asked_to_pause(slack, pbx)
    pbx.fail_next("GET", "/v3/campaign", 200, {"data": [], "limit": 100, "offset": 0, "total": 0})
    await confirm(slack, prompt)
    card = await result_card(slack, target.campaign_uuid)
    assert card["text"].endswith(": failed") and "no longer exists" in shown(card)
    assert puts(pbx, f"/v3/campaign/{target.campaign_uuid}") == []


@pytest.mark.usefixtures("approvals")
async def test_pause_all_pauses_every_running_campaign_and_nothing_else(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    before = {c.campaign_uuid: c for c in await campaigns(pbx)}
    started = {u for u, c in before.items() if c.status == "start"}
    assert len(started) >= 2
    prompt = await prompt_for(slack, "pause all")
    assert "every running campaign" in shown(prompt)
    await confirm(slack, prompt)
    done = await result_card(slack, "every running campaign")
    assert done["text"].endswith(": done")
    assert f"Paused {len(started)} of {len(started)}" in shown(done)
    announced = await slack.wait_for_message(APPROVALS, lambda m: "Emergency brake" in shown(m))
    assert "<@U0002>" in shown(announced)
    after = {c.campaign_uuid: c for c in await campaigns(pbx)}
    for uuid, old in before.items():
        expected = "pause" if uuid in started else old.status
        assert after[uuid].status == expected, old.campaign_name
        assert after[uuid].model_dump(exclude=VOLATILE) == old.model_dump(exclude=VOLATILE)
    sent = [e["path"] for e in pbx.journal(method="PUT")]
    assert sorted(sent) == sorted(f"/v3/campaign/{u}" for u in started)
    assert audit_outcomes(app, "campaign.pause_all") == ["requested", "approved", "ok"]


async def test_viewers_cannot_pull_the_brake(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    reply = await ask(slack, "pause all", user=AGENT)
    assert "needs the operator role" in shown(reply)
    assert pbx.journal(method="PUT") == []
    assert await ephemeral_with(slack, AGENT, "operator")
