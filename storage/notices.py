"""Workspace-wide problems told to people once: a revoked API key, a service that is down.

A scheduler that meets the same failure every slot must not post the same warning every
slot.  The notice row exists from the first failure until the next success; ``open``
answers True only to the caller that created it, so the warning is posted once even
when two schedulers fail at the same minute.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database

from storage.clock import Clock, system_clock
from storage.validation import check_id


@dataclass(frozen=True)
class Notice:
    team_id: str
    kind: str
    detail: str | None
    channel: str | None
    opened_at: float


def _notice(row: dict[str, Any]) -> Notice:
    return Notice(
        team_id=row["team_id"],
        kind=row["kind"],
        detail=row["detail"],
        channel=row["channel"],
        opened_at=row["opened_at"],
    )


class NoticeStore:
    def __init__(self, db: Database, *, clock: Clock = system_clock) -> None:
        self._db = db
        self._clock = clock

    def open(
        self, team_id: str, kind: str, *, detail: str | None = None, channel: str | None = None
    ) -> bool:
        """True the first time a problem of ``kind`` is seen since it was last closed."""
        cursor = self._db.execute(
            """INSERT OR IGNORE INTO workspace_notices (team_id, kind, detail, channel, opened_at)
               VALUES (?, ?, ?, ?, ?)""",
            [check_id(team_id, "team id"), kind, detail, channel, self._clock()],
        )
        return cursor.rowcount == 1

    def close(self, team_id: str, kind: str) -> bool:
        """The problem is over; True when there was an open notice."""
        cursor = self._db.execute(
            "DELETE FROM workspace_notices WHERE team_id = ? AND kind = ?", [team_id, kind]
        )
        return cursor.rowcount == 1

    def get(self, team_id: str, kind: str) -> Notice | None:
        rows = list(
            self._db.query(
                "SELECT * FROM workspace_notices WHERE team_id = ? AND kind = ?", [team_id, kind]
            )
        )
        return _notice(rows[0]) if rows else None

    def list(self, team_id: str) -> list[Notice]:
        return [
            _notice(row)
            for row in self._db.query(
                "SELECT * FROM workspace_notices WHERE team_id = ? ORDER BY opened_at", [team_id]
            )
        ]
