"""Approval policy per workspace: for each kind of risky action, what it takes to run it.

Defaults follow DESIGN.md: changes that make calls or change who/what dials (start, autocall
push, lead insert and upload, group and user changes, attaching callbacks) need one approval
by an admin who is not the requester; pause, stop and transfer only stop dialing or are
time-critical, so a confirm by the requester is enough; "pause all" is the emergency brake any
operator can pull with one confirm. `lead.insert` needs approval like `lead.upload`: one lead
is one real customer the dialer will call. `notify.route` only decides which Slack channel
hears about calls (nothing changes on the phone system), so it needs no confirmation.
`notify.rotate` (a new callback URL, and the campaigns that used the old one pointed at
it again) needs the requesting admin's confirm: it restores callbacks that were already
attached, and it is the fix when the URL has leaked.
"""

from __future__ import annotations

import json
from dataclasses import KW_ONLY, dataclass, replace
from enum import StrEnum
from typing import Any, Literal

from sqlalchemy import bindparam, delete, select
from sqlalchemy.engine import RowMapping
from sqlalchemy.sql import Executable

from storage.clock import Clock, system_clock
from storage.database import Database, InsertFactory, by_dialect
from storage.errors import N_, InvalidValueError
from storage.roles import Role
from storage.schema import approval_policies

_P = approval_policies.c
_TEAM = _P.team_id == bindparam("team_id")
_GET = select(approval_policies).where(_TEAM, _P.kind == bindparam("kind"))
_ALL = select(approval_policies).where(_TEAM)
_RESET = delete(approval_policies).where(_TEAM, _P.kind == bindparam("kind"))


def _set(insert: InsertFactory) -> Executable:
    statement = insert(approval_policies)
    kept = ("team_id", "kind")
    return statement.on_conflict_do_update(
        index_elements=[_P.team_id, _P.kind],
        set_={c.name: c for c in statement.excluded if c.name not in kept},
    )


_SET = by_dialect(_set)


class ActionKind(StrEnum):
    CAMPAIGN_START = "campaign.start"
    CAMPAIGN_PAUSE = "campaign.pause"
    CAMPAIGN_STOP = "campaign.stop"
    CAMPAIGN_PAUSE_ALL = "campaign.pause_all"
    CALL_TRANSFER = "call.transfer"
    AUTOCALL_PUSH = "autocall.push"
    LEAD_INSERT = "lead.insert"
    LEAD_UPLOAD = "lead.upload"
    GROUP_CREATE = "group.create"
    GROUP_UPDATE = "group.update"
    USER_UPDATE = "user.update"
    NOTIFY_ATTACH = "notify.attach"
    NOTIFY_ROTATE = "notify.rotate"
    NOTIFY_ROUTE = "notify.route"


_KIND_VALUES = frozenset(kind.value for kind in ActionKind)


class Mode(StrEnum):
    APPROVAL = "approval"
    """Someone other than the requester (unless self-approval is allowed) must approve."""
    CONFIRM = "confirm"
    """The requester confirms once; no second person."""
    NONE = "none"


ADMINS: Literal["admins"] = "admins"
Approvers = Literal["admins"] | tuple[str, ...]
"""Who may approve: any admin of the workspace, or exactly these Slack user ids."""

DEFAULT_EXPIRY_SECONDS = 30 * 60


@dataclass(frozen=True)
class KindPolicy:
    mode: Mode
    _: KW_ONLY
    approvers: Approvers = ADMINS
    allow_self_approval: bool = False
    expiry_seconds: int = DEFAULT_EXPIRY_SECONDS
    min_role: Role = Role.OPERATOR
    """The least role that may request the action at all."""

    def __post_init__(self) -> None:
        if self.expiry_seconds <= 0:
            raise InvalidValueError(N_("an approval expiry must be a positive number of seconds"))
        if self.approvers != ADMINS and (
            not isinstance(self.approvers, tuple) or not self.approvers
        ):
            raise InvalidValueError(
                N_("approvers must be 'admins' or a non-empty list of user ids")
            )

    def may_approve(self, decider: str, decider_role: Role, requester: str) -> str | None:
        """None if `decider` may decide; else the reason, phrased for the decider (in
        English, marked for the catalog: shown translated, ``_(reason)``)."""
        return may_decide(
            self.approvers,
            decider,
            decider_role,
            requester,
            allow_self_approval=self.allow_self_approval,
        )


