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

from sqlalchemy import delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection, RowMapping

from storage.clock import Clock, system_clock
from storage.database import Database
from storage.notifications import DedupStore
from storage.schema import approvals, call_threads, callback_queue, notification_routes
from storage.secrets import SecretBox
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


_Q = callback_queue.c
_T = call_threads.c
_QUEUED_COLUMNS = (
    _Q.seq,
    _Q.team_id,
    _Q.lane,
    _Q.kind,
    _Q.record_id,
    _Q.payload_enc,
    _Q.received_at,
    _Q.not_before,
    _Q.attempts,
    _Q.lease_owner,
    _Q.lease_until,
)


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
        sealed = self._box.encrypt(json.dumps(dict(payload), ensure_ascii=False))
        rows = [
            {
                "team_id": team_id,
                "lane": lane,
                "kind": kind,
                "record_id": record_id,
                "payload_enc": sealed,
                "received_at": now,
                "not_before": now,
            }
            for kind, lane in lanes
        ]

        def work(conn: Connection) -> int | None:
            if not self._dedup.mark_callback_in(conn, team_id, record_id):
                return None
            if rows:
                conn.execute(insert(callback_queue), rows)
            return len(rows)

        return self._db.write(work)

    def heads(self) -> list[QueuedRecord]:
        """The oldest row of every lane (posts within a lane go strictly in order)."""
        firsts = select(func.min(_Q.seq).label("seq")).group_by(_Q.team_id, _Q.lane).subquery()
        rows = self._db.all(
            select(*_QUEUED_COLUMNS).join(firsts, _Q.seq == firsts.c.seq).order_by(_Q.seq)
        )
        return [self._queued(row) for row in rows]

    def lease(self, seq: int, owner: str, seconds: float) -> bool:
        """Take a row to post it: True for the one poster (of any process) that got it.
        A lease that ran out (its process died mid-post) can be taken over.

        On PostgreSQL the row is picked with ``FOR UPDATE SKIP LOCKED``: a poster that
        finds another one taking the same row moves on at once instead of waiting for it.
        """
        now = self._clock()
        free = (
            _Q.seq == seq,
            or_(_Q.lease_until.is_(None), _Q.lease_until <= now, _Q.lease_owner == owner),
        )
        pick = select(_Q.seq).where(*free).with_for_update(skip_locked=True)
        take = (
            update(callback_queue).where(*free).values(lease_owner=owner, lease_until=now + seconds)
        )

        def work(conn: Connection) -> bool:
            if conn.execute(pick).first() is None:
                return False
            return conn.execute(take).rowcount == 1

        return self._db.write(work)

    def release(self, owner: str) -> int:
        """Give back every row this poster holds (it is stopping)."""
        return self._db.change(
            update(callback_queue)
            .where(_Q.lease_owner == owner)
            .values(lease_owner=None, lease_until=None)
        )

    def leased_elsewhere(self, queued: QueuedRecord, owner: str) -> bool:
        """Whether another poster holds this row now."""
        return (
            queued.lease_owner not in (None, owner)
            and queued.lease_until is not None
            and queued.lease_until > self._clock()
        )

    def remove(self, seq: int) -> bool:
        return self._db.change(delete(callback_queue).where(_Q.seq == seq)) == 1

    def postpone(self, seq: int, not_before: float, error: str | None = None) -> None:
        """Try this row again at ``not_before`` (its lane waits behind it)."""
        self._db.change(
            update(callback_queue)
            .where(_Q.seq == seq)
            .values(
                not_before=not_before,
                attempts=_Q.attempts + 1,
                last_error=error,
                lease_owner=None,
                lease_until=None,
            )
        )

    def pending(self, team_id: str | None = None) -> int:
        query = select(func.count()).select_from(callback_queue)
        if team_id is not None:
            query = query.where(_Q.team_id == team_id)
        return int(self._db.scalar(query))

    def clear(self) -> int:
        """Drop every queued post of every workspace (benchmarks reset between runs)."""
        return self._db.change(delete(callback_queue))

    def payload(self, queued: QueuedRecord) -> dict[str, Any]:
        """The record as the receiver accepted it."""
        payload: dict[str, Any] = json.loads(self._box.decrypt(queued.sealed))
        return payload

    def _queued(self, row: RowMapping) -> QueuedRecord:
        return QueuedRecord(
            seq=int(row["seq"]),
            team_id=row["team_id"],
            lane=row["lane"],
            kind=row["kind"],
            record_id=row["record_id"],
            sealed=row["payload_enc"],
            received_at=float(row["received_at"]),
            not_before=float(row["not_before"]),
            attempts=int(row["attempts"]),
            lease_owner=row["lease_owner"],
            lease_until=None if row["lease_until"] is None else float(row["lease_until"]),
        )

    def routes_version(self, team_id: str) -> tuple[int, float, int]:
        """Changes whenever the team's notification routes change (added or removed, by
        this process or another), so the receiver can keep them between callbacks."""
        rows = self._db.all(
            select(notification_routes.c.id, notification_routes.c.created_at).where(
                notification_routes.c.team_id == team_id
            )
        )
        ids = "\n".join(sorted(str(r["id"]) for r in rows))
        checksum = int.from_bytes(hashlib.sha256(ids.encode()).digest()[:8], "big")
        newest = max((float(r["created_at"]) for r in rows), default=0.0)
        return len(rows), newest, checksum

    # -- threads ---------------------------------------------------------------------------

    def _thread(self, team_id: str, channel: str, day: str, subject: str) -> tuple[Any, ...]:
        return (
            _T.team_id == team_id,
            _T.channel == channel,
            _T.day == day,
            _T.subject_hash == subject_hash(team_id, subject),
        )

    def thread_root(self, team_id: str, channel: str, day: str, subject: str) -> str | None:
        root = self._db.scalar(
            select(_T.root_ts).where(*self._thread(team_id, channel, day, subject))
        )
        return None if root is None else str(root)

    def set_thread_root(self, team_id: str, channel: str, day: str, subject: str, ts: str) -> None:
        insert_root = self._db.insert(call_threads).values(
            team_id=team_id,
            channel=channel,
            day=day,
            subject_hash=subject_hash(team_id, subject),
            root_ts=ts,
            created_at=self._clock(),
        )
        self._db.change(
            insert_root.on_conflict_do_update(
                index_elements=[_T.team_id, _T.channel, _T.day, _T.subject_hash],
                set_={
                    "root_ts": insert_root.excluded.root_ts,
                    "created_at": insert_root.excluded.created_at,
                },
            )
        )

    def forget_thread_root(self, team_id: str, channel: str, day: str, subject: str) -> None:
        self._db.change(delete(call_threads).where(*self._thread(team_id, channel, day, subject)))

    def prune_threads(self, older_than: float) -> int:
        """Forget thread roots made before ``older_than`` (a day's threads end with the day)."""
        return self._db.change(delete(call_threads).where(_T.created_at < older_than))

    # -- autocalls pushed from Slack -------------------------------------------------------

    def pushed_message(self, team_id: str, call_id: str) -> PushedMessage | None:
        """Where the autocall with this call id was pushed from, if it was pushed from Slack.

        The approval flow keeps ``{"call_id", "channel", "ts"}`` in the push's result; the
        approval card's own channel and ts stand in when the result names no message.
        The database narrows the pushes down to results that mention the id (a plain text
        match both engines run the same way); the JSON is read here.
        """
        a = approvals.c
        rows = self._db.all(
            select(a.result, a.channel, a.message_ts)
            .where(
                a.team_id == team_id,
                a.kind == "autocall.push",
                a.result.is_not(None),
                a.result.contains(call_id, autoescape=True),
            )
            .order_by(a.finished_at.desc())
        )
        for row in rows:
            try:
                result = json.loads(row["result"])
            except ValueError:
                continue
            if not isinstance(result, dict) or result.get("call_id") != call_id:
                continue
            channel, ts = result.get("channel"), result.get("ts")
            if not (channel and ts):
                channel, ts = row["channel"], row["message_ts"]
            if not channel or not ts:
                return None
            return PushedMessage(channel=str(channel), ts=str(ts))
        return None

    def push_in_flight(self, team_id: str) -> bool:
        """Whether an autocall push of this team is being run right now (its call id, and
        so the link from a call record to its message, is not stored yet)."""
        a = approvals.c
        found = self._db.first(
            select(a.id)
            .where(
                a.team_id == team_id,
                a.kind == "autocall.push",
                a.state.in_(("approved", "executing")),
            )
            .limit(1)
        )
        return found is not None
