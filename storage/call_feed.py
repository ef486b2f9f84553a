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
from functools import cached_property
from typing import Any

from sqlalchemy import bindparam, delete, func, insert, or_, select, update
from sqlalchemy.engine import Connection, RowMapping

from storage._rows import SealedStore, from_row
from storage.database import upsert
from storage.notifications import DedupStore
from storage.schema import (
    approvals,
    call_folds,
    call_threads,
    callback_queue,
    notification_routes,
)
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
    post_as: str = "card"
    """How a card goes out: ``card`` (its own), ``fold`` (in the channel's folded message
    when records wait) or ``note`` (a notable record: a reply on that message)."""


@dataclass(frozen=True)
class OpenFold:
    """A channel's folded message still open to edits (``CallFeedStore.fold``)."""

    root_ts: str
    opened_at: float
    records: list[dict[str, Any]]
    """The records it shows, oldest first, as the receiver accepted them."""


@dataclass(frozen=True)
class PushedMessage:
    """The Slack message from which an autocall was pushed (stored by the approval flow)."""

    channel: str
    ts: str


_Q = callback_queue.c
_T = call_threads.c
_SEQ = _Q.seq == bindparam("row")
"""Bind names differ from column names: SQLAlchemy keeps those for SET values."""
_THREAD = (
    _T.team_id == bindparam("team_id"),
    _T.channel == bindparam("channel"),
    _T.day == bindparam("day"),
    _T.subject_hash == bindparam("subject_hash"),
)
_QUEUED_COLUMNS = tuple(c for c in callback_queue.c if c.name != "last_error")


_FIRSTS = select(func.min(_Q.seq).label("seq")).group_by(_Q.team_id, _Q.lane).subquery()
_HEADS = select(*_QUEUED_COLUMNS).join(_FIRSTS, _Q.seq == _FIRSTS.c.seq).order_by(_Q.seq)
_QUEUE = insert(callback_queue)
_FREE = or_(
    _Q.lease_until.is_(None),
    _Q.lease_until <= bindparam("now"),
    _Q.lease_owner == bindparam("owner"),
)
_PICK = select(_Q.seq).where(_SEQ, _FREE).with_for_update(skip_locked=True)
_TAKE = (
    update(callback_queue)
    .where(_SEQ, _FREE)
    .values(lease_owner=bindparam("owner"), lease_until=bindparam("until"))
)
_RELEASE = (
    update(callback_queue)
    .where(_Q.lease_owner == bindparam("owner"))
    .values(lease_owner=None, lease_until=None)
)
_REMOVE = delete(callback_queue).where(_SEQ)
_LANE_OF = select(_Q.team_id, _Q.lane).where(_SEQ)
_LATER = callback_queue.alias("later")
_HOLD_NEXT = (
    update(callback_queue)
    .where(
        _Q.seq
        == select(func.min(_LATER.c.seq))
        .where(_LATER.c.team_id == bindparam("team"), _LATER.c.lane == bindparam("lane_id"))
        .scalar_subquery(),
        _Q.not_before < bindparam("free_at"),
    )
    .values(not_before=bindparam("free_at"))
)
_POSTPONE = (
    update(callback_queue)
    .where(_SEQ)
    .values(
        not_before=bindparam("retry_at"),
        attempts=_Q.attempts + 1,
        last_error=bindparam("error"),
        lease_owner=None,
        lease_until=None,
    )
)
_F = call_folds.c
_FOLD_KEY = (_F.team_id == bindparam("team_id"), _F.channel == bindparam("channel"))
_FOLD = select(_F.root_ts, _F.opened_at, _F.records_enc).where(*_FOLD_KEY)
_CLOSE_FOLD = delete(call_folds).where(*_FOLD_KEY)
_LANE_ROWS = (
    select(*_QUEUED_COLUMNS)
    .where(
        _Q.team_id == bindparam("team_id"),
        _Q.lane == bindparam("lane_id"),
        _Q.seq >= bindparam("first"),
    )
    .order_by(_Q.seq)
    .limit(bindparam("limit"))
)
_PENDING = select(func.count()).select_from(callback_queue)
_QUEUE_STATS = select(func.count().label("depth"), func.min(_Q.received_at).label("oldest"))
_CLEAR = delete(callback_queue)
_R = notification_routes.c
_ROUTES = select(_R.id, _R.created_at).where(_R.team_id == bindparam("team_id"))
_THREAD_ROOT = select(_T.root_ts).where(*_THREAD)
_FORGET_THREAD = delete(call_threads).where(*_THREAD)
_PRUNE_THREADS = delete(call_threads).where(_T.created_at < bindparam("older_than"))
_P = approvals.c
_PUSHES = (
    select(_P.result, _P.channel, _P.message_ts)
    .where(
        _P.team_id == bindparam("team_id"),
        _P.kind == "autocall.push",
        _P.result.is_not(None),
        _P.result.like(bindparam("pattern"), escape="/"),
    )
    .order_by(_P.finished_at.desc())
)
_PUSH_IN_FLIGHT = (
    select(_P.id)
    .where(
        _P.team_id == bindparam("team_id"),
        _P.kind == "autocall.push",
        _P.state.in_(("approved", "executing")),
    )
    .limit(1)
)


