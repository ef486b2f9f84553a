"""The approval flow without Slack: who may ask, running exactly once, what a failure says,
and how each state of a request reads on its card."""

from __future__ import annotations

import asyncio
from zoneinfo import ZoneInfo

import pytest

from callcenter import CallCenter
from callcenter.models import Template
from commands.admin.policy import parse_kind
from commands.approvals import actions
from commands.approvals.actions import ActionTable
from commands.approvals.cards import card, deny_modal, propose
from commands.approvals.workflow import (
    APPROVE_ACTION,
    DENY_ACTION,
    RequestRefused,
    open_request,
    run_approved,
    update_policy,
)
from commands.calls.autocall import fields_of, hint_for, missing_values
from commands.calls.transfer import transfer_failure
from commands.campaigns.control import ControlParams
from commands.kernel.actions import ExecutionEnv, Proposal
from commands.kernel.durations import parse_duration
from commands.kernel.grammar import UsageError
from emulators.pbx.testing import EmulatorServer
from storage import Approval, ApprovalState, Mode, Role, Storage
from storage.errors import ApprovalStateError
from tests.commands.helpers import decide_as, dumps
from tests.contexts import command_context
from tests.registry import APP

TZ = ZoneInfo("Asia/Ho_Chi_Minh")
TEAM, ASKER, ADMIN = "T1", "U0101", "U0102"


async def stopped(cc: CallCenter) -> str:
    async for campaign in cc.campaigns.iterate():
        if campaign.status == "stop":
            return campaign.campaign_uuid
    raise AssertionError("the seed has stopped campaigns")


def start_of(uuid: str) -> Proposal:
    return Proposal(
        "campaign.start",
        ControlParams(
            campaign_uuid=uuid, campaign_name="Spring <sale>", status="start", was="stop"
        ),
    )


def ask(storage: Storage, proposal: Proposal, role: Role = Role.OPERATOR) -> tuple[Approval, Mode]:
    return open_request(
        storage, team_id=TEAM, user_id=ASKER, role=role, channel_id="C1", proposal=proposal
    )


def test_viewers_and_roles_below_the_policy_cannot_ask(storage: Storage) -> None:
    with pytest.raises(RequestRefused, match="Viewers can look but not act"):
        ask(storage, start_of("x"), role=Role.VIEWER)
    update_policy(storage.policies, TEAM, "campaign.start", min_role=Role.ADMIN)
    with pytest.raises(RequestRefused, match="only admins"):
        ask(storage, start_of("x"))
    assert [e.outcome for e in storage.audit.entries(TEAM)] == ["refused", "refused"]
    assert storage.approvals.list(TEAM) == []


async def test_an_approved_request_runs_once_however_many_try(
    storage: Storage, cc: CallCenter, pbx: EmulatorServer
) -> None:
    uuid = await stopped(cc)
    approval, mode = ask(storage, start_of(uuid))
    assert mode is Mode.APPROVAL
    decision = decide_as(storage, approval, ADMIN)
    assert decision.moved
    env = ExecutionEnv(cc=cc)
    outcomes = await asyncio.gather(
        *(run_approved(storage, TEAM, approval.id, env) for _ in range(3)),
        return_exceptions=True,
    )
    finished = [o for o in outcomes if not isinstance(o, BaseException)]
    assert len(finished) == 1 and finished[0].state is ApprovalState.DONE
    assert sum(isinstance(o, ApprovalStateError) for o in outcomes) == 2
    assert len(pbx.journal(method="PUT", path=f"/v3/campaign/{uuid}")) == 1


async def test_a_write_whose_answer_was_lost_is_not_retried_and_says_so(
    storage: Storage, cc: CallCenter, pbx: EmulatorServer
) -> None:
    uuid = await stopped(cc)
    approval, _ = ask(storage, start_of(uuid))
    decide_as(storage, approval, ADMIN)
    pbx.fail_next("PUT", f"/v3/campaign/{uuid}", 502, drop=True)
    finished = await run_approved(storage, TEAM, approval.id, ExecutionEnv(cc=cc))
    assert finished.state is ApprovalState.FAILED
    assert "the campaign may or may not have started" in finished.result["text"]
    assert "Check before trying again" in finished.result["text"]
    assert len(pbx.journal(method="PUT", path=f"/v3/campaign/{uuid}")) == 1


