"""A workspace's calling rules and the pushes it counts, on both engines (the lists:
``test_call_lists.py``)."""

from __future__ import annotations

from storage import Storage
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
