"""Approvals a dead process left behind: settled by reading the service, never run again.

The "dead process" here is the database state one leaves: a request decided and claimed
(``executing``) whose lease nobody renews, or decided and never claimed.  The sweeper of
the live app finds it once the lease ran out, asks the service where it can, updates the
card, tells the requester in the card's thread and writes the audit log.  The real
``kill -9`` of a serving process is in ``tests/faults``.
"""

from __future__ import annotations

from typing import Any

from bot.runtime import Runtime
from callcenter import CallCenter
from callcenter.models import Campaign
from commands.approvals.recovery import APPROVED_GRACE
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, APPROVALS, SUPERVISOR, TEAM, SlackStandIn
from storage import Approval, ApprovalState, Role
from storage.approvals import EXECUTION_LEASE
from tests.bot.approval_helpers import (
    audit_outcomes,
    campaign,
    card_in,
    card_now,
    clocked,
    confirm,
    give_roles,
    jobs,
    prompt_for,
    puts,
    shown,
    use_approvals_channel,
)
from tests.bot.test_approvals_e2e import path_of, requested_start
from tests.clocks import SteppedClock

__all__ = ["clocked"]

JSON = dict[str, Any]


def left_running(rt: Runtime, approval_id: str) -> Approval:
    """What a process that died during the service call leaves: approved and claimed."""
    pending = rt.storage.approvals.require(TEAM, approval_id)
    rt.storage.approvals.decide(
        TEAM,
        approval_id,
        decider=SUPERVISOR,
        decider_role=Role.ADMIN,
        approve=True,
        params_hash=pending.params_hash,
    )
    return rt.storage.approvals.claim_for_execution(TEAM, approval_id)


def only_request(rt: Runtime) -> Approval:
    [approval] = rt.storage.approvals.list(TEAM)
    return approval


async def recover(rt: Runtime) -> list[Approval]:
    settled = await jobs(rt).run_once("approvals.recover")
    assert isinstance(settled, list)
    return settled


async def thread_note(slack: SlackStandIn, card: JSON) -> JSON:
    replies = await slack.wait_for(
        lambda: r if len(r := slack.thread(APPROVALS, card["ts"])) > 1 else None
    )
    return replies[-1]


def final(message: JSON) -> bool:
    return any(message["text"].endswith(w) for w in (": done", ": failed", ": unknown"))


async def test_a_start_cut_off_after_the_service_did_it_is_recorded_done(
    clocked: tuple[Runtime, SteppedClock], slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    rt, clock = clocked
    target, card = await requested_start(rt, slack, pbx)
    left_running(rt, only_request(rt).id)
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:  # the PUT that got through
        await cc.campaigns.set_status(target.campaign_uuid, "start")
    clock.advance(EXECUTION_LEASE - 1)
    assert await recover(rt) == []  # its lease has not run out: maybe still running
    clock.advance(2)
    [settled] = await recover(rt)
    assert settled.state is ApprovalState.DONE
    done = await card_now(slack, APPROVALS, card["ts"], final)
    assert done["text"].endswith(": done") and "the service shows it was done" in shown(done)
    note = await thread_note(slack, card)
    assert "<@U0002> your request (start campaign) was interrupted" in shown(note)
    assert len(puts(pbx, path_of(target))) == 1  # the one before the cut, none by recovery
    assert audit_outcomes(rt, "campaign.start") == ["requested", "ok"]
    assert await recover(rt) == []  # settled once


async def test_a_start_cut_off_before_the_service_saw_it_is_recorded_not_done(
    clocked: tuple[Runtime, SteppedClock], slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    rt, clock = clocked
    target, card = await requested_start(rt, slack, pbx)
    left_running(rt, only_request(rt).id)
    clock.advance(EXECUTION_LEASE + 1)
    [settled] = await recover(rt)
    assert settled.state is ApprovalState.FAILED
    failed = await card_now(slack, APPROVALS, card["ts"], final)
    assert "it was not done" in shown(failed) and "Ask again" in shown(failed)
    assert puts(pbx, path_of(target)) == []
    assert (await campaign(pbx, target.campaign_uuid)).status == "stop"
    assert audit_outcomes(rt, "campaign.start") == ["requested", "failed"]


async def test_an_autocall_cut_off_ends_unknown_and_is_never_pushed_again(
    clocked: tuple[Runtime, SteppedClock],
    slack: SlackStandIn,
    pbx: EmulatorServer,
    greeting: Campaign,
) -> None:
    rt, clock = clocked
    give_roles(rt)
    use_approvals_channel(rt)
    prompt = await prompt_for(slack, f"autocall {greeting.campaign_uuid} 0912345678 name=An")
    await confirm(slack, prompt)
    card = await card_in(slack, APPROVALS, "0912")
    await slack.wait_for(lambda: only_request(rt).message_ts)  # the card is recorded
    left_running(rt, only_request(rt).id)
    clock.advance(EXECUTION_LEASE + 1)
    [settled] = await recover(rt)
    assert settled.state is ApprovalState.FAILED and settled.result["unknown"] is True
    unknown = await card_now(slack, APPROVALS, card["ts"], final)
    assert unknown["text"].endswith(": unknown")
    assert "check before retrying" in shown(unknown)
    note = await thread_note(slack, card)
    assert "<@U0002>" in shown(note) and "Check before retrying" in shown(note)
    assert pbx.journal(method="POST", path="/v3/autocall/import") == []
    assert audit_outcomes(rt, "autocall.push") == ["requested", "unknown"]


async def test_an_approval_never_claimed_is_not_run_late(
    clocked: tuple[Runtime, SteppedClock], slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    rt, clock = clocked
    target, card = await requested_start(rt, slack, pbx)
    approval = only_request(rt)
    rt.storage.approvals.decide(
        TEAM,
        approval.id,
        decider=SUPERVISOR,
        decider_role=Role.ADMIN,
        approve=True,
        params_hash=approval.params_hash,
    )
    clock.advance(APPROVED_GRACE - 1)
    assert await recover(rt) == []
    clock.advance(2)
    [settled] = await recover(rt)
    assert settled.state is ApprovalState.FAILED and settled.result["not_run"] is True
    failed = await card_now(slack, APPROVALS, card["ts"], final)
    assert "nothing was sent" in shown(failed)
    note = await thread_note(slack, card)
    assert f"<@{AGENT}> your request (start campaign) was not run" in shown(note)
    assert puts(pbx, path_of(target)) == []