def may_decide(
    approvers: Approvers,
    decider: str,
    decider_role: Role,
    requester: str,
    *,
    allow_self_approval: bool,
) -> str | None:
    if decider == requester and not allow_self_approval:
        return N_("you asked for this action, so someone else has to approve it")
    if approvers == ADMINS:
        if decider_role is not Role.ADMIN:
            return N_("only an admin of this workspace may approve this")
        return None
    if decider not in approvers:
        return N_("you are not one of the approvers named for this action")
    return None


_APPROVAL = KindPolicy(Mode.APPROVAL)
_CONFIRM = KindPolicy(Mode.CONFIRM)

DEFAULT_POLICY: dict[ActionKind, KindPolicy] = {
    ActionKind.CAMPAIGN_START: _APPROVAL,
    ActionKind.CAMPAIGN_PAUSE: _CONFIRM,
    ActionKind.CAMPAIGN_STOP: _CONFIRM,
    ActionKind.CAMPAIGN_PAUSE_ALL: _CONFIRM,
    ActionKind.CALL_TRANSFER: _CONFIRM,
    ActionKind.AUTOCALL_PUSH: _APPROVAL,
    ActionKind.LEAD_INSERT: _APPROVAL,
    ActionKind.LEAD_UPLOAD: _APPROVAL,
    ActionKind.GROUP_CREATE: _APPROVAL,
    ActionKind.GROUP_UPDATE: _APPROVAL,
    ActionKind.USER_UPDATE: _APPROVAL,
    ActionKind.NOTIFY_ATTACH: _APPROVAL,
    ActionKind.NOTIFY_ROTATE: _CONFIRM,
    ActionKind.NOTIFY_ROUTE: KindPolicy(Mode.NONE),
}


def approvers_to_json(approvers: Approvers) -> str:
    return json.dumps(approvers if approvers == ADMINS else list(approvers))


def approvers_from_json(text: str) -> Approvers:
    value: Any = json.loads(text)
    if value == ADMINS:
        return ADMINS
    return tuple(str(v) for v in value)


class PolicyStore:
    """Stored overrides on top of DEFAULT_POLICY; a kind never set uses its default."""

    def __init__(self, db: Database, *, clock: Clock = system_clock) -> None:
        self._db = db
        self._clock = clock

    def get(self, team_id: str, kind: ActionKind) -> KindPolicy:
        kind = ActionKind(kind)
        row = self._db.first(_GET, {"team_id": team_id, "kind": kind.value})
        return _policy(row) if row else DEFAULT_POLICY[kind]

    def all(self, team_id: str) -> dict[ActionKind, KindPolicy]:
        merged = dict(DEFAULT_POLICY)
        for row in self._db.all(_ALL, {"team_id": team_id}):
            if row["kind"] in _KIND_VALUES:
                merged[ActionKind(row["kind"])] = _policy(row)
        return merged

    def set(
        self,
        team_id: str,
        kind: ActionKind,
        policy: KindPolicy,
        *,
        updated_by: str | None = None,
    ) -> None:
        self._db.change(
            self._db.pick(_SET),
            {
                "team_id": team_id,
                "kind": ActionKind(kind).value,
                "mode": policy.mode.value,
                "approvers": approvers_to_json(policy.approvers),
                "allow_self_approval": int(policy.allow_self_approval),
                "expiry_seconds": policy.expiry_seconds,
                "min_role": policy.min_role.value,
                "updated_by": updated_by,
                "updated_at": self._clock(),
            },
        )

    def update(
        self, team_id: str, kind: ActionKind, *, updated_by: str | None = None, **changes: Any
    ) -> KindPolicy:
        """Change some fields of a kind's policy (e.g. ``expiry_seconds=600``)."""
        policy = replace(self.get(team_id, kind), **changes)
        self.set(team_id, kind, policy, updated_by=updated_by)
        return policy

    def reset(self, team_id: str, kind: ActionKind) -> None:
        self._db.change(_RESET, {"team_id": team_id, "kind": ActionKind(kind).value})


def _policy(row: RowMapping) -> KindPolicy:
    return KindPolicy(
        mode=Mode(row["mode"]),
        approvers=approvers_from_json(row["approvers"]),
        allow_self_approval=bool(row["allow_self_approval"]),
        expiry_seconds=int(row["expiry_seconds"]),
        min_role=Role(row["min_role"]),
    )
