"""Notification routes (which call records go to which channel), the callback URL token
of each workspace, and the dedup tables that make redelivered callbacks and Slack events
act once."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database

from storage._rows import dump_list, load_list, short_id
from storage.clock import Clock, system_clock
from storage.secrets import SecretBox
from storage.transactions import write_transaction
from storage.validation import check_id


@dataclass(frozen=True, kw_only=True)
class NotificationRoute:
    id: str
    team_id: str
    channel: str
    campaigns: tuple[str, ...]
    """Empty means every campaign (likewise for statuses and directions)."""
    statuses: tuple[str, ...]
    directions: tuple[str, ...]
    presskey_only: bool
    created_by: str
    created_at: float


def _route(row: dict[str, Any]) -> NotificationRoute:
    return NotificationRoute(
        id=row["id"],
        team_id=row["team_id"],
        channel=row["channel"],
        campaigns=load_list(row["campaigns"]),
        statuses=load_list(row["statuses"]),
        directions=load_list(row["directions"]),
        presskey_only=bool(row["presskey_only"]),
        created_by=row["created_by"],
        created_at=row["created_at"],
    )


class RouteStore:
    def __init__(self, db: Database, *, clock: Clock = system_clock) -> None:
        self._db = db
        self._clock = clock

    def add(
        self,
        team_id: str,
        *,
        channel: str,
        created_by: str,
        campaigns: Iterable[str] = (),
        statuses: Iterable[str] = (),
        directions: Iterable[str] = (),
        presskey_only: bool = False,
    ) -> NotificationRoute:
        route_id = short_id()
        self._db.execute(
            """INSERT INTO notification_routes (id, team_id, channel, campaigns, statuses,
                   directions, presskey_only, created_by, created_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            [
                route_id,
                check_id(team_id, "team id"),
                check_id(channel, "channel id"),
                dump_list(campaigns),
                dump_list(statuses),
                dump_list(directions),
                int(presskey_only),
                created_by,
                self._clock(),
            ],
        )
        found = self.get(team_id, route_id)
        assert found is not None
        return found

    def get(self, team_id: str, route_id: str) -> NotificationRoute | None:
        rows = list(
            self._db.query(
                "SELECT * FROM notification_routes WHERE team_id = ? AND id = ?",
                [team_id, route_id],
            )
        )
        return _route(rows[0]) if rows else None

    def list(self, team_id: str) -> list[NotificationRoute]:
        return [
            _route(row)
            for row in self._db.query(
                "SELECT * FROM notification_routes WHERE team_id = ? ORDER BY created_at, id",
                [team_id],
            )
        ]

    def remove(self, team_id: str, route_id: str) -> bool:
        cursor = self._db.execute(
            "DELETE FROM notification_routes WHERE team_id = ? AND id = ?", [team_id, route_id]
        )
        return cursor.rowcount == 1


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class CallbackTokenStore:
    """The secret in each workspace's callback URL (`POST /callbacks/{token}`).

    The receiver knows only the token, so it is found by its SHA-256; the token is also kept
    encrypted so the admin can be shown the URL again when attaching another campaign.
    """

    def __init__(self, db: Database, box: SecretBox, *, clock: Clock = system_clock) -> None:
        self._db = db
        self._box = box
        self._clock = clock

    def rotate(self, team_id: str) -> str:
        """A new token for the team (the old URL stops working at once)."""
        token = secrets.token_urlsafe(24)
        self._db.execute(
            """INSERT INTO callback_tokens (team_id, token_hash, token_enc, created_at)
               VALUES (?, ?, ?, ?)
               ON CONFLICT (team_id) DO UPDATE SET token_hash = excluded.token_hash,
                   token_enc = excluded.token_enc, created_at = excluded.created_at""",
            [
                check_id(team_id, "team id"),
                _token_hash(token),
                self._box.encrypt(token),
                self._clock(),
            ],
        )
        return token

    def get(self, team_id: str) -> str | None:
        row = self._db.execute(
            "SELECT token_enc FROM callback_tokens WHERE team_id = ?", [team_id]
        ).fetchone()
        return None if row is None else self._box.decrypt(row[0])

    def get_or_create(self, team_id: str) -> str:
        return self.get(team_id) or self.rotate(team_id)

    def team_for(self, token: str) -> str | None:
        """The team a callback URL token belongs to, or None for an unknown token."""
        row = self._db.execute(
            "SELECT team_id FROM callback_tokens WHERE token_hash = ?", [_token_hash(token)]
        ).fetchone()
        return None if row is None else str(row[0])

    def revoke(self, team_id: str) -> bool:
        cursor = self._db.execute("DELETE FROM callback_tokens WHERE team_id = ?", [team_id])
        return cursor.rowcount == 1


class DedupStore:
    """First-seen checks: True the first time an id is marked, False on every redelivery."""

    def __init__(self, db: Database, *, clock: Clock = system_clock) -> None:
        self._db = db
        self._clock = clock

    def mark_callback(self, team_id: str, callback_id: str) -> bool:
        cursor = self._db.execute(
            """INSERT OR IGNORE INTO processed_callbacks (team_id, callback_id, processed_at)
               VALUES (?, ?, ?)""",
            [team_id, callback_id, self._clock()],
        )
        return cursor.rowcount == 1

    def mark_event(self, team_id: str, event_id: str) -> bool:
        cursor = self._db.execute(
            """INSERT OR IGNORE INTO processed_events (team_id, event_id, processed_at)
               VALUES (?, ?, ?)""",
            [team_id, event_id, self._clock()],
        )
        return cursor.rowcount == 1

    def prune(self, older_than: float) -> int:
        """Forget ids processed before `older_than` (Unix seconds); returns how many."""
        with write_transaction(self._db):
            removed = self._db.execute(
                "DELETE FROM processed_callbacks WHERE processed_at < ?", [older_than]
            ).rowcount
            removed += self._db.execute(
                "DELETE FROM processed_events WHERE processed_at < ?", [older_than]
            ).rowcount
        return removed
