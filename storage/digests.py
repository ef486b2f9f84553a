"""Scheduled digests as data; the digest feature decides what a schedule spec means.

`claim_slot` is the one primitive the scheduler needs for "each slot runs once": the
(digest, slot) primary key makes the claim an atomic ``INSERT ... ON CONFLICT DO NOTHING``
on either engine, whoever else tries.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Double, Text, bindparam, delete, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.sql import Executable

from storage._rows import Store, from_row, not_in_workspace, required, short_id
from storage.database import InsertFactory, by_dialect
from storage.schema import digest_runs, digests
from storage.validation import check_id, check_language, check_timezone

_D = digests.c
_R = digest_runs.c
_THIS = (_D.team_id == bindparam("team"), _D.id == bindparam("digest"))
"""Bind names differ from column names: SQLAlchemy keeps those for SET values."""
_ADD = insert(digests)
_GET = select(digests).where(*_THIS)
_LIST = select(digests).where(_D.team_id == bindparam("team")).order_by(_D.created_at, _D.id)
_ACTIVE = select(digests).where(_D.paused == 0).order_by(_D.team_id, _D.created_at, _D.id)
_REMOVE = delete(digests).where(*_THIS)
_REMEMBER_SLOT = update(digests).where(*_THIS).values(last_slot=bindparam("at_slot"))
_TEAMS_DIGEST = _R.digest_id.in_(select(_D.id).where(_D.team_id == bindparam("team")))
_FINISH = (
    update(digest_runs)
    .where(_R.digest_id == bindparam("digest"), _R.slot == bindparam("at_slot"), _TEAMS_DIGEST)
    .values(finished_at=bindparam("now"), outcome=bindparam("result"), detail=bindparam("note"))
)
_RUNS = (
    select(digest_runs)
    .join(digests, _D.id == _R.digest_id)
    .where(*_THIS)
    .order_by(_R.claimed_at.desc())
    .limit(bindparam("limit"))
)
_UNFINISHED = (
    select(_D.team_id, *digest_runs.c)
    .join(digests, _D.id == _R.digest_id)
    .where(_R.finished_at.is_(None), _R.claimed_at < bindparam("before"))
    .order_by(_R.claimed_at, _R.digest_id)
)
# Compare-and-set on the old claim time: of two processes taking over, one moves it.
_RECLAIM = (
    update(digest_runs)
    .where(
        _R.digest_id == bindparam("digest"),
        _R.slot == bindparam("at_slot"),
        _R.finished_at.is_(None),
        _R.claimed_at < bindparam("before"),
        _TEAMS_DIGEST,
    )
    .values(claimed_at=bindparam("now"))
)


def _claim(insert: InsertFactory) -> Executable:
    # Only a digest of this team can be claimed; a second claim of the slot conflicts on
    # the (digest, slot) primary key and inserts nothing.
    return (
        insert(digest_runs)
        .from_select(
            ["digest_id", "slot", "claimed_at"],
            select(_D.id, bindparam("at_slot", type_=Text), bindparam("now", type_=Double)).where(
                *_THIS
            ),
        )
        .on_conflict_do_nothing()
    )


_CLAIM = by_dialect(_claim)


@dataclass(frozen=True, kw_only=True)
class DigestSchedule:
    id: str
    team_id: str
    channel: str
    schedule: str
    timezone: str
    campaigns: tuple[str, ...]
    sections: tuple[str, ...]
    paused: bool
    created_by: str
    created_at: float
    updated_at: float
    last_slot: str | None
    language: str | None = None
    """The language its posts are written in (``vi``/``en``); None: the workspace's."""


@dataclass(frozen=True)
class DigestRun:
    digest_id: str
    slot: str
    claimed_at: float
    finished_at: float | None
    outcome: str | None
    detail: str | None


