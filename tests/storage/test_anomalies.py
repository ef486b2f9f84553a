"""Anomaly episodes open, update and close once each, whoever checks; a workspace's
minute is checked by one process (on both engines)."""

from __future__ import annotations

from typing import Any

from storage import SecretBox, Storage
from tests.storage.conftest import FakeClock


def _alert(store: Storage, team: str = "T1") -> str:
    return store.alerts.add(
        team,
        channel="C1",
        metric="answer_rate",
        op="anomaly",
        threshold=0,
        window_minutes=60,
        created_by="U1",
    ).id


def _figures(slot: str, value: float = 12.0) -> dict[str, Any]:
    return {"value": value, "usual": 55.0, "low": 45.0, "high": 65.0, "calls": 80, "slot": slot}


def _open(store: Storage, alert_id: str, slot: str = "2026-11-30T10:40Z") -> Any:
    return store.anomalies.open(
        "T1",
        alert_id,
        scope_kind="network",
        scope_key="Viettel",
        scope_name="Viettel",
        kpi="answer_rate",
        **_figures(slot),
    )


def test_a_minute_is_claimed_once_and_never_an_earlier_one(store: Storage) -> None:
    assert store.anomalies.claim_check("T1", "2026-11-30T10:40Z")
    assert not store.anomalies.claim_check("T1", "2026-11-30T10:40Z")
    assert not store.anomalies.claim_check("T1", "2026-11-30T10:39Z")
    assert store.anomalies.claim_check("T2", "2026-11-30T10:40Z")
    assert store.anomalies.claim_check("T1", "2026-11-30T10:41Z")


def test_an_episode_opens_updates_and_closes_once(store: Storage, clock: FakeClock) -> None:
    alert_id = _alert(store)
    episode = _open(store, alert_id)
    assert episode is not None and episode.closed_at is None
    assert _open(store, alert_id) is None, "one episode of a subject at a time"
    store.anomalies.attach("T1", episode.id, channel="C1", ts="1.2")
    figures = _figures("2026-11-30T10:41Z", 10.0)
    figures.pop("slot")
    touched = store.anomalies.touch("T1", episode.id, slot="2026-11-30T10:41Z", **figures)
    assert touched is not None and (touched.value, touched.message_ts) == (10.0, "1.2")
    assert store.anomalies.touch("T1", episode.id, slot="2026-11-30T10:41Z", **figures) is None
    closed = store.anomalies.close("T1", episode.id, "recovered")
    assert closed is not None and closed.closed_how == "recovered"
    assert store.anomalies.close("T1", episode.id, "recovered") is None
    assert store.anomalies.open_of("T1", alert_id) == []
    clock.advance(60)
    again = _open(store, alert_id, "2026-11-30T11:00Z")
    assert again is not None and again.id != episode.id
    assert [e.id for e in store.anomalies.of_alert("T1", alert_id)] == [episode.id, again.id]
    assert store.anomalies.open_of("T2", alert_id) == [], "another workspace sees none"


def test_two_processes_open_and_claim_once_between_them(db_url: str, box: SecretBox) -> None:
    with Storage.open(db_url, box) as first, Storage.open(db_url, box) as second:
        alert_id = _alert(first)
        slot = "2026-11-30T10:40Z"
        claims = [s.anomalies.claim_check("T1", slot) for s in (first, second)]
        assert sorted(claims) == [False, True]
        opened = [_open(s, alert_id) for s in (first, second)]
        assert len([e for e in opened if e is not None]) == 1


def test_removing_the_alert_removes_its_episodes(store: Storage) -> None:
    alert_id = _alert(store)
    assert _open(store, alert_id) is not None
    assert store.alerts.remove("T1", alert_id)
    assert store.anomalies.of_alert("T1", alert_id) == []
