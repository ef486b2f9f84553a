"""Approvals: a request to run one risky action, and the state machine that runs it once.

    pending -> approved -> executing -> done | failed
    pending -> denied | expired | cancelled

The process that runs an approved action holds it by a lease (``lease_until``) that it
renews while the action runs; ``abandoned`` finds the rows a dead process left behind
(executing with the lease run out, or approved and never claimed) and
``finish_abandoned`` settles one with a compare-and-set on the run-out lease, so a live
process that renewed in time always wins.

Every transition is one compare-and-set ``UPDATE ... WHERE id = ? AND state = ?``: SQLite
serialises writers across processes, and PostgreSQL makes the second writer wait for the
first's row lock and then re-check the WHERE against the committed row, so on either engine
of two people clicking at the same moment exactly one sees rowcount 1 and the other is told
who was first. The parameters are stored encrypted (a
user change can carry a password; leads carry phone numbers) with a SHA-256 of their canonical
JSON: the decider's card carries the hash it showed, and `claim_for_execution` hands back
exactly the stored parameters that were approved. Who may decide is snapshotted from the
policy when the request is made, so a later policy edit does not change a pending request.
"""

from __future__ import annotations

import builtins
import hashlib
import json
import logging
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from sqlalchemy import and_, bindparam, func, insert, or_, select, update
from sqlalchemy.engine import RowMapping
from sqlalchemy.sql import Executable

from storage._rows import SealedStore, from_row, not_in_workspace, required
from storage.clock import Clock, system_clock
from storage.database import Database
from storage.errors import (
    N_,
    ApprovalExpiredError,
    ApprovalForbiddenError,
    ApprovalParamsMismatchError,
    ApprovalStateError,
    InvalidValueError,
)
from storage.policy import (
    Approvers,
    KindPolicy,
    Mode,
    PolicyStore,
    approvers_from_json,
    approvers_to_json,
    may_decide,
)
from storage.roles import Role
from storage.schema import approvals
from storage.secrets import SecretBox

log = logging.getLogger(__name__)

EXECUTION_LEASE = 20.0
"""Seconds an executing request belongs to the process that claimed it, unless renewed."""

_A = approvals.c
_THIS = (_A.team_id == bindparam("team"), _A.id == bindparam("approval"))
"""Bind names differ from column names: SQLAlchemy keeps those for SET values."""
_PENDING = "pending"

_GET = select(approvals).where(*_THIS)
_TEAMS_WITH_PENDING = select(_A.team_id).distinct().where(_A.state == _PENDING).order_by(_A.team_id)
_BY_STATE = select(_A.state, func.count().label("n")).group_by(_A.state)
_CREATE = insert(approvals)
_ATTACH = (
    update(approvals)
    .where(*_THIS)
    .values(channel=bindparam("in_channel"), message_ts=bindparam("at_ts"))
)
_DECIDE = (
    update(approvals)
    .where(
        *_THIS,
        _A.state == _PENDING,
        _A.params_hash == bindparam("expected_hash"),
        _A.expires_at > bindparam("now"),
    )
    .values(
        state=bindparam("new_state"),
        decider=bindparam("by"),
        reason=bindparam("why"),
        decided_at=bindparam("now"),
    )
)
_CANCEL = (
    update(approvals)
    .where(*_THIS, _A.state == _PENDING)
    .values(
        state="cancelled",
        decider=bindparam("by"),
        reason=bindparam("why"),
        decided_at=bindparam("now"),
    )
)
_CLAIM = (
    update(approvals)
    .where(*_THIS, _A.state == "approved")
    .values(state="executing", executed_at=bindparam("now"), lease_until=bindparam("lease"))
)
_RENEW = (
    update(approvals).where(*_THIS, _A.state == "executing").values(lease_until=bindparam("lease"))
)
_SETTLE: dict[str, Any] = {
    "state": bindparam("new_state"),
    "finished_at": bindparam("now"),
    "result": bindparam("outcome"),
    "lease_until": None,
}
_FINISH = update(approvals).where(*_THIS, _A.state == "executing").values(_SETTLE)
# A row is left behind when its lease ran out; a row claimed before leases existed (no
# lease_until) counts from its claim.
_RUN_OUT = func.coalesce(_A.lease_until, _A.executed_at + EXECUTION_LEASE) <= bindparam("now")
_FINISH_ABANDONED = (
    update(approvals).where(*_THIS, _A.state == "executing", _RUN_OUT).values(_SETTLE)
)
_ABANDONED = (
    select(approvals)
    .where(
        or_(
            and_(_A.state == "executing", _RUN_OUT),
            and_(_A.state == "approved", _A.decided_at <= bindparam("approved_before")),
        )
    )
    .order_by(_A.created_at, _A.id)
)
_EXPIRE_ONE = (
    update(approvals)
    .where(*_THIS, _A.state == _PENDING, _A.expires_at <= bindparam("now"))
    .values(state="expired", decided_at=bindparam("now"))
)
_EXPIRE_DUE = (
    update(approvals)
    .where(
        _A.team_id == bindparam("team"),
        _A.state == _PENDING,
        _A.expires_at <= bindparam("now"),
    )
    .values(state="expired", decided_at=bindparam("now"))
    .returning(_A.id)
)


