"""Who may do what in a workspace: admin > operator > viewer, fail closed to viewer."""

from __future__ import annotations

import logging
from enum import StrEnum

from sqlalchemy import bindparam, select
from sqlalchemy.engine import Connection

from storage._rows import Store
from storage.database import upsert
from storage.errors import N_, InvalidValueError
from storage.schema import roles
from storage.validation import check_id

log = logging.getLogger(__name__)


class Role(StrEnum):
    ADMIN = "admin"
    OPERATOR = "operator"
    VIEWER = "viewer"

    def at_least(self, other: Role) -> bool:
        return _RANK[self] >= _RANK[other]

    @classmethod
    def parse(cls, text: str) -> Role:
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise InvalidValueError(
                N_("unknown role {role}: use admin, operator or viewer"), role=repr(text)
            ) from None


_RANK = {Role.VIEWER: 0, Role.OPERATOR: 1, Role.ADMIN: 2}

DEFAULT_ROLE = Role.VIEWER
"""Users nobody gave a role can look but not act (fail closed)."""

WORKFLOWS = "workflows"
"""The reserved id under which the role of workflow steps run without a person
(scheduled, event-triggered, started by a webhook) is stored, beside people's roles:
Slack's user ids are upper case, so no person can have it, and an unset role is the
default (viewer) as for anyone."""


def effective_role(stored: Role | None, *, is_workspace_admin: bool, is_env_admin: bool) -> Role:
    """The one rule for a person's role: Slack workspace admins/owners and CALLOPS_ADMINS
    are admins whatever is stored; otherwise the stored role, else the default (viewer)."""
    if is_workspace_admin or is_env_admin:
        return Role.ADMIN
    return stored or DEFAULT_ROLE


_R = roles.c
_STORED = select(_R.role).where(
    _R.team_id == bindparam("team_id"), _R.user_id == bindparam("user_id")
)
_LIST = select(_R.user_id, _R.role).where(_R.team_id == bindparam("team_id")).order_by(_R.user_id)
_SET = upsert(roles, "role", "granted_by", "updated_at")


class RoleStore(Store):
    def stored_role(self, team_id: str, user_id: str) -> Role | None:
        value = self._db.scalar(_STORED, {"team_id": team_id, "user_id": user_id})
        return Role(value) if value else None

    def set_role(
        self, team_id: str, user_id: str, role: Role, *, granted_by: str | None = None
    ) -> None:
        self._db.write(
            lambda conn: self.set_role_in(conn, team_id, user_id, role, granted_by=granted_by)
        )
        log.info("team %s: user %s is now %s", team_id, user_id, Role(role).value)

    def set_role_in(
        self,
        conn: Connection,
        team_id: str,
        user_id: str,
        role: Role,
        *,
        granted_by: str | None = None,
    ) -> None:
        """`set_role` inside the caller's transaction."""
        conn.execute(
            self._db.pick(_SET),
            {
                "team_id": check_id(team_id, "team id"),
                "user_id": check_id(user_id, "user id"),
                "role": Role(role).value,
                "granted_by": granted_by,
                "updated_at": self._clock(),
            },
        )

    def list_roles(self, team_id: str) -> dict[str, Role]:
        rows = self._db.all(_LIST, {"team_id": team_id})
        return {row["user_id"]: Role(row["role"]) for row in rows}
