"""Approval policy per workspace: for each kind of risky action, what it takes to run it.

The store keeps what an admin set, by kind; the kinds themselves and their defaults are
declared with the actions, each in its family (``ActionSpec.policy``).
"""

from __future__ import annotations

import json
from dataclasses import KW_ONLY, dataclass
from enum import StrEnum
from typing import Any, Literal

from sqlalchemy import bindparam, delete, select
from sqlalchemy.engine import RowMapping

from storage._rows import Store
from storage.database import upsert
from storage.errors import N_, InvalidValueError
from storage.roles import Role
from storage.schema import approval_policies

_P = approval_policies.c
_TEAM = _P.team_id == bindparam("team_id")
_GET = select(approval_policies).where(_TEAM, _P.kind == bindparam("kind"))
_ALL = select(approval_policies).where(_TEAM)
_RESET = delete(approval_policies).where(_TEAM, _P.kind == bindparam("kind"))
_SET = upsert(approval_policies)


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


def may_decide(
    approvers: Approvers,
    decider: str,
    decider_role: Role,
    requester: str,
    *,
    allow_self_approval: bool,
) -> str | None:
    """None if ``decider`` may decide; else the reason, phrased for the decider (in
    English, marked for the catalog: shown translated, ``_(reason)``)."""
    if decider == requester and not allow_self_approval:
        return N_("you asked for this action, so someone else has to approve it")
    if approvers == ADMINS:
        if decider_role is not Role.ADMIN:
            return N_("only an admin of this workspace may approve this")
        return None
    if decider not in approvers:
        return N_("you are not one of the approvers named for this action")
    return None


def approvers_to_json(approvers: Approvers) -> str:
    return json.dumps(approvers if approvers == ADMINS else list(approvers))


def approvers_from_json(text: str) -> Approvers:
    value: Any = json.loads(text)
    if value == ADMINS:
        return ADMINS
    return tuple(str(v) for v in value)


class PolicyStore(Store):
    """The policies a workspace's admins set, by kind (a plain string: the kinds and
    their defaults are the commands' business, not the store's)."""

    def stored(self, team_id: str, kind: str) -> KindPolicy | None:
        """The policy an admin set for ``kind``, or None when it was never set."""
        row = self._db.first(_GET, {"team_id": team_id, "kind": str(kind)})
        return _policy(row) if row else None

    def overrides(self, team_id: str) -> dict[str, KindPolicy]:
        """Every policy an admin set in the workspace, by kind."""
        return {row["kind"]: _policy(row) for row in self._db.all(_ALL, {"team_id": team_id})}

    def set(
        self,
        team_id: str,
        kind: str,
        policy: KindPolicy,
        *,
        updated_by: str | None = None,
    ) -> None:
        self._db.change(
            self._db.pick(_SET),
            {
                "team_id": team_id,
                "kind": str(kind),
                "mode": policy.mode.value,
                "approvers": approvers_to_json(policy.approvers),
                "allow_self_approval": int(policy.allow_self_approval),
                "expiry_seconds": policy.expiry_seconds,
                "min_role": policy.min_role.value,
                "updated_by": updated_by,
                "updated_at": self._clock(),
            },
        )

    def reset(self, team_id: str, kind: str) -> None:
        self._db.change(_RESET, {"team_id": team_id, "kind": str(kind)})


def _policy(row: RowMapping) -> KindPolicy:
    return KindPolicy(
        mode=Mode(row["mode"]),
        approvers=approvers_from_json(row["approvers"]),
        allow_self_approval=bool(row["allow_self_approval"]),
        expiry_seconds=int(row["expiry_seconds"]),
        min_role=Role(row["min_role"]),
    )