class ApprovalState(StrEnum):
    PENDING = "pending"
    APPROVED = "approved"
    EXECUTING = "executing"
    DONE = "done"
    FAILED = "failed"
    DENIED = "denied"
    EXPIRED = "expired"
    CANCELLED = "cancelled"

    @property
    def is_final(self) -> bool:
        return self not in (ApprovalState.PENDING, ApprovalState.APPROVED, ApprovalState.EXECUTING)


def canonical_json(params: Mapping[str, Any]) -> str:
    """One text per parameter set: sorted keys, no spaces, so equal params hash equally."""
    try:
        return json.dumps(
            params, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
    except (TypeError, ValueError) as exc:
        raise InvalidValueError(f"approval parameters must be plain JSON data: {exc}") from None


def params_hash(params: Mapping[str, Any]) -> str:
    return hashlib.sha256(canonical_json(params).encode()).hexdigest()


@dataclass(frozen=True, kw_only=True)
class Approval:
    id: str
    team_id: str
    kind: str
    """The action's kind (``campaign.start``): the commands declare the kinds."""
    params: dict[str, Any] = field(repr=False)
    params_hash: str
    approvers: Approvers
    allow_self_approval: bool
    requester: str
    decider: str | None
    reason: str | None
    state: ApprovalState
    created_at: float
    decided_at: float | None
    executed_at: float | None
    finished_at: float | None
    expires_at: float
    channel: str | None
    message_ts: str | None
    result: Any = None
    lease_until: float | None = None
    """While executing: until when the running process holds it (it renews the lease)."""


class ApprovalStore(SealedStore):
    def __init__(
        self, db: Database, box: SecretBox, policies: PolicyStore, *, clock: Clock = system_clock
    ) -> None:
        super().__init__(db, box, clock=clock)
        self._policies = policies

    # -- reading -----------------------------------------------------------------------

    def get(self, team_id: str, approval_id: str) -> Approval | None:
        row = self._db.first(_GET, {"team": team_id, "approval": approval_id})
        return self._approval(row) if row else None

    def require(self, team_id: str, approval_id: str) -> Approval:
        return required(self.get(team_id, approval_id), "approval request", approval_id)

    def list(
        self,
        team_id: str,
        *,
        states: Iterable[ApprovalState] | None = None,
        limit: int = 50,
    ) -> list[Approval]:
        """Newest first."""
        query = select(approvals).where(_A.team_id == team_id)
        if states is not None:
            query = query.where(_A.state.in_([ApprovalState(s).value for s in states]))
        query = query.order_by(_A.created_at.desc(), _A.id).limit(limit)
        return [self._approval(row) for row in self._db.all(query)]

    def teams_with_pending(self) -> builtins.list[str]:
        """Team ids that have pending requests (only ids: the expiry sweep visits each team)."""
        rows = self._db.all(_TEAMS_WITH_PENDING)
        return [r["team_id"] for r in rows]

    def count_by_state(self) -> dict[ApprovalState, int]:
        """Requests of every workspace by state, each state present (0 when none)."""
        counts = dict.fromkeys(ApprovalState, 0)
        for row in self._db.all(_BY_STATE):
            counts[ApprovalState(row["state"])] = int(row["n"])
        return counts

    # -- transitions ---------------------------------------------------------------------

    def create(
        self,
        team_id: str,
        kind: str,
        params: Mapping[str, Any],
        requester: str,
        *,
        policy: KindPolicy | None = None,
        channel: str | None = None,
    ) -> Approval:
        """A new pending request. A confirm-mode request is decided by its requester alone.
        Without ``policy``, what an admin set for the kind, else one approval by an admin
        (the store does not know the kinds' defaults, so it fails closed)."""
        kind = str(kind)
        rule = policy or self._policies.stored(team_id, kind) or KindPolicy(Mode.APPROVAL)
        approvers: Approvers = rule.approvers
        allow_self = rule.allow_self_approval
        if rule.mode is not Mode.APPROVAL:
            approvers, allow_self = (requester,), True
        text = canonical_json(params)
        digest = hashlib.sha256(text.encode()).hexdigest()
        now = self._clock()
        approval_id = secrets.token_urlsafe(9)
        self._db.change(
            _CREATE,
            {
                "id": approval_id,
                "team_id": team_id,
                "kind": kind,
                "params_enc": self._box.encrypt(text),
                "params_hash": digest,
                "approvers": approvers_to_json(approvers),
                "allow_self_approval": int(allow_self),
                "requester": requester,
                "state": _PENDING,
                "created_at": now,
                "expires_at": now + rule.expiry_seconds,
                "channel": channel,
            },
        )
        log.info("team %s: approval %s requested for %s", team_id, approval_id, kind)
        return self.require(team_id, approval_id)

    def attach_message(
        self, team_id: str, approval_id: str, channel: str, message_ts: str
    ) -> Approval:
        """Remember the Slack message that shows this request, to update it on every move."""
        changed = self._db.change(
            _ATTACH,
            {"team": team_id, "approval": approval_id, "in_channel": channel, "at_ts": message_ts},
        )
        if changed != 1:
            raise not_in_workspace("approval request", approval_id)
        return self.require(team_id, approval_id)

    def decide(
        self,
        team_id: str,
        approval_id: str,
        *,
        decider: str,
        decider_role: Role,
        approve: bool,
        params_hash: str,
        reason: str | None = None,
    ) -> Approval:
        """Approve or deny a pending request; exactly one of concurrent deciders wins.

        Raises ApprovalStateError (not pending any more: someone was first),
        ApprovalExpiredError (overdue: it is expired now), ApprovalParamsMismatchError (the
        card showed other parameters), ApprovalForbiddenError (policy says no).
        """
        current = self.require(team_id, approval_id)
        now = self._clock()
        self._check_pending(current)
        if now >= current.expires_at:
            raise ApprovalExpiredError(
                "this request expired before it was decided", self._expire(current, now)
            )
        if params_hash != current.params_hash:
            raise ApprovalParamsMismatchError(
                N_("the parameters shown to you are not the ones requested; nothing was decided"),
                current,
            )
        refusal = self._refusal(current, decider, Role(decider_role), approve=approve)
        if refusal:
            raise ApprovalForbiddenError(refusal, current)
        target = ApprovalState.APPROVED if approve else ApprovalState.DENIED
        changed = self._db.change(
            _DECIDE,
            {
                "team": team_id,
                "approval": approval_id,
                "expected_hash": params_hash,
                "now": now,
                "new_state": target.value,
                "by": decider,
                "why": reason,
            },
        )
        if changed != 1:
            raise self._lost(team_id, approval_id, now)
        log.info("team %s: approval %s %s by %s", team_id, approval_id, target.value, decider)
        return self.require(team_id, approval_id)

    def cancel(
        self,
        team_id: str,
        approval_id: str,
        *,
        by: str,
        by_role: Role,
        reason: str | None = None,
    ) -> Approval:
        """Withdraw a pending request: its requester, or an admin, may."""
        current = self.require(team_id, approval_id)
        now = self._clock()
        self._check_pending(current)
        if by != current.requester and Role(by_role) is not Role.ADMIN:
            raise ApprovalForbiddenError(
                N_("only the requester or an admin may cancel this request"), current
            )
        changed = self._db.change(
            _CANCEL,
            {"team": team_id, "approval": approval_id, "by": by, "why": reason, "now": now},
        )
        if changed != 1:
            raise self._lost(team_id, approval_id, now)
        log.info("team %s: approval %s cancelled by %s", team_id, approval_id, by)
        return self.require(team_id, approval_id)

    def claim_for_execution(
        self, team_id: str, approval_id: str, *, lease_seconds: float = EXECUTION_LEASE
    ) -> Approval:
        """approved -> executing, once: the winner gets the exact parameters that were
        approved, and holds the request for ``lease_seconds`` (``renew_execution``)."""
        now = self._clock()
        changed = self._db.change(
            _CLAIM,
            {"team": team_id, "approval": approval_id, "now": now, "lease": now + lease_seconds},
        )
        claimed = self.require(team_id, approval_id)
        if changed != 1:
            raise ApprovalStateError(_state_message(claimed, "run"), claimed)
        if params_hash(claimed.params) != claimed.params_hash:
            # Only possible if the row was edited behind our back: refuse to act on it.
            self.finish(team_id, approval_id, ok=False, result={"error": "parameters altered"})
            raise ApprovalParamsMismatchError(
                "the stored parameters no longer match what was approved; not running it",
                self.require(team_id, approval_id),
            )
        log.info("team %s: approval %s executing", team_id, approval_id)
        return claimed

    def renew_execution(
        self, team_id: str, approval_id: str, *, lease_seconds: float = EXECUTION_LEASE
    ) -> bool:
        """The running process still holds this request; False once it is settled."""
        lease = self._clock() + lease_seconds
        return (
            self._db.change(_RENEW, {"team": team_id, "approval": approval_id, "lease": lease}) == 1
        )

    def finish(self, team_id: str, approval_id: str, *, ok: bool, result: Any = None) -> Approval:
        """executing -> done | failed, with the outcome the Slack card will show."""
        finished = self._settle(_FINISH, team_id, approval_id, ok, result, "finish")
        log.info("team %s: approval %s %s", team_id, approval_id, finished.state.value)
        return finished

    def abandoned(self, *, approved_grace: float) -> builtins.list[Approval]:
        """Requests of every team that a dead process left behind, oldest first: executing
        with the lease run out, or approved more than ``approved_grace`` seconds ago and
        never claimed (a live process claims within moments of the approval)."""
        now = self._clock()
        rows = self._db.all(_ABANDONED, {"now": now, "approved_before": now - approved_grace})
        return [self._approval(row) for row in rows]

    def finish_abandoned(
        self, team_id: str, approval_id: str, *, ok: bool, result: Any = None
    ) -> Approval:
        """executing -> done | failed for a request whose lease ran out (its process is
        gone): the outcome recovery found.  Raises ApprovalStateError when the request
        was settled meanwhile or its process renewed the lease after all."""
        settled = self._settle(_FINISH_ABANDONED, team_id, approval_id, ok, result, "settle")
        log.info(
            "team %s: abandoned approval %s settled as %s", team_id, approval_id, settled.state
        )
        return settled

    def expire_due(self, team_id: str, now: float | None = None) -> builtins.list[Approval]:
        """Move this team's overdue pending requests to expired; returns them (to update cards)."""
        moment = self._clock() if now is None else now
        ids: builtins.list[str] = self._db.write(
            lambda conn: list(conn.execute(_EXPIRE_DUE, {"team": team_id, "now": moment}).scalars())
        )
        if ids:
            log.info("team %s: %d approval(s) expired", team_id, len(ids))
        return [self.require(team_id, i) for i in sorted(ids)]

    # -- helpers -------------------------------------------------------------------------

    def _settle(
        self,
        statement: Executable,
        team_id: str,
        approval_id: str,
        ok: bool,
        result: Any,
        verb: str,
    ) -> Approval:
        """executing -> done | failed by ``statement``; raises if it was not executing."""
        target = ApprovalState.DONE if ok else ApprovalState.FAILED
        values = {"team": team_id, "approval": approval_id, "new_state": target.value}
        changed = self._db.change(
            statement, {**values, "now": self._clock(), "outcome": json.dumps(result)}
        )
        settled = self.require(team_id, approval_id)
        if changed != 1:
            raise ApprovalStateError(_state_message(settled, verb), settled)
        return settled

    def _refusal(self, current: Approval, decider: str, role: Role, *, approve: bool) -> str | None:
        if not approve and decider == current.requester and not current.allow_self_approval:
            return N_("you asked for this action: cancel it instead of denying it")
        return may_decide(
            current.approvers,
            decider,
            role,
            current.requester,
            allow_self_approval=current.allow_self_approval,
        )

    def _check_pending(self, current: Approval) -> None:
        if current.state is not ApprovalState.PENDING:
            raise ApprovalStateError(_state_message(current, "decide"), current)

    def _expire(self, current: Approval, now: float) -> Approval:
        self._db.change(_EXPIRE_ONE, {"team": current.team_id, "approval": current.id, "now": now})
        return self.require(current.team_id, current.id)

    def _lost(self, team_id: str, approval_id: str, now: float) -> ApprovalStateError:
        current = self.require(team_id, approval_id)
        if current.state is ApprovalState.PENDING and now >= current.expires_at:
            current = self._expire(current, now)
        return ApprovalStateError(_state_message(current, "decide"), current)

    def _approval(self, row: RowMapping) -> Approval:
        return from_row(
            Approval,
            row,
            params=json.loads(self._box.decrypt(row["params_enc"])),
            approvers=approvers_from_json(row["approvers"]),
            state=ApprovalState(row["state"]),
            result=None if row["result"] is None else json.loads(row["result"]),
        )


def _state_message(approval: Approval, verb: str) -> str:
    who = f" by {approval.decider}" if approval.decider else ""
    state = approval.state
    if state is ApprovalState.PENDING:
        return f"cannot {verb} it: it has not been approved yet"
    if state in (ApprovalState.APPROVED, ApprovalState.DENIED, ApprovalState.CANCELLED):
        return f"cannot {verb} it: it was already {state.value}{who}"
    if state is ApprovalState.EXPIRED:
        return f"cannot {verb} it: it expired"
    if state is ApprovalState.EXECUTING:
        return f"cannot {verb} it: it is already running"
    return f"cannot {verb} it: it already ran ({state.value})"
