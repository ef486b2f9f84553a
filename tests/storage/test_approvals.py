from __future__ import annotations

from collections.abc import Callable

import pytest

from commands.approvals.workflow import update_policy
from storage import (
    Approval,
    ApprovalState,
    KindPolicy,
    Mode,
    Role,
    Storage,
    params_hash,
)
from storage.approvals import EXECUTION_LEASE
from storage.errors import (
    ApprovalExpiredError,
    ApprovalForbiddenError,
    ApprovalParamsMismatchError,
    ApprovalStateError,
    InvalidValueError,
    NotFoundError,
)
from tests.storage.conftest import FakeClock, decide, raw

T = "T1"
REQUESTER, ADMIN = "U_REQ", "U_ADMIN"
PARAMS = {"campaign_uuid": "c-1", "status": "running", "nested": {"b": 2, "a": [1, 2]}}


def _new(store: Storage) -> Approval:
    return store.approvals.create(T, "campaign.start", PARAMS, REQUESTER)


def _approve(store: Storage, a: Approval) -> Approval:
    return decide(store, T, a, decider=ADMIN)


def _deny(store: Storage, a: Approval) -> Approval:
    return decide(store, T, a, decider=ADMIN, approve=False)


def _cancel(store: Storage, a: Approval) -> Approval:
    return store.approvals.cancel(T, a.id, by=REQUESTER, by_role=Role.OPERATOR)


def _claim(store: Storage, a: Approval) -> Approval:
    return store.approvals.claim_for_execution(T, a.id)


def _finish_ok(store: Storage, a: Approval) -> Approval:
    return store.approvals.finish(T, a.id, ok=True, result={"ok": 1})


def _finish_failed(store: Storage, a: Approval) -> Approval:
    return store.approvals.finish(T, a.id, ok=False, result={"error": "boom"})


def _expire(store: Storage, a: Approval) -> Approval:
    expired = store.approvals.expire_due(T, now=a.expires_at + 1)
    if not expired:
        raise ApprovalStateError("nothing expired", store.approvals.require(T, a.id))
    return expired[0]


Op = Callable[[Storage, Approval], Approval]
OPS: dict[str, Op] = {
    "approve": _approve,
    "deny": _deny,
    "cancel": _cancel,
    "claim": _claim,
    "finish_ok": _finish_ok,
    "finish_failed": _finish_failed,
    "expire": _expire,
}

# How to bring a fresh request into each state.
PATHS: dict[ApprovalState, list[str]] = {
    ApprovalState.PENDING: [],
    ApprovalState.APPROVED: ["approve"],
    ApprovalState.DENIED: ["deny"],
    ApprovalState.CANCELLED: ["cancel"],
    ApprovalState.EXPIRED: ["expire"],
    ApprovalState.EXECUTING: ["approve", "claim"],
    ApprovalState.DONE: ["approve", "claim", "finish_ok"],
    ApprovalState.FAILED: ["approve", "claim", "finish_failed"],
}

LEGAL: dict[tuple[ApprovalState, str], ApprovalState] = {
    (ApprovalState.PENDING, "approve"): ApprovalState.APPROVED,
    (ApprovalState.PENDING, "deny"): ApprovalState.DENIED,
    (ApprovalState.PENDING, "cancel"): ApprovalState.CANCELLED,
    (ApprovalState.PENDING, "expire"): ApprovalState.EXPIRED,
    (ApprovalState.APPROVED, "claim"): ApprovalState.EXECUTING,
    (ApprovalState.EXECUTING, "finish_ok"): ApprovalState.DONE,
    (ApprovalState.EXECUTING, "finish_failed"): ApprovalState.FAILED,
}


def _in_state(store: Storage, state: ApprovalState) -> Approval:
    approval = _new(store)
    for step in PATHS[state]:
        approval = OPS[step](store, approval)
    assert approval.state is state
    return approval


@pytest.mark.parametrize("state", list(ApprovalState))
@pytest.mark.parametrize("op", list(OPS))
def test_every_transition_is_legal_or_refused_without_change(
    store: Storage, state: ApprovalState, op: str
) -> None:
    approval = _in_state(store, state)
    expected = LEGAL.get((state, op))
    if expected is not None:
        assert OPS[op](store, approval).state is expected
        assert store.approvals.require(T, approval.id).state is expected
    else:
        with pytest.raises(ApprovalStateError) as caught:
            OPS[op](store, approval)
        assert caught.value.approval.state is state
        assert store.approvals.require(T, approval.id) == approval


