from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from storage import LATEST_VERSION, SecretBox, Storage, open_database, read_schema_version
from storage.errors import SchemaTooNewError


def test_a_fresh_file_gets_the_whole_schema_in_wal_mode_with_foreign_keys(db_path: Path) -> None:
    db = open_database(db_path)
    try:
        assert read_schema_version(db) == LATEST_VERSION >= 2
        assert db.journal_mode == "wal"
        assert db.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert db.execute("PRAGMA busy_timeout").fetchone()[0] > 0
        for table in ("workspaces", "approvals", "audit_log", "digests", "digest_runs"):
            assert table in db.table_names()
    finally:
        db.close()


def test_reopening_a_current_file_changes_nothing(db_path: Path, box: SecretBox) -> None:
    with Storage.open(db_path, box) as first:
        first.workspaces.ensure("T1")
    with Storage.open(db_path, box) as second:
        assert second.workspaces.require("T1").team_id == "T1"
        assert read_schema_version(second.db) == LATEST_VERSION


def test_a_version_1_file_upgrades_and_keeps_its_data(db_path: Path, box: SecretBox) -> None:
    old = open_database(db_path, target_version=1)
    assert read_schema_version(old) == 1
    assert "digests" not in old.table_names()
    Storage(old, box).workspaces.connect("T1", "http://127.0.0.1:9", "secret-key")
    old.close()

    with Storage.open(db_path, box) as upgraded:
        assert read_schema_version(upgraded.db) == LATEST_VERSION
        assert upgraded.workspaces.api_key("T1") == "secret-key"
        digest = upgraded.digests.add(
            "T1", channel="C1", schedule="daily 08:00", timezone="UTC", created_by="U1"
        )
        assert upgraded.digests.claim_slot("T1", digest.id, "2024-01-01T08:00")


def test_a_file_from_a_newer_callops_is_refused_and_left_untouched(db_path: Path) -> None:
    open_database(db_path).close()
    raw = sqlite3.connect(db_path)
    raw.execute("UPDATE schema_version SET version = ?", [LATEST_VERSION + 1])
    raw.commit()
    raw.close()
    before = db_path.read_bytes()

    with pytest.raises(SchemaTooNewError) as caught:
        open_database(db_path)

    message = str(caught.value)
    assert f"version {LATEST_VERSION + 1}" in message
    assert "upgrade callops" in message
    assert db_path.read_bytes() == before


def test_two_connections_migrating_at_once_migrate_once(db_path: Path) -> None:
    first = open_database(db_path, target_version=1)
    second = open_database(db_path, target_version=1)
    try:
        from storage import migrate

        assert migrate(first) == LATEST_VERSION
        assert migrate(second) == LATEST_VERSION
        assert first.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == 1
    finally:
        first.close()
        second.close()
