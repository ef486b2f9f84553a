"""Alerts fire and recover once each, whoever checks; workspace notices open once."""

from __future__ import annotations

from sqlalchemy import inspect

from storage import SecretBox, Storage, read_schema_version
from tests.storage.conftest import FakeClock


def _alert(store: Storage, team: str = "T1") -> str:
    return store.alerts.add(
        team,
        channel="C1",
        metric="dropped_rate",
        op=">",
        threshold=5,
        window_minutes=60,
        created_by="U1",
        campaign_uuid="camp-1",
        campaign_name="Summer",
    ).id


def test_an_alert_fires_once_until_it_recovers(store: Storage) -> None:
    alert_id = _alert(store)
    assert store.alerts.mark_fired("T1", alert_id, "camp-1", 7.5)
    assert not store.alerts.mark_fired("T1", alert_id, "camp-1", 8.0)
    assert store.alerts.attach_message("T1", alert_id, "camp-1", channel="C1", ts="1.2")
    fired = store.alerts.recover("T1", alert_id, "camp-1")
    assert fired is not None and (fired.value, fired.message_ts) == (7.5, "1.2")
    assert store.alerts.recover("T1", alert_id, "camp-1") is None
    assert store.alerts.mark_fired("T1", alert_id, "camp-1", 9.0)


def test_two_processes_fire_once_between_them(db_url: str, box: SecretBox) -> None:
    with Storage.open(db_url, box) as first, Storage.open(db_url, box) as second:
        alert_id = _alert(first)
        results = [
            first.alerts.mark_fired("T1", alert_id, "camp-1", 7.0),
            second.alerts.mark_fired("T1", alert_id, "camp-1", 7.0),
        ]
        assert sorted(results) == [False, True]
        assert [bool(first.alerts.recover("T1", alert_id, "camp-1")),
                bool(second.alerts.recover("T1", alert_id, "camp-1"))] == [True, False]  # fmt: skip


def test_snooze_silences_and_rearms(store: Storage, clock: FakeClock) -> None:
    alert_id = _alert(store)
    store.alerts.mark_fired("T1", alert_id, "camp-1", 7.5)
    snoozed = store.alerts.snooze("T1", alert_id, clock() + 3600)
    assert snoozed.snoozed_until == clock() + 3600
    assert store.alerts.fired("T1", alert_id) == []


def test_alerts_are_kept_per_workspace(store: Storage) -> None:
    alert_id = _alert(store, "T1")
    assert store.alerts.get("T2", alert_id) is None
    assert not store.alerts.mark_fired("T2", alert_id, "camp-1", 7.0)
    assert not store.alerts.remove("T2", alert_id)
    assert [a.id for a in store.alerts.all()] == [alert_id]
    store.alerts.mark_fired("T1", alert_id, "camp-1", 7.0)
    assert store.alerts.remove("T1", alert_id)
    assert store.alerts.all() == []


def test_a_notice_opens_once_and_closes(store: Storage) -> None:
    assert store.notices.open("T1", "service", detail="AuthenticationError", channel="C9")
    assert not store.notices.open("T1", "service", detail="again")
    notice = store.notices.get("T1", "service")
    assert notice is not None and (notice.detail, notice.channel) == ("AuthenticationError", "C9")
    assert store.notices.get("T2", "service") is None
    assert store.notices.close("T1", "service")
    assert not store.notices.close("T1", "service")
    assert store.notices.open("T1", "service")


def test_active_digests_span_workspaces_and_skip_paused(store: Storage) -> None:
    one = store.digests.add("T1", channel="C1", schedule="hourly", timezone="UTC", created_by="U")
    two = store.digests.add("T2", channel="C2", schedule="hourly", timezone="UTC", created_by="U")
    store.digests.set_paused("T2", two.id, paused=True)
    assert [d.id for d in store.digests.active()] == [one.id]


def test_the_new_tables_come_with_a_migration(store: Storage) -> None:
    assert read_schema_version(store.db) >= 4
    for table in ("alerts", "alert_fired", "workspace_notices"):
        assert inspect(store.db.engine).has_table(table)
