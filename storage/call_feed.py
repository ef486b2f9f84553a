"""The call feed's durable state: call records waiting to be posted, and thread roots.

The service calls back once and does not say whether it retries (spec section 6), so a
record it delivered must survive anything that happens before Slack has it: the receiver
marks it seen and queues it in one transaction, and the poster deletes a row only after
Slack accepted the post. A crash in between posts a card twice at worst, never zero times.

Payloads are kept encrypted (``payload_enc``): they carry customers' phone numbers and
names, and secret rotation re-encrypts them with everything else.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlite_utils import Database

from storage.clock import Clock, system_clock
from storage.notifications import DedupStore
from storage.secrets import SecretBox
from storage.transactions import write_transaction
from storage.validation import check_id

log = logging.getLogger(__name__)

OUTCOME_LANE = "~outcome:"
"""Lane prefix of autocall outcomes: their channel is known only once the push is found,
and each has a lane of its own so one that waits holds up no other."""


@dataclass(frozen=True)
class QueuedRecord:
    seq: int
    team_id: str
    lane: str
    """The channel id of a card; ``OUTCOME_LANE`` + record id for an autocall outcome."""
    kind: str
    """``card`` (a call card for a routed channel) or ``outcome`` (reply to a pushed call)."""
    record_id: str
    sealed: str = field(repr=False)
    """The encrypted record; ``CallFeedStore.payload`` opens it (only when it is posted)."""
    received_at: float
    not_before: float
    attempts: int
    lease_owner: str | None = None
    lease_until: float | None = None


@dataclass(frozen=True)
class PushedMessage:
    """The Slack message from which an autocall was pushed (stored by the approval flow)."""

    channel: str
    ts: str


def subject_hash(team_id: str, subject: str) -> str:
    """What identifies a thread's subject (a lead or a phone number) without storing it."""
    return hashlib.sha256(f"{team_id}\x00{subject}".encode()).hexdigest()