class DigestStore(Store):
    def add(
        self,
        team_id: str,
        *,
        channel: str,
        schedule: str,
        timezone: str,
        created_by: str,
        campaigns: Iterable[str] = (),
        sections: Iterable[str] = (),
        language: str | None = None,
    ) -> DigestSchedule:
        digest_id = short_id()
        now = self._clock()
        self._db.change(
            _ADD,
            {
                "id": digest_id,
                "team_id": check_id(team_id, "team id"),
                "channel": check_id(channel, "channel id"),
                "schedule": schedule.strip(),
                "timezone": check_timezone(timezone),
                "campaigns": tuple(campaigns),
                "sections": tuple(sections),
                "paused": 0,
                "language": check_language(language),
                "created_by": created_by,
                "created_at": now,
                "updated_at": now,
            },
        )
        return self.require(team_id, digest_id)

    def get(self, team_id: str, digest_id: str) -> DigestSchedule | None:
        return self._one(DigestSchedule, _GET, {"team": team_id, "digest": digest_id})

    def require(self, team_id: str, digest_id: str) -> DigestSchedule:
        return required(self.get(team_id, digest_id), "digest", digest_id)

    def list(self, team_id: str) -> list[DigestSchedule]:
        return [from_row(DigestSchedule, row) for row in self._db.all(_LIST, {"team": team_id})]

    def active(self) -> builtins.list[DigestSchedule]:
        """Every workspace's digests that are not paused: what the scheduler looks at."""
        return [from_row(DigestSchedule, row) for row in self._db.all(_ACTIVE)]

    def update(
        self,
        team_id: str,
        digest_id: str,
        *,
        channel: str | None = None,
        schedule: str | None = None,
        timezone: str | None = None,
        campaigns: Iterable[str] | None = None,
        sections: Iterable[str] | None = None,
    ) -> DigestSchedule:
        """Change the given fields (None leaves a field as it is)."""
        changes: dict[str, Any] = {}
        if channel is not None:
            changes["channel"] = check_id(channel, "channel id")
        if schedule is not None:
            changes["schedule"] = schedule.strip()
        if timezone is not None:
            changes["timezone"] = check_timezone(timezone)
        if campaigns is not None:
            changes["campaigns"] = tuple(campaigns)
        if sections is not None:
            changes["sections"] = tuple(sections)
        return self._set(team_id, digest_id, changes)

    def set_paused(self, team_id: str, digest_id: str, *, paused: bool) -> DigestSchedule:
        return self._set(team_id, digest_id, {"paused": int(paused)})

    def remove(self, team_id: str, digest_id: str) -> bool:
        return self._db.change(_REMOVE, {"team": team_id, "digest": digest_id}) == 1

    def claim_slot(self, team_id: str, digest_id: str, slot: str) -> bool:
        """True for exactly one caller per (digest, slot); also records it as the last slot.

        False when the slot was already claimed, or the digest is not this team's.
        """
        params = {"team": team_id, "digest": digest_id, "at_slot": slot, "now": self._clock()}
        claim = self._db.pick(_CLAIM)

        def work(conn: Connection) -> bool:
            if conn.execute(claim, params).rowcount != 1:
                return False
            conn.execute(_REMEMBER_SLOT, params)
            return True

        return self._db.write(work)

    def finish_slot(
        self, team_id: str, digest_id: str, slot: str, *, outcome: str, detail: str | None = None
    ) -> bool:
        changed = self._db.change(
            _FINISH,
            {
                "team": team_id,
                "digest": digest_id,
                "at_slot": slot,
                "now": self._clock(),
                "result": outcome,
                "note": detail,
            },
        )
        return changed == 1

    def unfinished(self, claimed_before: float) -> builtins.list[tuple[str, DigestRun]]:
        """Slots claimed before ``claimed_before`` and never finished (their process died
        between the claim and the record of the post), with their team, oldest first."""
        rows = self._db.all(_UNFINISHED, {"before": claimed_before})
        return [(row["team_id"], from_row(DigestRun, row)) for row in rows]

    def reclaim_slot(self, team_id: str, digest_id: str, slot: str, claimed_before: float) -> bool:
        """Take over an unfinished claim made before ``claimed_before``: True for exactly
        one caller (whose post of the slot then counts), False if it moved meanwhile."""
        values = {
            "team": team_id,
            "digest": digest_id,
            "at_slot": slot,
            "before": claimed_before,
            "now": self._clock(),
        }
        return self._db.change(_RECLAIM, values) == 1

    def runs(self, team_id: str, digest_id: str, *, limit: int = 20) -> builtins.list[DigestRun]:
        """Newest slot first."""
        rows = self._db.all(_RUNS, {"team": team_id, "digest": digest_id, "limit": limit})
        return [DigestRun(**row) for row in rows]

    def _set(self, team_id: str, digest_id: str, changes: dict[str, Any]) -> DigestSchedule:
        changed = self._db.change(
            update(digests)
            .where(_D.team_id == team_id, _D.id == digest_id)
            .values(**changes, updated_at=self._clock())
        )
        if changed != 1:
            raise not_in_workspace("digest", digest_id)
        return self.require(team_id, digest_id)
