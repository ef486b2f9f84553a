"""Who may do what in a workspace: admin > operator > viewer, fail closed to viewer."""

from __future__ import annotations

import logging
from enum import StrEnum

from sqlite_utils import Database

from storage.clock import Clock, system_clock
from storage.errors import InvalidValueError
from storage.validation import check_id

log = logging.getLogger(__name__)


class Role(StrEnum):
    ADMIN = "admin"
    OPERATOR = "operator"
    VIEWER = "viewer"

    @property
    def rank(self) -> int:
        return _RANK[self]

    def at_least(self, other: Role) -> bool:
        return self.rank >= other.rank

    @classmethod
    def parse(cls, text: str) -> Role:
        try:
            return cls(text.strip().lower())
        except ValueError:
            raise InvalidValueError(
                f"unknown role {text!r}: use admin, operator or viewer"
            ) from None


_RANK = {Role.VIEWER: 0, Role.OPERATOR: 1, Role.ADMIN: 2}

DEFAULT_ROLE = Role.VIEWER
"""Users nobody gave a role can look but not act (fail closed)."""


class RoleStore:
    def __init__(self, db: Database, *, clock: Clock = system_clock) -> None:
        self._db = db
        self._clock = clock

    def stored_role(self, team_id: str, user_id: str) -> Role | None:
        row = self._db.execute(
            "SELECT role FROM roles WHERE team_id = ? AND user_id = ?", [team_id, user_id]
        ).fetchone()
        return Role(row[0]) if row else None

    def set_role(
        self, team_id: str, user_id: str, role: Role, *, granted_by: str | None = None
    ) -> None:
        self._db.execute(
            """INSERT INTO roles (team_id, user_id, role, granted_by, updated_at)
               VALUES (?, ?, ?, ?, ?)
               ON CONFLICT (team_id, user_id) DO UPDATE SET role = excluded.role,
                   granted_by = excluded.granted_by, updated_at = excluded.updated_at""",
            [
                check_id(team_id, "team id"),
                check_id(user_id, "user id"),
                Role(role).value,
                granted_by,
                self._clock(),
            ],
        )
        log.info("team %s: user %s is now %s", team_id, user_id, Role(role).value)

    def remove_role(self, team_id: str, user_id: str) -> bool:
        """Back to the default role. True if the user had a stored role."""
        cursor = self._db.execute(
            "DELETE FROM roles WHERE team_id = ? AND user_id = ?", [team_id, user_id]
        )
        return cursor.rowcount == 1

    def list_roles(self, team_id: str) -> dict[str, Role]:
        rows = self._db.execute(
            "SELECT user_id, role FROM roles WHERE team_id = ? ORDER BY user_id", [team_id]
        ).fetchall()
        return {user_id: Role(role) for user_id, role in rows}

    def record_installer(self, team_id: str, user_id: str) -> None:
        """The user who installed the app administers it from the start."""
        self.set_role(team_id, user_id, Role.ADMIN, granted_by="install")

    def resolve_role(
        self,
        team_id: str,
        user_id: str,
        *,
        is_workspace_admin: bool,
        env_admins: frozenset[str],
    ) -> Role:
        """The effective role: Slack workspace admins/owners and CALLOPS_ADMINS are admins
        whatever is stored; otherwise the stored role, else the default (viewer).

        `is_workspace_admin` comes from the caller (Slack's users.info is the bot's business).
        """
        if is_workspace_admin or user_id in env_admins:
            return Role.ADMIN
        return self.stored_role(team_id, user_id) or DEFAULT_ROLE
