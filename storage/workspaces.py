"""Workspaces (one per Slack team): the call-center binding, its settings, its token cache.

The API key and cached tokens are encrypted and never part of `Workspace`, so a workspace can
be printed, logged or rendered without a chance of showing the key; only `api_key()` decrypts.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Final

from sqlite_utils import Database

from callcenter.tokens import CachedToken
from storage.clock import Clock, system_clock
from storage.errors import InvalidValueError, NotFoundError, SecretDecryptError
from storage.secrets import SecretBox
from storage.transactions import write_transaction
from storage.validation import check_base_url, check_id, check_timezone

log = logging.getLogger(__name__)


class _Unchanged:
    def __repr__(self) -> str:
        return "UNCHANGED"


UNCHANGED: Final = _Unchanged()
"""Marks a setting the caller leaves as it is (None means "clear it")."""


@dataclass(frozen=True, kw_only=True)
class Workspace:
    team_id: str
    base_url: str | None
    has_api_key: bool
    timezone: str
    approvals_channel: str | None
    digests_channel: str | None
    notifications_channel: str | None
    created_at: float
    updated_at: float
    connected_at: float | None

    @property
    def connected(self) -> bool:
        return self.has_api_key and self.base_url is not None


_COLUMNS = (
    "team_id, base_url, api_key_enc IS NOT NULL AS has_api_key, timezone, approvals_channel, "
    "digests_channel, notifications_channel, created_at, updated_at, connected_at"
)


def _workspace(row: dict[str, Any]) -> Workspace:
    return Workspace(
        team_id=row["team_id"],
        base_url=row["base_url"],
        has_api_key=bool(row["has_api_key"]),
        timezone=row["timezone"],
        approvals_channel=row["approvals_channel"],
        digests_channel=row["digests_channel"],
        notifications_channel=row["notifications_channel"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        connected_at=row["connected_at"],
    )


class WorkspaceTokenCache:
    """The service-token cache of one workspace (implements callcenter's TokenCache).

    A token that cannot be decrypted (its key was removed) is a cache miss, not an error:
    the client simply fetches a new one with the API key.
    """

    def __init__(self, db: Database, box: SecretBox, team_id: str, clock: Clock) -> None:
        self._db = db
        self._box = box
        self._team_id = team_id
        self._clock = clock

    @property
    def team_id(self) -> str:
        return self._team_id

    def load(self) -> CachedToken | None:
        row = self._db.execute(
            "SELECT token_enc, expires_at FROM service_tokens WHERE team_id = ?",
            [self._team_id],
        ).fetchone()
        if row is None:
            return None
        try:
            token = self._box.decrypt(row[0])
        except SecretDecryptError:
            log.warning("cached service token of team %s is unreadable; ignoring it", self._team_id)
            return None
        return CachedToken(token=token, expires_at=float(row[1]))

    def save(self, token: CachedToken) -> None:
        self._db.execute(
            """INSERT INTO service_tokens (team_id, token_enc, expires_at, updated_at)
               VALUES (?, ?, ?, ?)
               ON CONFLICT (team_id) DO UPDATE SET token_enc = excluded.token_enc,
                   expires_at = excluded.expires_at, updated_at = excluded.updated_at""",
            [self._team_id, self._box.encrypt(token.token), token.expires_at, self._clock()],
        )
        log.debug("cached a service token for team %s", self._team_id)

    def clear(self) -> None:
        self._db.execute("DELETE FROM service_tokens WHERE team_id = ?", [self._team_id])


class WorkspaceStore:
    def __init__(
        self,
        db: Database,
        box: SecretBox,
        *,
        clock: Clock = system_clock,
        default_timezone: str = "UTC",
    ) -> None:
        self._db = db
        self._box = box
        self._clock = clock
        self._default_timezone = check_timezone(default_timezone)

    def get(self, team_id: str) -> Workspace | None:
        rows = list(
            self._db.query(f"SELECT {_COLUMNS} FROM workspaces WHERE team_id = ?", [team_id])
        )
        return _workspace(rows[0]) if rows else None

    def require(self, team_id: str) -> Workspace:
        found = self.get(team_id)
        if found is None:
            raise NotFoundError(f"no workspace {team_id!r}; connect it first")
        return found

    def list(self) -> list[Workspace]:
        """All workspaces (operator view for `callops workspace list`); carries no secrets."""
        return [
            _workspace(r)
            for r in self._db.query(f"SELECT {_COLUMNS} FROM workspaces ORDER BY team_id")
        ]

    def ensure(self, team_id: str, *, timezone: str | None = None) -> Workspace:
        """The workspace row, created without a binding if missing (single-workspace mode)."""
        team_id = check_id(team_id, "team id")
        tz = check_timezone(timezone or self._default_timezone)
        now = self._clock()
        self._db.execute(
            """INSERT INTO workspaces (team_id, timezone, created_at, updated_at)
               VALUES (?, ?, ?, ?) ON CONFLICT (team_id) DO NOTHING""",
            [team_id, tz, now, now],
        )
        return self.require(team_id)

    def connect(
        self, team_id: str, base_url: str, api_key: str, *, timezone: str | None = None
    ) -> Workspace:
        """Bind the team to a call center. Verify the key before calling this.

        A new key invalidates cached tokens (they belong to the old key's domain), in the same
        transaction. `timezone` None keeps the current one (or the default for a new team).
        """
        team_id = check_id(team_id, "team id")
        url = check_base_url(base_url)
        if not api_key.strip():
            raise InvalidValueError("the API key is empty")
        tz = check_timezone(timezone) if timezone is not None else None
        now = self._clock()
        with write_transaction(self._db):
            self._db.execute(
                """INSERT INTO workspaces (team_id, base_url, api_key_enc, timezone,
                       created_at, updated_at, connected_at)
                   VALUES (?, ?, ?, ?, ?, ?, ?)
                   ON CONFLICT (team_id) DO UPDATE SET base_url = excluded.base_url,
                       api_key_enc = excluded.api_key_enc,
                       timezone = COALESCE(?, workspaces.timezone),
                       updated_at = excluded.updated_at, connected_at = excluded.connected_at""",
                [
                    team_id,
                    url,
                    self._box.encrypt(api_key.strip()),
                    tz or self._default_timezone,
                    now,
                    now,
                    now,
                    tz,
                ],
            )
            self._db.execute("DELETE FROM service_tokens WHERE team_id = ?", [team_id])
        log.info("workspace %s connected to %s", team_id, url)
        return self.require(team_id)

    def disconnect(self, team_id: str) -> bool:
        """Forget the API key and cached tokens; settings stay. False if there was no key."""
        with write_transaction(self._db):
            cursor = self._db.execute(
                """UPDATE workspaces SET api_key_enc = NULL, connected_at = NULL, updated_at = ?
                   WHERE team_id = ? AND api_key_enc IS NOT NULL""",
                [self._clock(), team_id],
            )
            self._db.execute("DELETE FROM service_tokens WHERE team_id = ?", [team_id])
        if cursor.rowcount:
            log.info("workspace %s disconnected", team_id)
        return cursor.rowcount == 1

    def api_key(self, team_id: str) -> str | None:
        row = self._db.execute(
            "SELECT api_key_enc FROM workspaces WHERE team_id = ?", [team_id]
        ).fetchone()
        if row is None or row[0] is None:
            return None
        return self._box.decrypt(row[0])

    def set_timezone(self, team_id: str, timezone: str) -> Workspace:
        self._update(team_id, {"timezone": check_timezone(timezone)})
        return self.require(team_id)

    def set_channels(
        self,
        team_id: str,
        *,
        approvals: str | _Unchanged | None = UNCHANGED,
        digests: str | _Unchanged | None = UNCHANGED,
        notifications: str | _Unchanged | None = UNCHANGED,
    ) -> Workspace:
        changes: dict[str, str | None] = {}
        for column, value in (
            ("approvals_channel", approvals),
            ("digests_channel", digests),
            ("notifications_channel", notifications),
        ):
            if not isinstance(value, _Unchanged):
                changes[column] = None if value is None else check_id(value, "channel id")
        if changes:
            self._update(team_id, changes)
        return self.require(team_id)

    def token_cache(self, team_id: str) -> WorkspaceTokenCache:
        return WorkspaceTokenCache(self._db, self._box, team_id, self._clock)

    def _update(self, team_id: str, changes: dict[str, str | None]) -> None:
        assignments = ", ".join(f"{column} = ?" for column in changes)
        cursor = self._db.execute(
            f"UPDATE workspaces SET {assignments}, updated_at = ? WHERE team_id = ?",
            [*changes.values(), self._clock(), team_id],
        )
        if cursor.rowcount != 1:
            raise NotFoundError(f"no workspace {team_id!r}; connect it first")
