"""A workspace's calling rules and the pushes it counts, on both engines (the lists:
``test_call_lists.py``)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from storage import SecretBox, Storage
from storage.calling_rules import DEFAULT_FREQUENCY, DEFAULT_HOURS
from tests.storage.conftest import FakeClock


def test_rules_start_at_the_decrees_and_a_campaign_overrides_them(store: Storage) -> None:
    rules = store.calling_rules.rules("T1")
    assert (rules.hours, rules.frequency) == (DEFAULT_HOURS, DEFAULT_FREQUENCY)
    store.calling_rules.set_hours("T1", (9 * 60, 16 * 60))
    store.calling_rules.set_hours("T1", (10 * 60, 12 * 60), campaign_uuid="C1")
    store.calling_rules.set_advertising("T1", "C2", False)
    store.calling_rules.set_frequency("T1", 2)
    rules = store.calling_rules.rules("T1")
    assert rules.hours_of("C1") == (600, 720) and rules.hours_of("C2") == (540, 960)
    assert rules.of("C2").advertising is False and rules.of("C1").advertising is None
    assert rules.frequency == 2
    assert store.calling_rules.rules("T2").hours == DEFAULT_HOURS  # one workspace's only


def test_pushes_older_than_a_day_are_dropped_as_new_ones_come(
    store: Storage, clock: FakeClock
) -> None:
    store.calling_rules.record_push("T1", "0912345678", "C1")
    first = clock()
    clock.advance(25 * 3600)
    store.calling_rules.record_push("T1", "0987654321", "C1")
    assert store.calling_rules.pushes_since("T1", "0912345678", 0.0) == []
    assert store.calling_rules.pushes_since("T1", "0987654321", first) == [clock()]


def test_a_frequency_slot_is_claimed_once_however_many_replicas_race(
    db_url: str, box: SecretBox
) -> None:
    """Eight stores on one database (eight replicas) claim the same number's last place
    at once, round after round: one wins with a limit of 1, two with a limit of 2, and a
    place given back is there to take again."""
    replicas = [Storage.open(db_url, box) for _ in range(8)]
    try:
        with ThreadPoolExecutor(len(replicas)) as pool:
            for round_no in range(12):
                phone, limit = f"09123{round_no:05d}", 1 + round_no % 2
                barrier = threading.Barrier(len(replicas))

                def claim(
                    store: Storage,
                    phone: str = phone,
                    limit: int = limit,
                    barrier: threading.Barrier = barrier,
                ) -> int | None:
                    barrier.wait()
                    return store.calling_rules.claim_slot("T1", phone, "C1", limit=limit, after=0.0)

                won = [s for s in pool.map(claim, replicas) if s is not None]
                assert len(won) == limit, (round_no, won)
                assert len(replicas[0].calling_rules.pushes_since("T1", phone, 0.0)) == limit
        replicas[0].calling_rules.release_slot("T1", won[0])
        again = replicas[1].calling_rules.claim_slot("T1", phone, "C1", limit=limit, after=0.0)
        assert again is not None
        assert (
            replicas[2].calling_rules.claim_slot("T1", phone, "C1", limit=limit, after=0.0) is None
        )
    finally:
        for replica in replicas:
            replica.close()


def test_claims_after_the_latest_call_record_count_only_later_pushes(
    store: Storage, clock: FakeClock
) -> None:
    first = store.calling_rules.claim_slot("T1", "0912345678", "C1", limit=1, after=0.0)
    assert first is not None
    clock.advance(60)
    # The service's records now show that call (the caller counts it among the records):
    # pushes before the latest record are not counted twice.
    seen = clock() - 1
    assert store.calling_rules.claim_slot("T1", "0912345678", "C1", limit=1, after=seen)
    assert store.calling_rules.claim_slot("T1", "0912345678", "C1", limit=1, after=seen) is None
    clock.advance(25 * 3600)
    assert store.calling_rules.claim_slot("T1", "0912345678", "C1", limit=1, after=0.0)


def test_stale_lock_rows_are_forgotten(store: Storage, clock: FakeClock) -> None:
    assert store.calling_rules.claim_slot("T1", "0912345678", "C1", limit=1, after=0.0)
    assert store.calling_rules.forget_locks("T1") == 0  # claimed within the day
    clock.advance(25 * 3600)
    assert store.calling_rules.forget_locks("T1") == 1
    assert store.calling_rules.claim_slot("T1", "0912345678", "C1", limit=1, after=0.0)