async def test_a_policy_of_none_runs_at_once_and_shows_the_result(
    storage: Storage, cc: CallCenter, pbx: EmulatorServer
) -> None:
    update_policy(storage.policies, TEAM, "campaign.start", mode=Mode.NONE)
    ctx = command_context(storage, team_id=TEAM, user_id=ASKER, role=Role.OPERATOR, tz=TZ, cc=cc)
    uuid = await stopped(cc)
    reply = await propose(ctx, start_of(uuid))
    assert not reply.ephemeral and "Spring &lt;sale&gt;" in dumps(reply)
    assert "is now :large_green_circle: running" in dumps(reply)
    assert len(pbx.journal(method="PUT", path=f"/v3/campaign/{uuid}")) == 1


def test_each_state_reads_plainly_and_only_a_pending_approval_has_buttons(
    storage: Storage,
) -> None:
    approval, _ = ask(storage, start_of("3c250fe1-52c5-4367-8300-fbff46c2a968"))
    pending = card(approval, TZ)
    text = dumps(pending)
    assert APPROVE_ACTION in text and DENY_ACTION in text
    assert "Spring &lt;sale&gt;" in text and "<@U0101>" in text and "an admin other than" in text
    denied = decide_as(storage, approval, ADMIN, approve=False, reason="Not <today>")
    text = dumps(card(denied.approval, TZ))
    assert (
        APPROVE_ACTION not in text and "Denied by <@U0102>" in text and "Not &lt;today&gt;" in text
    )
    late = decide_as(storage, approval, ADMIN)
    assert not late.moved and late.message == "<@U0102> already denied this request."
    modal = deny_modal(denied.approval, "{}").to_dict()
    assert modal["callback_id"] == "approval_deny_reason"


def test_every_action_kind_is_declared() -> None:
    assert APP.actions.kinds, "the families declare actions"
    for kind in APP.actions.kinds:
        assert actions.spec_for(kind).kind == kind
    with pytest.raises(LookupError):
        actions.spec_for("campaign.explode")


def test_policy_words_are_read_forgivingly() -> None:
    assert parse_duration("30m") == 1800
    assert parse_duration("2h") == 7200
    assert parse_duration("90s") == 90
    assert parse_duration("45") == 2700
    with pytest.raises(UsageError):
        parse_duration("soon")
    assert parse_kind("start") == "campaign.start"
    assert parse_kind("pause-all") == "campaign.pause_all"
    assert parse_kind("lead.upload") == "lead.upload"
    with pytest.raises(UsageError, match="not a kind of action"):
        parse_kind("launch")


def test_autocall_fields_and_hints() -> None:
    tts = Template(
        template_uuid="t", voice_type="tts", content="Hi {{name}}, {{amount}} due {{due_date}}"
    )
    audio = Template(template_uuid="a", voice_type="audio_file", content="{{ignored}}")
    assert fields_of(tts) == ["name", "amount", "due_date"]
    assert fields_of(audio) == [] and fields_of(None) == []
    assert missing_values(["name", "amount"], {"name": "An", "amount": " "}) == ["amount"]
    assert hint_for("amount").startswith("Read as an amount")
    assert "dd/mm/yyyy" in hint_for("due_date")
    assert hint_for("otp_code").startswith("Read digit by digit")


def test_transfer_failures_are_explained() -> None:
    assert "is not registered" in transfer_failure("USER_NOT_REGISTERED", "1999")
    assert "ended before" in transfer_failure("CALL_NOT_FOUND", "1002")
    assert "BUSY_HERE" in transfer_failure("BUSY_HERE", "1002")


def test_an_action_declared_twice_stops_the_app() -> None:
    twice = [actions.spec_for("campaign.start")] * 2
    with pytest.raises(ValueError, match="declared twice"):
        ActionTable(twice)
    assert actions.spec_for("campaign.start").kind == "campaign.start"