def test_the_lifecycle_records_who_and_when(store: Storage, clock: FakeClock) -> None:
    created = _new(store)
    assert created.state is ApprovalState.PENDING
    assert created.params == PARAMS and created.params_hash == params_hash(PARAMS)
    assert created.expires_at == clock() + 30 * 60
    assert "running" not in repr(created)  # parameters may hold secrets; keep them out of logs

    clock.advance(5)
    approved = _approve(store, created)
    assert (approved.decider, approved.decided_at) == (ADMIN, clock())
    clock.advance(5)
    claimed = _claim(store, approved)
    assert claimed.executed_at == clock() and claimed.params == PARAMS
    clock.advance(5)
    done = _finish_ok(store, claimed)
    assert done.finished_at == clock() and done.result == {"ok": 1}

    shown = store.approvals.attach_message(T, done.id, "C1", "1700000000.000100")
    assert (shown.channel, shown.message_ts) == ("C1", "1700000000.000100")


def test_the_loser_of_a_decision_is_told_who_won(store: Storage) -> None:
    approval = _new(store)
    _approve(store, approval)
    with pytest.raises(ApprovalStateError, match=f"already approved by {ADMIN}"):
        decide(store, T, approval, decider="U_OTHER", approve=False)


def test_claiming_returns_the_approved_parameters_exactly_once(store: Storage) -> None:
    approval = _approve(store, _new(store))
    assert _claim(store, approval).params == PARAMS
    with pytest.raises(ApprovalStateError, match="already running"):
        _claim(store, approval)


def test_a_tampered_row_is_not_executed(store: Storage) -> None:
    approval = _approve(store, _new(store))
    forged = store.box.encrypt('{"campaign_uuid":"c-2"}')
    raw(
        store.db,
        "UPDATE approvals SET params_enc = :p WHERE id = :id",
        {"p": forged, "id": approval.id},
    )
    with pytest.raises(ApprovalParamsMismatchError):
        _claim(store, approval)
    assert store.approvals.require(T, approval.id).state is ApprovalState.FAILED


def test_a_decision_on_other_parameters_is_refused(store: Storage) -> None:
    approval = _new(store)
    with pytest.raises(ApprovalParamsMismatchError):
        store.approvals.decide(
            T,
            approval.id,
            decider=ADMIN,
            decider_role=Role.ADMIN,
            approve=True,
            params_hash=params_hash({**PARAMS, "status": "stopped"}),
        )
    assert store.approvals.require(T, approval.id).state is ApprovalState.PENDING


@pytest.mark.parametrize(
    ("decider", "role", "approve", "message"),
    [
        (REQUESTER, Role.ADMIN, True, "someone else"),
        (REQUESTER, Role.ADMIN, False, "cancel it"),
        ("U_OP", Role.OPERATOR, True, "only an admin"),
        ("U_VIEW", Role.VIEWER, False, "only an admin"),
    ],
)
def test_deciders_the_policy_does_not_allow_are_refused(
    store: Storage, decider: str, role: Role, approve: bool, message: str
) -> None:
    approval = _new(store)
    with pytest.raises(ApprovalForbiddenError, match=message):
        decide(store, T, approval, decider=decider, role=role, approve=approve)
    assert store.approvals.require(T, approval.id).state is ApprovalState.PENDING


def test_the_policy_is_snapshotted_when_the_request_is_made(store: Storage) -> None:
    store.policies.set(T, "lead.upload", KindPolicy(Mode.APPROVAL, approvers=("U_NAMED",)))
    approval = store.approvals.create(T, "lead.upload", {"rows": 3}, REQUESTER)
    store.policies.reset(T, "lead.upload")  # back to "any admin"
    with pytest.raises(ApprovalForbiddenError):
        _approve(store, approval)
    decided = decide(store, T, approval, decider="U_NAMED", role=Role.VIEWER)
    assert decided.state is ApprovalState.APPROVED


def test_a_confirm_request_is_confirmed_by_its_requester_alone(store: Storage) -> None:
    approval = store.approvals.create(
        T, "campaign.pause", {"c": 1}, REQUESTER, policy=KindPolicy(Mode.CONFIRM)
    )
    with pytest.raises(ApprovalForbiddenError):
        _approve(store, approval)  # an admin who did not ask
    confirmed = decide(store, T, approval, decider=REQUESTER, role=Role.OPERATOR)
    assert confirmed.state is ApprovalState.APPROVED


