"""The approval machinery end to end, on campaign start (which needs an approval by default):
approve, deny with a reason, expire, refusals, double clicks, two approvers at once, and a
restart between the request and the click.  The emulator's journal shows what reached the
service: an approved start exactly one PUT, a denied or refused one none."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.runtime import Runtime
from bot.settings import Settings
from callcenter.models import Campaign
from commands.approvals.workflow import update_policy
from emulators.pbx.testing import EmulatorServer
from emulators.slack import (
    AGENT,
    APPROVALS,
    CALL_CENTER,
    DIGESTS,
    MANAGER,
    SUPERVISOR,
    TEAM,
    SlackStandIn,
)
from storage import ApprovalState
from tests.bot.approval_helpers import (
    ask,
    audit_outcomes,
    button_ids,
    campaign,
    card_in,
    card_now,
    clocked,
    confirm,
    ephemeral_with,
    jobs,
    prompt_for,
    puts,
    second_app,
    settled,
    shown,
    stopped_campaign,
    sweep,
    use_approvals_channel,
)
from tests.clocks import SteppedClock

__all__ = ["clocked"]

VOLATILE = {"status", "run_id", "updated_at"}


async def requested_start(
    rt: Runtime, slack: SlackStandIn, pbx: EmulatorServer, requester: str = AGENT
) -> tuple[Campaign, dict[str, Any]]:
    """``start`` asked and sent for approval: the campaign and its card in #approvals
    (made the approvals channel here)."""
    use_approvals_channel(rt)
    target = await stopped_campaign(pbx)
    prompt = await prompt_for(slack, f"start {target.campaign_uuid}", user=requester)
    assert "Ask for approval" in shown(prompt) and target.campaign_name in shown(prompt)
    await confirm(slack, prompt, user=requester)
    card = await card_in(slack, APPROVALS, target.campaign_uuid)
    await ephemeral_with(slack, requester, "Asked for approval")
    return target, card


def path_of(target: Campaign) -> str:
    return f"/v3/campaign/{target.campaign_uuid}"


@pytest.mark.usefixtures("roles")
async def test_start_is_approved_runs_once_and_keeps_every_other_field(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target, card = await requested_start(app, slack, pbx)
    assert "<@U0002>" in shown(card) and "expires at" in shown(card)
    assert puts(pbx, path_of(target)) == []
    await slack.driver.block_action(
        user=SUPERVISOR, action_id="approval_approve", channel=APPROVALS, ts=card["ts"]
    )
    done = await card_now(slack, APPROVALS, card["ts"], settled)
    assert done["text"].endswith(": done"), shown(done)
    assert "Approved by <@U0001>" in shown(done) and "running" in shown(done)
    # The request above the result says what the campaign was when asked; it never
    # contradicts the result below it ("now stopped" above "is now running").
    assert "(stopped when asked)" in shown(done) and "is now :large_green_circle: running" in (
        shown(done)
    )
    assert "(now" not in shown(done)
    assert button_ids(done) == []
    assert len(puts(pbx, path_of(target))) == 1
    after = await campaign(pbx, target.campaign_uuid)
    assert after.status == "start"
    before_fields = target.model_dump(exclude=VOLATILE)
    assert after.model_dump(exclude=VOLATILE) == before_fields
    thread = await slack.wait_for(lambda: len(slack.thread(APPROVALS, card["ts"])) > 1 or None)
    assert thread
    assert "approved and done" in shown(slack.thread(APPROVALS, card["ts"])[-1])
    assert audit_outcomes(app, "campaign.start") == ["requested", "approved", "ok"]


@pytest.mark.usefixtures("roles")
async def test_deny_asks_why_and_nothing_reaches_the_service(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target, card = await requested_start(app, slack, pbx)
    await slack.driver.block_action(
        user=MANAGER, action_id="approval_deny", channel=APPROVALS, ts=card["ts"]
    )
    modal = await slack.wait_for(lambda: slack.views(MANAGER)[-1] if slack.views(MANAGER) else None)
    assert "Why not?" in shown(modal)
    await slack.driver.view_submission(modal["id"], {"reason": "Not before the <!here> briefing"})
    denied = await card_now(slack, APPROVALS, card["ts"], settled)
    assert denied["text"].endswith(": denied")
    assert "Denied by <@U0003>" in shown(denied)
    assert "&lt;!here&gt;" in shown(denied) and "<!here>" not in shown(denied)
    assert button_ids(denied) == []
    assert puts(pbx, path_of(target)) == []
    assert (await campaign(pbx, target.campaign_uuid)).status == "stop"
    assert audit_outcomes(app, "campaign.start") == ["requested", "denied"]


@pytest.mark.usefixtures("roles")
async def test_the_requester_cannot_approve_their_own_start(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target, card = await requested_start(app, slack, pbx, requester=SUPERVISOR)
    await slack.driver.block_action(
        user=SUPERVISOR, action_id="approval_approve", channel=APPROVALS, ts=card["ts"]
    )
    refusal = await ephemeral_with(slack, SUPERVISOR, "someone else has to approve")
    assert refusal
    assert "approval_approve" in button_ids(slack.message(APPROVALS, card["ts"]))
    assert puts(pbx, path_of(target)) == []
    assert "refused" in audit_outcomes(app, "campaign.start")


@pytest.mark.usefixtures("roles")
async def test_operators_and_viewers_cannot_approve_and_viewers_cannot_ask(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    viewer = slack.add_user(TEAM, "vera", id="U0009").id
    target, card = await requested_start(app, slack, pbx, requester=MANAGER)
    for user in (AGENT, viewer):
        await slack.driver.block_action(
            user=user, action_id="approval_approve", channel=APPROVALS, ts=card["ts"]
        )
        assert await ephemeral_with(slack, user, "Only an admin")
    reply = await ask(slack, f"start {target.campaign_uuid}", user=viewer)
    assert "needs the operator role" in shown(reply)
    assert puts(pbx, path_of(target)) == []
    assert app.storage.approvals.list(TEAM)[0].state is ApprovalState.PENDING


@pytest.mark.usefixtures("roles")
async def test_a_double_click_and_two_approvers_at_once_start_it_once(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target, card = await requested_start(app, slack, pbx)
    clicks = [
        slack.driver.block_action(
            user=user, action_id="approval_approve", channel=APPROVALS, ts=card["ts"]
        )
        for user in (SUPERVISOR, MANAGER, SUPERVISOR)
    ]
    deliveries = await asyncio.gather(*clicks)
    await slack.driver.resend(deliveries[0], as_retry=False)
    done = await card_now(slack, APPROVALS, card["ts"], settled)
    assert done["text"].endswith(": done")
    await slack.wait_for(
        lambda: len(slack.ephemerals(SUPERVISOR)) + len(slack.ephemerals(MANAGER)) >= 3 or None
    )
    late = [
        m
        for u in (SUPERVISOR, MANAGER)
        for m in slack.ephemerals(u)
        if "already approved" in shown(m)
    ]
    assert len(late) >= 2
    assert len(puts(pbx, path_of(target))) == 1
    assert audit_outcomes(app, "campaign.start").count("ok") == 1


@pytest.mark.usefixtures("roles")
async def test_a_click_after_a_restart_runs_it_once(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, settings: Settings
) -> None:
    target, card = await requested_start(app, slack, pbx)
    async for restarted in second_app(settings, slack):
        click = await slack.driver.block_action(
            user=MANAGER, action_id="approval_approve", channel=APPROVALS, ts=card["ts"]
        )
        done = await card_now(slack, APPROVALS, card["ts"], settled)
        assert done["text"].endswith(": done")
        await slack.driver.resend(click, as_retry=False)
        assert await ephemeral_with(slack, MANAGER, "already approved")
        assert restarted.storage.approvals.list(TEAM)[0].state is ApprovalState.DONE
    assert len(puts(pbx, path_of(target))) == 1


async def test_an_unanswered_request_expires_and_its_card_says_so(
    clocked: tuple[Runtime, SteppedClock], slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    rt, clock = clocked
    target, card = await requested_start(rt, slack, pbx)
    clock.advance(29 * 60)
    assert await sweep(rt) == 0
    clock.advance(2 * 60)
    assert await sweep(rt) == 1
    expired = await card_now(slack, APPROVALS, card["ts"], settled)
    assert expired["text"].endswith(": expired") and "Nothing was done" in shown(expired)
    assert button_ids(expired) == []
    assert puts(pbx, path_of(target)) == []
    assert audit_outcomes(rt, "campaign.start") == ["requested", "expired"]


async def test_a_click_on_an_overdue_card_expires_it_there_and_then(
    clocked: tuple[Runtime, SteppedClock], slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    rt, clock = clocked
    target, card = await requested_start_in(rt, slack, pbx, CALL_CENTER)
    clock.advance(31 * 60)
    await slack.driver.block_action(
        user=SUPERVISOR, action_id="approval_approve", channel=CALL_CENTER, ts=card["ts"]
    )
    assert await ephemeral_with(slack, SUPERVISOR, "expired before anyone decided")
    expired = await card_now(slack, CALL_CENTER, card["ts"], settled)
    assert expired["text"].endswith(": expired")
    assert puts(pbx, path_of(target)) == []


async def requested_start_in(
    rt: Runtime, slack: SlackStandIn, pbx: EmulatorServer, channel: str
) -> tuple[Campaign, dict[str, Any]]:
    """Without an approvals channel, the card goes where the request was made."""
    target = await stopped_campaign(pbx)
    prompt = await prompt_for(slack, f"start {target.campaign_uuid}")
    await confirm(slack, prompt)
    card = await card_in(slack, channel, target.campaign_uuid)
    await ephemeral_with(slack, AGENT, "Asked for approval")
    return target, card


@pytest.mark.usefixtures("roles")
async def test_the_requester_can_withdraw_and_a_late_approve_does_nothing(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target, card = await requested_start(app, slack, pbx)
    asked = await ephemeral_with(slack, AGENT, "Asked for approval")
    await slack.driver.block_action(
        user=AGENT, action_id="approval_cancel", ephemeral_ts=asked["ts"]
    )
    cancelled = await card_now(slack, APPROVALS, card["ts"], settled)
    assert cancelled["text"].endswith(": cancelled")
    assert puts(pbx, path_of(target)) == []


def prompt_now(slack: SlackStandIn, asked: dict[str, Any], until: str) -> Any:
    """The requester's prompt (by its ts) once it reads ``until``."""
    return slack.wait_for(
        lambda: next(
            (m for m in slack.ephemerals(AGENT) if m["ts"] == asked["ts"] and until in shown(m)),
            None,
        )
    )