class CallFeedStore:
    def __init__(
        self, db: Database, box: SecretBox, dedup: DedupStore, *, clock: Clock = system_clock
    ) -> None:
        self._db = db
        self._box = box
        self._dedup = dedup
        self._clock = clock

    # -- the queue -------------------------------------------------------------------------

    def accept(
        self,
        team_id: str,
        record_id: str,
        payload: Mapping[str, Any],
        channels: Iterable[str],
        *,
        outcome: bool = False,
    ) -> int | None:
        """Mark a record seen and queue its posts, as one unit.

        Returns None when the record was seen before (nothing queued), else how many rows
        were queued: one card per channel, plus one outcome row when ``outcome``.
        """
        lanes = [("card", check_id(c, "channel id")) for c in dict.fromkeys(channels)]
        if outcome:
            lanes.append(("outcome", OUTCOME_LANE + record_id))
        now = self._clock()
        with write_transaction(self._db):
            if not self._dedup.mark_callback(team_id, record_id):
                return None
            if not lanes:
                return 0
            sealed = self._box.encrypt(json.dumps(dict(payload), ensure_ascii=False))
            self._db.conn.executemany(
                """INSERT INTO callback_queue (team_id, lane, kind, record_id, payload_enc,
                       received_at, not_before) VALUES (?, ?, ?, ?, ?, ?, ?)""",
                [(team_id, lane, kind, record_id, sealed, now, now) for kind, lane in lanes],
            )
        return len(lanes)

    def heads(self) -> list[QueuedRecord]:
        """The oldest row of every lane (posts within a lane go strictly in order)."""
        rows = self._db.execute(
            """SELECT q.seq, q.team_id, q.lane, q.kind, q.record_id, q.payload_enc,
                      q.received_at, q.not_before, q.attempts, q.lease_owner, q.lease_until
               FROM callback_queue q
               JOIN (SELECT MIN(seq) AS seq FROM callback_queue GROUP BY team_id, lane) h
                 ON q.seq = h.seq
               ORDER BY q.seq"""
        ).fetchall()
        return [self._queued(row) for row in rows]

    def lease(self, seq: int, owner: str, seconds: float) -> bool:
        """Take a row to post it: True for the one poster (of any process) that got it.
        A lease that ran out (its process died mid-post) can be taken over."""
        now = self._clock()
        cursor = self._db.execute(
            """UPDATE callback_queue SET lease_owner = ?, lease_until = ?
               WHERE seq = ? AND (lease_until IS NULL OR lease_until <= ? OR lease_owner = ?)""",
            [owner, now + seconds, seq, now, owner],
        )
        return cursor.rowcount == 1

    def release(self, owner: str) -> int:
        """Give back every row this poster holds (it is stopping)."""
        cursor = self._db.execute(
            """UPDATE callback_queue SET lease_owner = NULL, lease_until = NULL
               WHERE lease_owner = ?""",
            [owner],
        )
        return cursor.rowcount

    def leased_elsewhere(self, queued: QueuedRecord, owner: str) -> bool:
        """Whether another poster holds this row now."""
        return (
            queued.lease_owner not in (None, owner)
            and queued.lease_until is not None
            and queued.lease_until > self._clock()
        )

    def remove(self, seq: int) -> bool:
        cursor = self._db.execute("DELETE FROM callback_queue WHERE seq = ?", [seq])
        return cursor.rowcount == 1

    def postpone(self, seq: int, not_before: float, error: str | None = None) -> None:
        """Try this row again at ``not_before`` (its lane waits behind it)."""
        self._db.execute(
            """UPDATE callback_queue SET not_before = ?, attempts = attempts + 1,
                   last_error = ?, lease_owner = NULL, lease_until = NULL WHERE seq = ?""",
            [not_before, error, seq],
        )

    def pending(self, team_id: str | None = None) -> int:
        if team_id is None:
            row = self._db.execute("SELECT COUNT(*) FROM callback_queue").fetchone()
        else:
            row = self._db.execute(
                "SELECT COUNT(*) FROM callback_queue WHERE team_id = ?", [team_id]
            ).fetchone()
        return int(row[0])

    def payload(self, queued: QueuedRecord) -> dict[str, Any]:
        """The record as the receiver accepted it."""
        payload: dict[str, Any] = json.loads(self._box.decrypt(queued.sealed))
        return payload

    def _queued(self, row: tuple[Any, ...]) -> QueuedRecord:
        return QueuedRecord(
            seq=int(row[0]),
            team_id=row[1],
            lane=row[2],
            kind=row[3],
            record_id=row[4],
            sealed=row[5],
            received_at=float(row[6]),
            not_before=float(row[7]),
            attempts=int(row[8]),
            lease_owner=row[9],
            lease_until=None if row[10] is None else float(row[10]),
        )

    def routes_version(self, team_id: str) -> tuple[int, float, int]:
        """Changes whenever the team's notification routes change (added or removed, by
        this process or another), so the receiver can keep them between callbacks."""
        row = self._db.execute(
            """SELECT COUNT(*), COALESCE(MAX(created_at), 0), COALESCE(SUM(rowid), 0)
               FROM notification_routes WHERE team_id = ?""",
            [team_id],
        ).fetchone()
        return int(row[0]), float(row[1]), int(row[2])

    # -- threads ---------------------------------------------------------------------------

    def thread_root(self, team_id: str, channel: str, day: str, subject: str) -> str | None:
        row = self._db.execute(
            """SELECT root_ts FROM call_threads
               WHERE team_id = ? AND channel = ? AND day = ? AND subject_hash = ?""",
            [team_id, channel, day, subject_hash(team_id, subject)],
        ).fetchone()
        return None if row is None else str(row[0])

    def set_thread_root(self, team_id: str, channel: str, day: str, subject: str, ts: str) -> None:
        self._db.execute(
            """INSERT INTO call_threads (team_id, channel, day, subject_hash, root_ts, created_at)
               VALUES (?, ?, ?, ?, ?, ?)
               ON CONFLICT (team_id, channel, day, subject_hash)
               DO UPDATE SET root_ts = excluded.root_ts, created_at = excluded.created_at""",
            [team_id, channel, day, subject_hash(team_id, subject), ts, self._clock()],
        )

    def forget_thread_root(self, team_id: str, channel: str, day: str, subject: str) -> None:
        self._db.execute(
            """DELETE FROM call_threads
               WHERE team_id = ? AND channel = ? AND day = ? AND subject_hash = ?""",
            [team_id, channel, day, subject_hash(team_id, subject)],
        )

    def prune_threads(self, older_than: float) -> int:
        """Forget thread roots made before ``older_than`` (a day's threads end with the day)."""
        cursor = self._db.execute("DELETE FROM call_threads WHERE created_at < ?", [older_than])
        return cursor.rowcount

    # -- autocalls pushed from Slack -------------------------------------------------------

    def pushed_message(self, team_id: str, call_id: str) -> PushedMessage | None:
        """Where the autocall with this call id was pushed from, if it was pushed from Slack.

        The approval flow keeps ``{"call_id", "channel", "ts"}`` in the push's result; the
        approval card's own channel and ts stand in when the result names no message.
        """
        row = self._db.execute(
            """SELECT json_extract(result, '$.channel'), json_extract(result, '$.ts'),
                      channel, message_ts
               FROM approvals
               WHERE team_id = ? AND kind = 'autocall.push' AND result IS NOT NULL
                 AND json_valid(result) AND json_extract(result, '$.call_id') = ?
               ORDER BY finished_at DESC LIMIT 1""",
            [team_id, call_id],
        ).fetchone()
        if row is None:
            return None
        channel, ts = (row[0], row[1]) if row[0] and row[1] else (row[2], row[3])
        if not channel or not ts:
            return None
        return PushedMessage(channel=str(channel), ts=str(ts))

    def push_in_flight(self, team_id: str) -> bool:
        """Whether an autocall push of this team is being run right now (its call id, and
        so the link from a call record to its message, is not stored yet)."""
        row = self._db.execute(
            """SELECT 1 FROM approvals WHERE team_id = ? AND kind = 'autocall.push'
                 AND state IN ('approved', 'executing') LIMIT 1""",
            [team_id],
        ).fetchone()
        return row is not None