def test_an_admin_may_cancel_someone_elses_request_but_an_operator_may_not(
    store: Storage,
) -> None:
    approval = _new(store)
    with pytest.raises(ApprovalForbiddenError):
        store.approvals.cancel(T, approval.id, by="U_OP", by_role=Role.OPERATOR)
    cancelled = store.approvals.cancel(T, approval.id, by=ADMIN, by_role=Role.ADMIN, reason="dup")
    assert (cancelled.state, cancelled.decider, cancelled.reason) == (
        ApprovalState.CANCELLED,
        ADMIN,
        "dup",
    )


def test_expiry_sweep_returns_only_overdue_pending_requests(
    store: Storage, clock: FakeClock
) -> None:
    update_policy(store.policies, T, "campaign.start", expiry_seconds=60)
    early = _new(store)
    clock.advance(30)
    late = _new(store)
    decided = _approve(store, _new(store))

    assert store.approvals.expire_due(T) == []
    clock.advance(31)  # early is overdue, late is not
    expired = store.approvals.expire_due(T)
    assert [a.id for a in expired] == [early.id]
    assert expired[0].state is ApprovalState.EXPIRED
    assert store.approvals.require(T, late.id).state is ApprovalState.PENDING
    assert store.approvals.require(T, decided.id).state is ApprovalState.APPROVED
    assert store.approvals.teams_with_pending() == [T]
    assert store.approvals.expire_due(T) == []


def test_deciding_an_overdue_request_expires_it_instead(store: Storage, clock: FakeClock) -> None:
    approval = _new(store)
    clock.advance(30 * 60)
    with pytest.raises(ApprovalExpiredError) as caught:
        _approve(store, approval)
    assert caught.value.approval.state is ApprovalState.EXPIRED
    assert store.approvals.require(T, approval.id).state is ApprovalState.EXPIRED


def test_listing_filters_by_state_newest_first(store: Storage, clock: FakeClock) -> None:
    first = _new(store)
    clock.advance(1)
    second = _approve(store, _new(store))
    assert [a.id for a in store.approvals.list(T)] == [second.id, first.id]
    assert [a.id for a in store.approvals.list(T, states=[ApprovalState.PENDING])] == [first.id]


def test_unknown_requests_and_non_json_params_are_refused(store: Storage) -> None:
    with pytest.raises(NotFoundError):
        store.approvals.claim_for_execution(T, "nope")
    with pytest.raises(InvalidValueError):
        store.approvals.create(T, "campaign.start", {"x": object()}, REQUESTER)


def test_parameters_hash_the_same_whatever_the_key_order() -> None:
    assert params_hash({"a": 1, "b": [1, {"y": 2, "x": 1}]}) == params_hash(
        {"b": [1, {"x": 1, "y": 2}], "a": 1}
    )


def test_a_run_out_lease_marks_an_execution_abandoned_and_renewal_keeps_it(
    store: Storage, clock: FakeClock
) -> None:
    running = _claim(store, _approve(store, _new(store)))
    assert running.lease_until == clock() + EXECUTION_LEASE
    clock.advance(EXECUTION_LEASE - 1)
    assert store.approvals.abandoned(approved_grace=120) == []
    assert store.approvals.renew_execution(T, running.id)  # the running process is alive
    clock.advance(EXECUTION_LEASE - 1)
    assert store.approvals.abandoned(approved_grace=120) == []
    clock.advance(2)  # no renewal any more: its process is gone
    [left] = store.approvals.abandoned(approved_grace=120)
    assert (left.id, left.state) == (running.id, ApprovalState.EXECUTING)
    settled = store.approvals.finish_abandoned(T, running.id, ok=False, result={"unknown": True})
    assert settled.state is ApprovalState.FAILED and settled.lease_until is None
    assert not store.approvals.renew_execution(T, running.id)
    with pytest.raises(ApprovalStateError):
        _finish_ok(store, running)  # a late finish cannot overwrite the recorded outcome


def test_a_live_execution_cannot_be_settled_as_abandoned(store: Storage) -> None:
    running = _claim(store, _approve(store, _new(store)))
    with pytest.raises(ApprovalStateError, match="already running"):
        store.approvals.finish_abandoned(T, running.id, ok=True)
    assert _finish_ok(store, running).state is ApprovalState.DONE


def test_an_approval_never_claimed_is_abandoned_after_the_grace(
    store: Storage, clock: FakeClock
) -> None:
    approved = _approve(store, _new(store))
    clock.advance(119)
    assert store.approvals.abandoned(approved_grace=120) == []
    clock.advance(1)
    [left] = store.approvals.abandoned(approved_grace=120)
    assert (left.id, left.state) == (approved.id, ApprovalState.APPROVED)
