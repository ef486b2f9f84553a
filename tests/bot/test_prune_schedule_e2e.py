"""The running app's scheduler prunes what the call feed keeps per call record."""

from __future__ import annotations

import time

from bot.digest_scheduler import PRUNE_JOB
from bot.runtime import Runtime
from emulators.slack import TEAM
from storage.feed_pruning import CALLBACK_IDS_KEPT
from tests.storage.conftest import raw


async def test_the_scheduler_forgets_ids_older_than_a_day(app: Runtime) -> None:
    store = app.storage
    assert app.scheduler.running
    assert app.scheduler.has_job(PRUNE_JOB)
    for n in range(3):
        assert store.call_feed.accept(TEAM, f"old-{n}", {}, []) == 0
    assert store.call_feed.accept(TEAM, "recent", {}, []) == 0
    raw(
        store.db,
        "UPDATE processed_callbacks SET processed_at = :at WHERE callback_id LIKE 'old-%'",
        {"at": time.time() - CALLBACK_IDS_KEPT - 60},
    )

    pruned = await app.scheduler.prune()

    assert pruned is not None and pruned.callback_ids == 3
    assert raw(store.db, "SELECT callback_id FROM processed_callbacks") == [("recent",)]
    # The recent one is still known: its redelivery is still dropped.
    assert store.call_feed.accept(TEAM, "recent", {}, []) is None
