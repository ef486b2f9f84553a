"""Keeping the database small under a real call center's feed.

The call feed writes a row for every call record the service calls back with (its id,
to drop a redelivery), a thread root per subject and day, and a fold per channel (the
records its folded message shows, encrypted).  At 20 records a second that is 1.7
million ids a day; kept for a week they would be most of the database.  Each is needed
for a bounded time only, and ``FeedPruning.prune`` forgets it after that:

* a delivered record's id (``processed_callbacks``): ``CALLBACK_IDS_KEPT``, one day.
  The service sends a record once (spec section 6 says nothing of retries); what could
  deliver it again is a retrying proxy or the service's own restart, within hours.
* a Slack event's id (``processed_events``): one day as well; Slack retries an event
  three times within about an hour.
* a channel's fold (``call_folds``): ``FOLDS_KEPT``, an hour.  A folded message takes
  more records for a minute (``bot.call_feed.FOLD_MAX_AGE``); after that the row is
  only read to find it closed, and it holds customers' records.
* a thread root (``call_threads``): ``THREADS_KEPT``, three days (a day's threads end
  with the day; the margin covers time zones and a late record).

Rows go in batches of ``BATCH``, each in its own short transaction, so the receiver
writing new ids is never held up behind one long delete.  The feed's own hourly
maintenance keeps its looser bounds; whichever runs first does the work.

Bound, at 20 records a second, steady state: a day's callback ids, 1.73 million rows,
measured at 151 bytes a row in SQLite and 215 in PostgreSQL (table and indexes), so
about 260 MB and 370 MB; the folds (one row per channel) and thread roots (one per
subject and day, three days) are small beside them.  Kept a week (the feed's own bound)
they would be 1.8 GB / 2.6 GB, and never pruned, a month 7.8 GB / 11 GB.  SQLite reuses
freed pages rather than shrinking the file, so the file stays at that high-water mark;
PostgreSQL's autovacuum does the same.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Table, delete, select, tuple_
from sqlalchemy.engine import Connection
from sqlalchemy.sql.elements import ColumnElement

from storage._rows import Store
from storage.schema import call_folds, call_threads, processed_callbacks, processed_events

CALLBACK_IDS_KEPT = 86400.0
EVENT_IDS_KEPT = 86400.0
FOLDS_KEPT = 3600.0
THREADS_KEPT = 3 * 86400.0
BATCH = 5000
"""Rows deleted per transaction."""
PRUNE_EVERY = 600.0
"""Seconds between two prunes (``bot.digest_scheduler`` runs it)."""


@dataclass(frozen=True)
class Pruned:
    """How many rows of each table one prune forgot."""

    callback_ids: int = 0
    event_ids: int = 0
    folds: int = 0
    threads: int = 0

    @property
    def total(self) -> int:
        return self.callback_ids + self.event_ids + self.folds + self.threads


class FeedPruning(Store):
    batch = BATCH

    def prune(self, now: float | None = None) -> Pruned:
        """Forget what the feed no longer needs as of ``now`` (Unix seconds)."""
        at = self._clock() if now is None else now
        c, e, f, t = processed_callbacks.c, processed_events.c, call_folds.c, call_threads.c
        return Pruned(
            callback_ids=self._batched(
                processed_callbacks,
                (c.team_id, c.callback_id),
                c.processed_at < at - CALLBACK_IDS_KEPT,
            ),
            event_ids=self._batched(
                processed_events, (e.team_id, e.event_id), e.processed_at < at - EVENT_IDS_KEPT
            ),
            folds=self._batched(call_folds, (f.team_id, f.channel), f.opened_at < at - FOLDS_KEPT),
            threads=self._batched(
                call_threads,
                (t.team_id, t.channel, t.day, t.subject_hash),
                t.created_at < at - THREADS_KEPT,
            ),
        )

    def _batched(
        self, table: Table, key: tuple[ColumnElement[str], ...], old: ColumnElement[bool]
    ) -> int:
        """Delete ``table``'s rows matching ``old``, ``batch`` at a time."""
        size = self.batch
        statement = delete(table).where(tuple_(*key).in_(select(*key).where(old).limit(size)))
        removed = 0
        while True:

            def work(conn: Connection) -> int:
                return conn.execute(statement).rowcount

            done = self._db.write(work)
            removed += done
            if done < size:
                return removed
