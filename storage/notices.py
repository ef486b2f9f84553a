"""Workspace-wide problems told to people once: a revoked API key, a service that is down.

A scheduler that meets the same failure every slot must not post the same warning every
slot.  The notice row exists from the first failure until the next success; ``open``
answers True only to the caller that created it, so the warning is posted once even
when two schedulers fail at the same minute.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import bindparam, delete, select

from storage._rows import Store, from_row
from storage.database import by_dialect
from storage.schema import workspace_notices
from storage.validation import check_id

_N = workspace_notices.c
_THIS = (_N.team_id == bindparam("team_id"), _N.kind == bindparam("kind"))
_CLOSE = delete(workspace_notices).where(*_THIS)
_GET = select(workspace_notices).where(*_THIS)
_LIST = select(workspace_notices).where(_N.team_id == bindparam("team_id")).order_by(_N.opened_at)
# The (team, kind) primary key: the first failure opens the notice, later ones conflict.
_OPEN = by_dialect(lambda insert: insert(workspace_notices).on_conflict_do_nothing())


@dataclass(frozen=True)
class Notice:
    team_id: str
    kind: str
    detail: str | None
    channel: str | None
    opened_at: float


class NoticeStore(Store):
    def open(
        self, team_id: str, kind: str, *, detail: str | None = None, channel: str | None = None
    ) -> bool:
        """True the first time a problem of ``kind`` is seen since it was last closed."""
        values = {
            "team_id": check_id(team_id, "team id"),
            "kind": kind,
            "detail": detail,
            "channel": channel,
            "opened_at": self._clock(),
        }
        return self._db.change(self._db.pick(_OPEN), values) == 1

    def close(self, team_id: str, kind: str) -> bool:
        """The problem is over; True when there was an open notice."""
        return self._db.change(_CLOSE, {"team_id": team_id, "kind": kind}) == 1

    def get(self, team_id: str, kind: str) -> Notice | None:
        return self._one(Notice, _GET, {"team_id": team_id, "kind": kind})

    def list(self, team_id: str) -> list[Notice]:
        return [from_row(Notice, row) for row in self._db.all(_LIST, {"team_id": team_id})]
