"""Workspace-wide problems told to people once: a revoked API key, a service that is down.

A scheduler that meets the same failure every slot must not post the same warning every
slot.  The notice row exists from the first failure until the next success; ``open``
answers True only to the caller that created it, so the warning is posted once even
when two schedulers fail at the same minute.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import delete, select
from sqlalchemy.engine import RowMapping

from storage.clock import Clock, system_clock
from storage.database import Database
from storage.schema import workspace_notices
from storage.validation import check_id

_N = workspace_notices.c


@dataclass(frozen=True)
class Notice:
    team_id: str
    kind: str
    detail: str | None
    channel: str | None
    opened_at: float


def _notice(row: RowMapping) -> Notice:
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
        statement = (
            self._db.insert(workspace_notices)
            .values(
                team_id=check_id(team_id, "team id"),
                kind=kind,
                detail=detail,
                channel=channel,
                opened_at=self._clock(),
            )
            .on_conflict_do_nothing()
        )
        return self._db.change(statement) == 1

    def close(self, team_id: str, kind: str) -> bool:
        """The problem is over; True when there was an open notice."""
        statement = delete(workspace_notices).where(_N.team_id == team_id, _N.kind == kind)
        return self._db.change(statement) == 1

    def get(self, team_id: str, kind: str) -> Notice | None:
        row = self._db.first(
            select(workspace_notices).where(_N.team_id == team_id, _N.kind == kind)
        )
        return _notice(row) if row else None

    def list(self, team_id: str) -> list[Notice]:
        return [
            _notice(row)
            for row in self._db.all(
                select(workspace_notices).where(_N.team_id == team_id).order_by(_N.opened_at)
            )
        ]
