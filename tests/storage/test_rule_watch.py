"""What the rule watch keeps, on both engines: the settings, each record noted once and
judged by one claimer, breaches counted by rule, and slots that only one process wins."""

from __future__ import annotations

from storage import Storage
from storage.rule_watch import LEASE, NotedRecord
from tests.storage.conftest import FakeClock


def record(record_id: str, started_at: float = 1_000.0) -> NotedRecord:
    return NotedRecord(record_id, "C1", "0912345678", started_at)


def test_settings_and_which_workspaces_are_watched(store: Storage) -> None:
    assert store.rule_watch.settings("T1").channel is None
    assert store.rule_watch.watched() == []
    store.rule_watch.set_channel("T1", "C0001", by="U1")
    store.rule_watch.set_enforce("T2", True, by="U1")
    store.rule_watch.set_enforce("T3", False, by="U1")
    watched = {s.team_id: s for s in store.rule_watch.watched()}
    assert set(watched) == {"T1", "T2"}
    assert watched["T1"].channel == "C0001" and not watched["T1"].enforce
    assert watched["T2"].enforce and watched["T2"].channel is None
    store.rule_watch.set_enforce("T1", True, by="U2")
    assert store.rule_watch.settings("T1").channel == "C0001"  # one column at a time


def test_a_record_is_noted_once_and_judged_by_one_claimer(store: Storage, clock: FakeClock) -> None:
    assert store.rule_watch.note("T1", [record("R1")]) == 0  # not watched: nothing kept
    store.rule_watch.set_channel("T1", "C0001", by="U1")
    assert store.rule_watch.note("T1", [record("R1"), record("R2")]) == 2
    assert store.rule_watch.note("T1", [record("R1")]) == 0
    first = store.rule_watch.claim_new("T1")
    assert [r.record_id for r in first] == ["R1", "R2"]
    assert store.rule_watch.claim_new("T1") == []  # claimed: no one else judges them
    store.rule_watch.settle("T1", "R1", ())
    clock.advance(LEASE + 1)  # the claimer of R2 stopped: it is taken over
    assert [r.record_id for r in store.rule_watch.claim_new("T1")] == ["R2"]
    store.rule_watch.settle("T1", "R2", ("hours", "dnc"), posted_ts="1.2")
    assert store.rule_watch.claim_new("T1") == []
    assert store.rule_watch.note("T1", [record("R2")]) == 0  # judged: never again


def test_breaches_are_counted_by_call_and_by_rule_in_a_period(store: Storage) -> None:
    store.rule_watch.set_channel("T1", "C0001", by="U1")
    store.rule_watch.note(
        "T1", [record("R1", 100.0), record("R2", 200.0), record("R3", 300.0), record("R4", 50.0)]
    )
    store.rule_watch.claim_new("T1")
    store.rule_watch.settle("T1", "R1", ("hours",), posted_ts="1")
    store.rule_watch.settle("T1", "R2", ("hours", "frequency"), posted_ts="2")
    store.rule_watch.settle("T1", "R3", ())
    store.rule_watch.settle("T1", "R4", ("dnc",), posted_ts="3")
    found = store.rule_watch.breaches_between("T1", 100.0, 300.0)
    assert found[""] == 2 and found["hours"] == 2 and found["frequency"] == 1
    assert found["dnc"] == 0
    assert store.rule_watch.breaches_between("T2", 0.0, 1_000.0)[""] == 0


def test_a_slot_is_won_once_and_released_for_a_retry(store: Storage) -> None:
    assert store.rule_watch.claim_slot("T1", "C1", "pause", "2026-11-28T17:00")
    assert not store.rule_watch.claim_slot("T1", "C1", "pause", "2026-11-28T17:00")
    assert store.rule_watch.claim_slot("T1", "C1", "pause", "2026-11-29T17:00")
    store.rule_watch.release_slot("T1", "C1", "pause", "2026-11-28T17:00")
    assert store.rule_watch.claim_slot("T1", "C1", "pause", "2026-11-28T17:00")
    store.rule_watch.remember_paused("T1", "C1", "Telesale", "2026-11-28T17:00")
    assert store.rule_watch.paused("T1")["C1"].campaign_name == "Telesale"
    store.rule_watch.forget_paused("T1", "C1")
    assert store.rule_watch.paused("T1") == {}
