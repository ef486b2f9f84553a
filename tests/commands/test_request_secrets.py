"""A password typed for ``user edit`` lives only as long as its request: kept apart from the
parameters (so the card, the audit log and the hash never see it), handed to the one
execution, and gone as soon as the request is run, denied, cancelled or expires."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from callcenter import CallCenter
from callcenter.models import User
from commands.approvals.workflow import cancel, expire_due, open_request, run_approved
from commands.directory.users import UserUpdateParams, settings_of
from commands.kernel.actions import ExecutionEnv, Proposal
from emulators.pbx.testing import EmulatorServer
from storage import Approval, ApprovalState, Role, Storage
from storage.schema import approvals
from tests.commands.helpers import decide_as

TEAM, ADMIN, OTHER = "T1", "U0101", "U0102"
PASSWORD = "Pw-4d2e-only-once"


async def agent(cc: CallCenter) -> User:
    return next(u for u in [u async for u in cc.users.iterate()] if u.username == "agent.mai")


def ask(storage: Storage, user: User) -> Approval:
    params = UserUpdateParams(
        user_uuid=user.user_uuid,
        username=user.username,
        level=user.level,
        role_uuid=user.role_uuid,
        role_name=user.role_name,
        extension="1088",
        is_active=True,
        before=settings_of(user),
        password=PASSWORD,
        confirm_password=PASSWORD,
    )
    approval, _ = open_request(
        storage,
        team_id=TEAM,
        user_id=ADMIN,
        role=Role.ADMIN,
        channel_id="C1",
        proposal=Proposal("user.update", params),
    )
    return approval


def everything_kept(storage: Storage, approval: Approval) -> str:
    """What the app keeps about the request in plain words: parameters, audit, result."""
    current = storage.approvals.require(TEAM, approval.id)
    audit = [(e.params, e.detail) for e in storage.audit.entries(TEAM)]
    return repr((current.params, current.params_hash, current.result, audit))


async def test_the_password_reaches_the_service_once_and_is_gone_after(
    storage: Storage, cc: CallCenter, pbx: EmulatorServer
) -> None:
    user = await agent(cc)
    approval = ask(storage, user)
    assert "password" not in approval.params
    assert storage.approval_secrets.has_secret(TEAM, approval.id)
    decide_as(storage, approval, OTHER)
    finished = await run_approved(storage, TEAM, approval.id, ExecutionEnv(cc=cc))
    assert finished.state is ApprovalState.DONE, finished.result
    (sent,) = pbx.journal(method="PUT", path=f"/v3/user/{user.user_uuid}")
    # Sent with the password (the emulator's journal masks it) and accepted.
    assert sent["body"]["password"] == "***" == sent["body"]["confirm_password"]
    assert sent["status"] == 200
    assert not storage.approval_secrets.has_secret(TEAM, approval.id)
    assert PASSWORD not in everything_kept(storage, approval)


@pytest.mark.parametrize("ending", ["denied", "cancelled", "expired"])
async def test_the_password_is_wiped_when_the_request_ends_without_running(
    storage: Storage, cc: CallCenter, pbx: EmulatorServer, ending: str
) -> None:
    approval = ask(storage, await agent(cc))
    if ending == "denied":
        decide_as(storage, approval, OTHER, approve=False, reason="not now")
    elif ending == "cancelled":
        cancel(storage, TEAM, approval.id, user=ADMIN, role=Role.ADMIN)
    else:
        storage.db.change(
            update(approvals).where(approvals.c.id == approval.id).values(expires_at=0)
        )
        assert [a.id for a in expire_due(storage, TEAM)] == [approval.id]
    assert storage.approvals.require(TEAM, approval.id).state.value == ending
    assert not storage.approval_secrets.has_secret(TEAM, approval.id)
    assert pbx.journal(method="PUT", path="/v3/user") == []


async def test_a_run_without_its_password_sends_nothing(
    storage: Storage, cc: CallCenter, pbx: EmulatorServer
) -> None:
    """A secret lost before the run (wiped by a restart's purge) refuses the change
    instead of sending it without a password."""
    approval = ask(storage, await agent(cc))
    decide_as(storage, approval, OTHER)
    storage.approval_secrets.wipe(TEAM, approval.id)
    finished = await run_approved(storage, TEAM, approval.id, ExecutionEnv(cc=cc))
    assert finished.state is ApprovalState.FAILED
    assert "password typed for this change is gone" in finished.result["text"]
    assert pbx.journal(method="PUT") == []
