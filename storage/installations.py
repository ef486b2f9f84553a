"""Slack installations and OAuth states, for Bolt's OAuth flow (wrapped in a later issue).

`InstallationRecord` uses slack_sdk's `Installation` field names, so the wrapper converts
with ``Installation(**asdict(record))`` and ``InstallationRecord.from_object(installation)``.
Tokens and the incoming-webhook URL (whoever has it can post) are encrypted at rest.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

from sqlite_utils import Database

from storage.clock import Clock, system_clock
from storage.roles import RoleStore
from storage.secrets import SecretBox
from storage.transactions import write_transaction

log = logging.getLogger(__name__)

_SECRET_FIELDS = (
    "bot_token",
    "bot_refresh_token",
    "user_token",
    "user_refresh_token",
    "incoming_webhook_url",
)


@dataclass(frozen=True, kw_only=True)
class InstallationRecord:
    user_id: str
    app_id: str | None = None
    enterprise_id: str | None = None
    enterprise_name: str | None = None
    enterprise_url: str | None = None
    team_id: str | None = None
    team_name: str | None = None
    bot_token: str | None = field(default=None, repr=False)
    bot_id: str | None = None
    bot_user_id: str | None = None
    bot_scopes: str = ""
    bot_refresh_token: str | None = field(default=None, repr=False)
    bot_token_expires_at: int | None = None
    user_token: str | None = field(default=None, repr=False)
    user_scopes: str = ""
    user_refresh_token: str | None = field(default=None, repr=False)
    user_token_expires_at: int | None = None
    incoming_webhook_url: str | None = field(default=None, repr=False)
    incoming_webhook_channel: str | None = None
    incoming_webhook_channel_id: str | None = None
    incoming_webhook_configuration_url: str | None = None
    is_enterprise_install: bool = False
    token_type: str | None = None
    installed_at: float = 0.0
    custom_values: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_object(cls, source: Any) -> InstallationRecord:
        """From anything with these attributes (slack_sdk's Installation); scope lists are
        joined with commas and datetimes become Unix seconds, as slack_sdk's stores do."""
        values: dict[str, Any] = {}
        for f in fields(cls):
            value = getattr(source, f.name, None)
            if f.name in ("bot_scopes", "user_scopes"):
                value = _scopes(value)
            elif f.name in ("bot_token_expires_at", "user_token_expires_at"):
                value = None if value is None else int(_seconds(value))
            elif f.name == "installed_at":
                value = _seconds(value) if value is not None else 0.0
            elif f.name == "custom_values":
                value = dict(value or {})
            elif f.name == "is_enterprise_install":
                value = bool(value)
            values[f.name] = value
        return cls(**values)


def _scopes(value: str | Sequence[str] | None) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return ",".join(value)


def _seconds(value: float | int | datetime | str) -> float:
    if isinstance(value, datetime):
        return value.timestamp()
    return float(value)


def _where(
    enterprise_id: str | None, team_id: str | None, *, is_enterprise_install: bool
) -> tuple[str, list[Any]]:
    # An org-wide install belongs to the enterprise, whichever team it was started from.
    if is_enterprise_install:
        return "enterprise_id = ? AND is_enterprise_install = 1", [enterprise_id or ""]
    return "enterprise_id = ? AND team_id = ?", [enterprise_id or "", team_id or ""]


class InstallationStore:
    def __init__(
        self,
        db: Database,
        box: SecretBox,
        roles: RoleStore,
        *,
        clock: Clock = system_clock,
    ) -> None:
        self._db = db
        self._box = box
        self._roles = roles
        self._clock = clock

    def save(self, record: InstallationRecord) -> None:
        """Store (or replace) the installation of this user in this team/enterprise and
        record the installing user as an admin of the team, in one transaction."""
        row: dict[str, Any] = {}
        for f in fields(record):
            value = getattr(record, f.name)
            if f.name in _SECRET_FIELDS:
                row[f"{f.name}_enc"] = None if value is None else self._box.encrypt(value)
            elif f.name == "custom_values":
                row[f.name] = json.dumps(value, sort_keys=True)
            elif f.name == "is_enterprise_install":
                row[f.name] = int(value)
            else:
                row[f.name] = value
        row["enterprise_id"] = record.enterprise_id or ""
        row["team_id"] = record.team_id or ""
        row["installed_at"] = record.installed_at or self._clock()
        columns = list(row)
        updates = ", ".join(
            f"{c} = excluded.{c}"
            for c in columns
            if c not in ("enterprise_id", "team_id", "user_id")
        )
        with write_transaction(self._db):
            self._db.execute(
                f"""INSERT INTO slack_installations ({", ".join(columns)})
                    VALUES ({", ".join("?" for _ in columns)})
                    ON CONFLICT (enterprise_id, team_id, user_id) DO UPDATE SET {updates}""",
                list(row.values()),
            )
            if record.team_id and record.user_id:
                self._roles.record_installer(record.team_id, record.user_id)
        log.info(
            "saved Slack installation for enterprise %s team %s",
            record.enterprise_id,
            record.team_id,
        )

    def find(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None = None,
        is_enterprise_install: bool = False,
    ) -> InstallationRecord | None:
        """The latest installation of the team (or of that user in it)."""
        where, args = _where(enterprise_id, team_id, is_enterprise_install=is_enterprise_install)
        sql = f"SELECT * FROM slack_installations WHERE {where}"
        if user_id is not None:
            sql += " AND user_id = ?"
            args.append(user_id)
        sql += " ORDER BY installed_at DESC, id DESC LIMIT 1"
        rows = list(self._db.query(sql, args))
        return self._record(rows[0]) if rows else None

    def find_bot(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        is_enterprise_install: bool = False,
    ) -> InstallationRecord | None:
        """The latest installation that carries a bot token (a user-only re-install has none)."""
        where, args = _where(enterprise_id, team_id, is_enterprise_install=is_enterprise_install)
        rows = list(
            self._db.query(
                f"""SELECT * FROM slack_installations
                    WHERE {where} AND bot_token_enc IS NOT NULL
                    ORDER BY installed_at DESC, id DESC LIMIT 1""",
                args,
            )
        )
        return self._record(rows[0]) if rows else None

    def delete(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None = None,
        is_enterprise_install: bool = False,
    ) -> int:
        """Remove the team's installations (or one user's); returns how many."""
        where, args = _where(enterprise_id, team_id, is_enterprise_install=is_enterprise_install)
        sql = f"DELETE FROM slack_installations WHERE {where}"
        if user_id is not None:
            sql += " AND user_id = ?"
            args.append(user_id)
        return self._db.execute(sql, args).rowcount

    def delete_bot(
        self, *, enterprise_id: str | None, team_id: str | None, is_enterprise_install: bool = False
    ) -> int:
        """Forget the bot tokens (app uninstalled) but keep user installations."""
        where, args = _where(enterprise_id, team_id, is_enterprise_install=is_enterprise_install)
        return self._db.execute(
            f"""UPDATE slack_installations SET bot_token_enc = NULL, bot_refresh_token_enc = NULL
                WHERE {where}""",
            args,
        ).rowcount

    def _record(self, row: dict[str, Any]) -> InstallationRecord:
        values: dict[str, Any] = {}
        for f in fields(InstallationRecord):
            if f.name in _SECRET_FIELDS:
                encrypted = row[f"{f.name}_enc"]
                values[f.name] = None if encrypted is None else self._box.decrypt(encrypted)
            elif f.name == "custom_values":
                values[f.name] = json.loads(row[f.name])
            elif f.name == "is_enterprise_install":
                values[f.name] = bool(row[f.name])
            elif f.name in ("enterprise_id", "team_id"):
                values[f.name] = row[f.name] or None
            elif f.name in ("bot_scopes", "user_scopes"):
                values[f.name] = row[f.name] or ""
            else:
                values[f.name] = row[f.name]
        return InstallationRecord(**values)


class OAuthStateStore:
    """OAuth `state` values: issued once, consumed once, before they expire."""

    def __init__(self, db: Database, *, clock: Clock = system_clock) -> None:
        self._db = db
        self._clock = clock

    def issue(self, expires_in: float = 600.0) -> str:
        state = secrets.token_urlsafe(24)
        now = self._clock()
        with write_transaction(self._db):
            self._db.execute("DELETE FROM oauth_states WHERE expires_at <= ?", [now])
            self._db.execute(
                "INSERT INTO oauth_states (state, expires_at) VALUES (?, ?)",
                [state, now + expires_in],
            )
        return state

    def consume(self, state: str) -> bool:
        """True once for a valid, unexpired state; False for unknown, used or expired ones."""
        cursor = self._db.execute(
            "DELETE FROM oauth_states WHERE state = ? AND expires_at > ?", [state, self._clock()]
        )
        return cursor.rowcount == 1
