"""The call feed's per-record tables shrink to what is still needed when pruned."""

from __future__ import annotations

from storage import OpenFold, Storage
from storage.feed_pruning import CALLBACK_IDS_KEPT, FOLDS_KEPT, THREADS_KEPT
from tests.storage.conftest import FakeClock, raw

HOUR = 3600.0


def rows(store: Storage, table: str) -> int:
    [(count,)] = raw(store.db, f"SELECT COUNT(*) FROM {table}")
    return int(count)


def test_the_feeds_tables_shrink_to_what_is_still_needed(store: Storage, clock: FakeClock) -> None:
    feed = store.call_feed
    store.feed_pruning.batch = 40  # several batches, as a real day's ids take
    # Two days of the feed: 25 records an hour, a thread root and a fold a day.
    for hour in range(48):
        for n in range(25):
            assert feed.accept("T1", f"cdr-{hour}-{n}", {}, []) == 0
        if hour % 24 == 0:
            feed.set_thread_root("T1", f"C{hour}", f"day-{hour}", "subject", "1.000")
            store.dedup.mark_event("T1", f"Ev{hour}")
            feed.folded("T1", f"C{hour}", [], OpenFold("2.000", clock(), []), lane_free_at=0)
        clock.advance(HOUR)
    before = {
        t: rows(store, t)
        for t in ("processed_callbacks", "processed_events", "call_folds", "call_threads")
    }
    assert before == {
        "processed_callbacks": 1200,
        "processed_events": 2,
        "call_folds": 2,
        "call_threads": 2,
    }

    pruned = store.feed_pruning.prune()

    kept_hours = int(CALLBACK_IDS_KEPT // HOUR)
    assert rows(store, "processed_callbacks") == 25 * kept_hours
    assert pruned.callback_ids == 1200 - 25 * kept_hours
    assert rows(store, "processed_events") == 1
    assert rows(store, "call_folds") == 0  # both opened over an hour ago
    assert rows(store, "call_threads") == 2  # within three days
    assert pruned.total == sum(before.values()) - sum(rows(store, t) for t in before)
    # What is still kept still drops a redelivery; a forgotten id is a new record again.
    assert feed.accept("T1", "cdr-47-0", {}, []) is None
    assert feed.accept("T1", "cdr-0-0", {}, []) == 0

    feed.folded("T1", "C9", [], OpenFold("3.000", clock(), []), lane_free_at=0)
    clock.advance(FOLDS_KEPT - 1)
    store.feed_pruning.prune()
    assert feed.fold("T1", "C9") is not None
    clock.advance(THREADS_KEPT)
    again = store.feed_pruning.prune()
    assert feed.fold("T1", "C9") is None
    assert again.threads == 2
    assert rows(store, "processed_callbacks") == 0