def _containing(text: str) -> str:
    """A LIKE pattern matching values that contain ``text`` itself (its ``%`` and ``_``
    are not wildcards)."""
    escaped = text.replace("/", "//").replace("%", "/%").replace("_", "/_")
    return f"%{escaped}%"


_SET_THREAD_ROOT = upsert(call_threads, "root_ts", "created_at")
_OPEN_FOLD = upsert(call_folds, "root_ts", "opened_at", "held", "records_enc")


class CallFeedStore(SealedStore):
    @cached_property
    def _dedup(self) -> DedupStore:
        """Callback deliveries are deduplicated in the shared dedupe table."""
        return DedupStore(self._db, clock=self._clock)

    # -- the queue -------------------------------------------------------------------------

    def accept(
        self,
        team_id: str,
        record_id: str,
        payload: Mapping[str, Any],
        channels: Iterable[str],
        *,
        outcome: bool = False,
        kinds: Mapping[str, str] | None = None,
    ) -> int | None:
        """Mark a record seen and queue its posts, as one unit.

        Returns None when the record was seen before (nothing queued), else how many rows
        were queued: one per channel, plus one outcome row when ``outcome``.  ``kinds``
        says how a channel's card goes out (``QueuedRecord.post_as``; ``card`` when it
        names none).
        """
        kinds = kinds or {}
        lanes = [
            ("card", check_id(c, "channel id"), kinds.get(c, "card"))
            for c in dict.fromkeys(channels)
        ]
        if outcome:
            lanes.append(("outcome", OUTCOME_LANE + record_id, "card"))
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
                "post_as": post_as,
            }
            for kind, lane, post_as in lanes
        ]

        def work(conn: Connection) -> int | None:
            if not self._dedup.mark_callback_in(conn, team_id, record_id):
                return None
            if rows:
                conn.execute(_QUEUE, rows)
            return len(rows)

        return self._db.write(work)

    def heads(self) -> list[QueuedRecord]:
        """The oldest row of every lane (posts within a lane go strictly in order)."""
        return [self._queued(row) for row in self._db.all(_HEADS)]

    def lease(self, seq: int, owner: str, seconds: float) -> bool:
        """Take a row to post it: True for the one poster (of any process) that got it.
        A lease that ran out (its process died mid-post) can be taken over.

        On PostgreSQL the row is picked with ``FOR UPDATE SKIP LOCKED``: a poster that
        finds another one taking the same row moves on at once instead of waiting for it.
        """
        now = self._clock()
        params = {"row": seq, "now": now, "owner": owner, "until": now + seconds}

        def work(conn: Connection) -> bool:
            if conn.execute(_PICK, params).first() is None:
                return False
            return conn.execute(_TAKE, params).rowcount == 1

        return self._db.write(work)

    def take_fold(
        self,
        head: QueuedRecord,
        owner: str,
        seconds: float,
        limit: int,
        id_chars: int,
        note_room: int | None = None,
    ) -> list[QueuedRecord]:
        """``head`` (leased by ``owner``) and the ``fold`` rows behind it in its lane, at
        most ``limit`` in all and their record ids (as a JSON list) within ``id_chars``,
        leased together: the records one folded message takes.  Notable rows between them
        (``note``: replies on that message) are passed over and go out after it; a card
        of its own, or a row another poster holds, ends the run.

        Unless the lane is past its pace: when more than ``note_room`` notable rows wait
        in it (one message a second each would leave the last ones minutes late), they
        are taken into the folded message too, the head included (the caller marks them
        as notable there).  Empty when ``head`` is a notable row and the lane is not."""
        now = self._clock()
        params = {
            "team_id": head.team_id,
            "lane_id": head.lane,
            "first": head.seq,
            # Enough rows to tell whether the lane is past its pace, however little room
            # the open folded message has left.
            "limit": max(2 * max(1, limit), (note_room or 0) + 1),
        }

        def work(conn: Connection) -> list[QueuedRecord]:
            taken: list[QueuedRecord] = []
            left = id_chars
            rows = [self._queued(row) for row in conn.execute(_LANE_ROWS, params).mappings()]
            notes = sum(1 for queued in rows if queued.post_as == "note")
            fold_notes = note_room is not None and notes > note_room
            if head.post_as == "note" and (not fold_notes or _taken_before(head)):
                return []
            for queued in rows:
                # A notable row taken before (its poster died mid-post) goes out on its
                # own, where its reply or card is looked for first: folding it could show
                # it twice.  ``head`` says what the first row was before this poster.
                before = _taken_before(head if queued.seq == head.seq else queued)
                if queued.post_as == "note" and taken and (not fold_notes or before):
                    continue
                left -= len(json.dumps(queued.record_id)) + 2  # the id, its comma and space
                foldable = queued.post_as == "fold" or (fold_notes and queued.post_as == "note")
                if not foldable or (taken and left < 0) or len(taken) >= limit:
                    break
                lease = {"row": queued.seq, "now": now, "owner": owner, "until": now + seconds}
                if conn.execute(_TAKE, lease).rowcount != 1:
                    break
                taken.append(queued)
            return taken

        return self._db.write(work)

    def renew(self, seqs: Iterable[int], owner: str, seconds: float) -> None:
        """Hold these rows (taken by ``owner``) for ``seconds`` more."""
        now = self._clock()
        rows = [{"row": s, "now": now, "owner": owner, "until": now + seconds} for s in seqs]
        if rows:
            self._db.write(lambda conn: conn.execute(_TAKE, rows))

    def fold(self, team_id: str, channel: str) -> OpenFold | None:
        """The channel's folded message still open to edits, if any."""
        row = self._db.first(_FOLD, {"team_id": team_id, "channel": channel})
        if row is None:
            return None
        records: list[dict[str, Any]] = json.loads(self._box.decrypt(row["records_enc"]))
        return OpenFold(
            root_ts=str(row["root_ts"]), opened_at=float(row["opened_at"]), records=records
        )

    def folded(
        self,
        team_id: str,
        channel: str,
        seqs: Iterable[int],
        fold: OpenFold,
        *,
        lane_free_at: float,
    ) -> None:
        """Slack shows ``fold`` (posted or edited): its rows leave the queue, the fold is
        remembered as the channel's open one, and the lane's next row waits until
        ``lane_free_at``, in one transaction."""
        sealed = self._box.encrypt(json.dumps(fold.records, ensure_ascii=False))
        values = {
            "team_id": team_id,
            "channel": channel,
            "root_ts": fold.root_ts,
            "opened_at": fold.opened_at,
            "held": len(fold.records),
            "records_enc": sealed,
        }
        rows = [{"row": s} for s in seqs]

        def work(conn: Connection) -> None:
            if rows:
                conn.execute(_REMOVE, rows)
            conn.execute(self._db.pick(_OPEN_FOLD), values)
            hold = {"team": team_id, "lane_id": channel, "free_at": lane_free_at}
            conn.execute(_HOLD_NEXT, hold)

        self._db.write(work)

    def close_fold(self, team_id: str, channel: str) -> None:
        """The channel's folded message takes no more records (a card came after it, or
        its edits can no longer be trusted to show everything)."""
        self._db.change(_CLOSE_FOLD, {"team_id": team_id, "channel": channel})

    def release(self, owner: str) -> int:
        """Give back every row this poster holds (it is stopping)."""
        return self._db.change(_RELEASE, {"owner": owner})

    def leased_elsewhere(self, queued: QueuedRecord, owner: str) -> bool:
        """Whether another poster holds this row now."""
        return (
            queued.lease_owner not in (None, owner)
            and queued.lease_until is not None
            and queued.lease_until > self._clock()
        )

    def remove(
        self, seq: int, *, lane_free_at: float | None = None, close_fold: bool = False
    ) -> bool:
        """Drop a row (posted, found posted, or given up on). ``lane_free_at``: the next
        row of its lane waits until then, whichever process posts it: Slack's pace of a
        channel is kept by all the app's processes together, not by each on its own.
        ``close_fold``: the row's card is now the channel's latest message, so the
        channel's folded message takes no more records."""
        if lane_free_at is None and not close_fold:
            return self._db.change(_REMOVE, {"row": seq}) == 1

        def work(conn: Connection) -> bool:
            lane = conn.execute(_LANE_OF, {"row": seq}).first()
            if lane is None or conn.execute(_REMOVE, {"row": seq}).rowcount != 1:
                return False
            if close_fold:
                conn.execute(_CLOSE_FOLD, {"team_id": lane.team_id, "channel": lane.lane})
            if lane_free_at is not None:
                hold = {"team": lane.team_id, "lane_id": lane.lane, "free_at": lane_free_at}
                conn.execute(_HOLD_NEXT, hold)
            return True

        return self._db.write(work)

    def postpone(self, seq: int, not_before: float, error: str | None = None) -> None:
        """Try this row again at ``not_before`` (its lane waits behind it)."""
        self._db.change(_POSTPONE, {"row": seq, "retry_at": not_before, "error": error})

    def pending(self) -> int:
        """Posts waiting in the queue, of every workspace."""
        return int(self._db.scalar(_PENDING))

    def depth_and_oldest(self) -> tuple[int, float | None]:
        """Posts waiting in the queue (every workspace) and when the oldest of them was
        received (None when none waits), in one read: the metrics page shows both."""
        row = self._db.first(_QUEUE_STATS)
        if row is None or not row["depth"]:
            return 0, None
        return int(row["depth"]), float(row["oldest"])

    def clear(self) -> int:
        """Drop every queued post of every workspace (benchmarks reset between runs)."""
        return self._db.change(_CLEAR)

    def payload(self, queued: QueuedRecord) -> dict[str, Any]:
        """The record as the receiver accepted it."""
        payload: dict[str, Any] = json.loads(self._box.decrypt(queued.sealed))
        return payload

    def _queued(self, row: RowMapping) -> QueuedRecord:
        return from_row(QueuedRecord, row, sealed=row["payload_enc"])

    def routes_version(self, team_id: str) -> tuple[int, float, int]:
        """Changes whenever the team's notification routes change (added or removed, by
        this process or another), so the receiver can keep them between callbacks."""
        rows = self._db.all(_ROUTES, {"team_id": team_id})
        ids = "\n".join(sorted(str(r["id"]) for r in rows))
        checksum = int.from_bytes(hashlib.sha256(ids.encode()).digest()[:8], "big")
        newest = max((float(r["created_at"]) for r in rows), default=0.0)
        return len(rows), newest, checksum

    # -- threads ---------------------------------------------------------------------------

    @staticmethod
    def _thread(team_id: str, channel: str, day: str, subject: str) -> dict[str, str]:
        # The subject (a lead or a phone number) is identified without being stored.
        hashed = hashlib.sha256(f"{team_id}\x00{subject}".encode()).hexdigest()
        return {"team_id": team_id, "channel": channel, "day": day, "subject_hash": hashed}

    def thread_root(self, team_id: str, channel: str, day: str, subject: str) -> str | None:
        root = self._db.scalar(_THREAD_ROOT, self._thread(team_id, channel, day, subject))
        return None if root is None else str(root)

    def set_thread_root(self, team_id: str, channel: str, day: str, subject: str, ts: str) -> None:
        self._db.change(
            self._db.pick(_SET_THREAD_ROOT),
            {
                **self._thread(team_id, channel, day, subject),
                "root_ts": ts,
                "created_at": self._clock(),
            },
        )

    def forget_thread_root(self, team_id: str, channel: str, day: str, subject: str) -> None:
        self._db.change(_FORGET_THREAD, self._thread(team_id, channel, day, subject))

    def prune_threads(self, older_than: float) -> int:
        """Forget thread roots made before ``older_than`` (a day's threads end with the day)."""
        return self._db.change(_PRUNE_THREADS, {"older_than": older_than})

    # -- autocalls pushed from Slack -------------------------------------------------------

    def pushed_message(self, team_id: str, call_id: str) -> PushedMessage | None:
        """Where the autocall with this call id was pushed from, if it was pushed from Slack.

        The approval flow keeps ``{"call_id", "channel", "ts"}`` in the push's result; the
        approval card's own channel and ts stand in when the result names no message.
        The database narrows the pushes down to results that mention the id (a plain text
        match both engines run the same way); the JSON is read here.
        """
        rows = self._db.all(_PUSHES, {"team_id": team_id, "pattern": _containing(call_id)})
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
        found = self._db.first(_PUSH_IN_FLIGHT, {"team_id": team_id})
        return found is not None


def _taken_before(row: QueuedRecord) -> bool:
    """Whether a poster took ``row`` before (its lease ran out, or it was tried)."""
    return row.lease_owner is not None or row.attempts > 0