@pytest.mark.usefixtures("roles")
async def test_the_prompt_loses_its_withdraw_button_once_the_request_is_approved(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target, card = await requested_start(app, slack, pbx)
    asked = await ephemeral_with(slack, AGENT, "Asked for approval")
    assert "approval_cancel" in button_ids(asked)
    await slack.driver.block_action(
        user=MANAGER, action_id="approval_approve", channel=APPROVALS, ts=card["ts"]
    )
    await card_now(slack, APPROVALS, card["ts"], settled)
    now = await prompt_now(slack, asked, "Approved by <@U0003>")
    assert button_ids(now) == [] and "Start campaign" in shown(now)
    assert not [m for m in slack.ephemerals(AGENT) if "approval_cancel" in button_ids(m)]
    assert len(puts(pbx, path_of(target))) == 1


@pytest.mark.usefixtures("roles")
async def test_the_prompt_says_denied_and_why_instead_of_offering_withdraw(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    _, card = await requested_start(app, slack, pbx)
    asked = await ephemeral_with(slack, AGENT, "Asked for approval")
    await slack.driver.block_action(
        user=MANAGER, action_id="approval_deny", channel=APPROVALS, ts=card["ts"]
    )
    modal = await slack.wait_for(lambda: slack.views(MANAGER)[-1] if slack.views(MANAGER) else None)
    await slack.driver.view_submission(modal["id"], {"reason": "Budget review first"})
    now = await prompt_now(slack, asked, "Denied by <@U0003>")
    assert "Budget review first" in shown(now) and button_ids(now) == []


async def test_the_prompt_of_an_expired_request_says_so(
    clocked: tuple[Runtime, SteppedClock], slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    rt, clock = clocked
    use_approvals_channel(rt)
    target = await stopped_campaign(pbx)
    prompt = await prompt_for(slack, f"start {target.campaign_uuid}")
    clock.advance(5 * 60)  # the requester asks for approval five minutes later
    await confirm(slack, prompt)
    asked = await ephemeral_with(slack, AGENT, "Asked for approval")
    clock.advance(26 * 60)
    assert await sweep(rt) == 1
    now = await prompt_now(slack, asked, "Expired at")
    assert button_ids(now) == [] and "Nothing was done" in shown(now)


async def test_a_prompt_too_old_to_rewrite_is_corrected_when_withdraw_is_clicked(
    clocked: tuple[Runtime, SteppedClock], slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    """Slack lets a prompt be rewritten for 30 minutes; a request decided later (a long
    expiry) leaves the button, and its click shows how the request ended."""
    rt, clock = clocked
    update_policy(rt.storage.policies, TEAM, "campaign.start", expiry_seconds=2 * 3600)
    target, card = await requested_start(rt, slack, pbx)
    asked = await ephemeral_with(slack, AGENT, "Asked for approval")
    clock.advance(40 * 60)
    await slack.driver.block_action(
        user=MANAGER, action_id="approval_approve", channel=APPROVALS, ts=card["ts"]
    )
    await card_now(slack, APPROVALS, card["ts"], settled)
    still = next(m for m in slack.ephemerals(AGENT) if m["ts"] == asked["ts"])
    assert "approval_cancel" in button_ids(still)
    await slack.driver.block_action(
        user=AGENT, action_id="approval_cancel", ephemeral_ts=asked["ts"]
    )
    now = await prompt_now(slack, asked, "Nothing to withdraw")
    assert "already approved" in shown(now) and "Approved by <@U0003>" in shown(now)
    assert button_ids(now) == []
    assert len(puts(pbx, path_of(target))) == 1


async def test_the_background_sweep_updates_overdue_cards_by_itself(
    clocked: tuple[Runtime, SteppedClock], slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    rt, clock = clocked
    target, card = await requested_start(rt, slack, pbx)
    clock.advance(31 * 60)
    sweeper = jobs(rt, every=0.05)
    sweeper.start()
    try:
        expired = await card_now(slack, APPROVALS, card["ts"], settled)
        thread = await slack.wait_for(
            lambda: replies if len(replies := slack.thread(APPROVALS, card["ts"])) > 1 else None
        )
    finally:
        await sweeper.stop()
    assert expired["text"].endswith(": expired")
    assert "<@U0002> your request (start campaign) expired" in shown(thread[-1])
    assert puts(pbx, path_of(target)) == []
    assert audit_outcomes(rt, "campaign.start") == ["requested", "expired"]


@pytest.mark.usefixtures("roles")
async def test_a_card_goes_to_the_requesting_channel_when_the_bot_is_not_in_the_approvals_one(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    app.storage.workspaces.set_channels(TEAM, approvals=DIGESTS)
    target = await stopped_campaign(pbx)
    prompt = await prompt_for(slack, f"start {target.campaign_uuid}")
    await confirm(slack, prompt)
    card = await card_in(slack, CALL_CENTER, target.campaign_uuid)
    assert card
    assert slack.messages(DIGESTS) == []
    reply = await ask(slack, "policy channel <#C0003|digests>")
    assert "I am not in #digests" in shown(reply)


@pytest.mark.usefixtures("roles")
async def test_an_approval_clicked_while_the_process_stops_is_not_run_and_says_so(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    """A draining process (SIGTERM) starts no action it might not see through: the
    card says plainly that nothing was sent, never "cannot tell"."""
    target, card = await requested_start(app, slack, pbx)
    app.stop_starting()
    await slack.driver.block_action(
        user=SUPERVISOR, action_id="approval_approve", channel=APPROVALS, ts=card["ts"]
    )
    done = await card_now(slack, APPROVALS, card["ts"], settled)
    assert done["text"].endswith(": failed"), shown(done)
    assert "nothing was sent" in shown(done) and "cannot tell" not in shown(done)
    assert puts(pbx, path_of(target)) == []
    assert (await campaign(pbx, target.campaign_uuid)).status == "stop"
    assert audit_outcomes(app, "campaign.start") == ["requested", "approved", "failed"]
