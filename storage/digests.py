"""Scheduled digests as data; the digest feature decides what a schedule spec means.

`claim_slot` is the one primitive the scheduler needs for "each slot runs once": the
(digest, slot) primary key makes the claim an atomic INSERT OR IGNORE, whoever else tries.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database

from storage._rows import dump_list, load_list, short_id
from storage.clock import Clock, system_clock
from storage.errors import NotFoundError
from storage.transactions import write_transaction
from storage.validation import check_id, check_timezone


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


@dataclass(frozen=True)
class DigestRun:
    digest_id: str
    slot: str
    claimed_at: float
    finished_at: float | None
    outcome: str | None
    detail: str | None


def _digest(row: dict[str, Any]) -> DigestSchedule:
    return DigestSchedule(
        id=row["id"],
        team_id=row["team_id"],
        channel=row["channel"],
        schedule=row["schedule"],
        timezone=row["timezone"],
        campaigns=load_list(row["campaigns"]),
        sections=load_list(row["sections"]),
        paused=bool(row["paused"]),
        created_by=row["created_by"],
        created_at=row["created_at"],
        updated_at=row["updated_at"],
        last_slot=row["last_slot"],
    )


class DigestStore:
    def __init__(self, db: Database, *, clock: Clock = system_clock) -> None:
        self._db = db
        self._clock = clock

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
    ) -> DigestSchedule:
        digest_id = short_id()
        now = self._clock()
        self._db.execute(
            """INSERT INTO digests (id, team_id, channel, schedule, timezone, campaigns,
                   sections, paused, created_by, created_at, updated_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?)""",
            [
                digest_id,
                check_id(team_id, "team id"),
                check_id(channel, "channel id"),
                schedule.strip(),
                check_timezone(timezone),
                dump_list(campaigns),
                dump_list(sections),
                created_by,
                now,
                now,
            ],
        )
        return self.require(team_id, digest_id)

    def get(self, team_id: str, digest_id: str) -> DigestSchedule | None:
        rows = list(
            self._db.query(
                "SELECT * FROM digests WHERE team_id = ? AND id = ?", [team_id, digest_id]
            )
        )
        return _digest(rows[0]) if rows else None

    def require(self, team_id: str, digest_id: str) -> DigestSchedule:
        found = self.get(team_id, digest_id)
        if found is None:
            raise NotFoundError(f"no digest {digest_id!r} in this workspace")
        return found

    def list(self, team_id: str) -> list[DigestSchedule]:
        return [
            _digest(row)
            for row in self._db.query(
                "SELECT * FROM digests WHERE team_id = ? ORDER BY created_at, id", [team_id]
            )
        ]

    def active(self) -> builtins.list[DigestSchedule]:
        """Every workspace's digests that are not paused: what the scheduler looks at."""
        return [
            _digest(row)
            for row in self._db.query(
                "SELECT * FROM digests WHERE paused = 0 ORDER BY team_id, created_at, id"
            )
        ]

    def team_ids(self) -> builtins.list[str]:
        """Teams that have digests (ids only): the scheduler loads each team's at start."""
        rows = self._db.execute("SELECT DISTINCT team_id FROM digests ORDER BY team_id")
        return [r[0] for r in rows.fetchall()]

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
            changes["campaigns"] = dump_list(campaigns)
        if sections is not None:
            changes["sections"] = dump_list(sections)
        self._set(team_id, digest_id, changes)
        return self.require(team_id, digest_id)

    def set_paused(self, team_id: str, digest_id: str, *, paused: bool) -> DigestSchedule:
        self._set(team_id, digest_id, {"paused": int(paused)})
        return self.require(team_id, digest_id)

    def remove(self, team_id: str, digest_id: str) -> bool:
        cursor = self._db.execute(
            "DELETE FROM digests WHERE team_id = ? AND id = ?", [team_id, digest_id]
        )
        return cursor.rowcount == 1

    def claim_slot(self, team_id: str, digest_id: str, slot: str) -> bool:
        """True for exactly one caller per (digest, slot); also records it as the last slot.

        False when the slot was already claimed, or the digest is not this team's.
        """
        now = self._clock()
        with write_transaction(self._db):
            cursor = self._db.execute(
                """INSERT OR IGNORE INTO digest_runs (digest_id, slot, claimed_at)
                   SELECT id, ?, ? FROM digests WHERE team_id = ? AND id = ?""",
                [slot, now, team_id, digest_id],
            )
            if cursor.rowcount != 1:
                return False
            self._db.execute(
                "UPDATE digests SET last_slot = ? WHERE team_id = ? AND id = ?",
                [slot, team_id, digest_id],
            )
        return True

    def finish_slot(
        self, team_id: str, digest_id: str, slot: str, *, outcome: str, detail: str | None = None
    ) -> bool:
        cursor = self._db.execute(
            """UPDATE digest_runs SET finished_at = ?, outcome = ?, detail = ?
               WHERE digest_id = ? AND slot = ?
                 AND digest_id IN (SELECT id FROM digests WHERE team_id = ?)""",
            [self._clock(), outcome, detail, digest_id, slot, team_id],
        )
        return cursor.rowcount == 1

    def unfinished(self, claimed_before: float) -> builtins.list[tuple[str, DigestRun]]:
        """Slots claimed before ``claimed_before`` and never finished (their process died
        between the claim and the record of the post), with their team, oldest first."""
        rows = self._db.query(
            """SELECT d.team_id AS team_id, r.* FROM digest_runs r
               JOIN digests d ON d.id = r.digest_id
               WHERE r.finished_at IS NULL AND r.claimed_at < ?
               ORDER BY r.claimed_at, r.digest_id""",
            [claimed_before],
        )
        found: builtins.list[tuple[str, DigestRun]] = []
        for row in rows:
            team_id = row.pop("team_id")
            found.append((team_id, DigestRun(**row)))
        return found

    def reclaim_slot(self, team_id: str, digest_id: str, slot: str, claimed_before: float) -> bool:
        """Take over an unfinished claim made before ``claimed_before``: True for exactly
        one caller (whose post of the slot then counts), False if it moved meanwhile."""
        cursor = self._db.execute(
            """UPDATE digest_runs SET claimed_at = ?
               WHERE digest_id = ? AND slot = ? AND finished_at IS NULL AND claimed_at < ?
                 AND digest_id IN (SELECT id FROM digests WHERE team_id = ?)""",
            [self._clock(), digest_id, slot, claimed_before, team_id],
        )
        return cursor.rowcount == 1

    def runs(self, team_id: str, digest_id: str, *, limit: int = 20) -> builtins.list[DigestRun]:
        """Newest slot first."""
        rows = self._db.query(
            """SELECT r.* FROM digest_runs r JOIN digests d ON d.id = r.digest_id
               WHERE d.team_id = ? AND r.digest_id = ? ORDER BY r.claimed_at DESC LIMIT ?""",
            [team_id, digest_id, limit],
        )
        return [DigestRun(**row) for row in rows]

    def _set(self, team_id: str, digest_id: str, changes: dict[str, Any]) -> None:
        assignments = "".join(f"{column} = ?, " for column in changes)
        cursor = self._db.execute(
            f"UPDATE digests SET {assignments}updated_at = ? WHERE team_id = ? AND id = ?",
            [*changes.values(), self._clock(), team_id, digest_id],
        )
        if cursor.rowcount != 1:
            raise NotFoundError(f"no digest {digest_id!r} in this workspace")
