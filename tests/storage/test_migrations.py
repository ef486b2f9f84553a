from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import inspect

from storage import (
    LATEST_VERSION,
    Database,
    SecretBox,
    Storage,
    connect,
    migrate,
    open_database,
    read_schema_version,
)
from storage.errors import SchemaTooNewError
from storage.migrations import revision_id
from tests.storage.conftest import at_once, raw, sqlite_path


def _schema(db: Database) -> dict[str, list[str]]:
    """Every table of the database with its columns, in order."""

    def read(conn: Any) -> dict[str, list[str]]:
        inspector = inspect(conn)
        return {
            name: [str(c["name"]) for c in inspector.get_columns(name)]
            for name in sorted(inspector.get_table_names())
        }

    return db.read(read)


def test_a_fresh_database_gets_the_whole_schema_and_its_settings(empty_db_url: str) -> None:
    db = open_database(empty_db_url)
    try:
        assert read_schema_version(db) == LATEST_VERSION >= 4
        for table in ("workspaces", "approvals", "audit_log", "digests", "digest_runs"):
            assert inspect(db.engine).has_table(table)
        if db.is_sqlite:
            assert db.sqlite_pragma("PRAGMA journal_mode") == [("wal",)]
            assert raw(db, "PRAGMA foreign_keys") == [(1,)]
            assert raw(db, "PRAGMA busy_timeout") == [(2000,)]
            assert raw(db, "PRAGMA synchronous") == [(1,)]  # NORMAL
        else:
            assert raw(db, "SHOW lock_timeout") == [("2s",)]
            assert raw(db, "SHOW statement_timeout") == [("30s",)]
    finally:
        db.close()


def test_reopening_a_current_database_changes_nothing(empty_db_url: str, box: SecretBox) -> None:
    with Storage.open(empty_db_url, box) as first:
        first.workspaces.ensure("T1")
        before = _schema(first.db)
    with Storage.open(empty_db_url, box) as second:
        assert second.workspaces.require("T1").team_id == "T1"
        assert read_schema_version(second.db) == LATEST_VERSION
        assert _schema(second.db) == before
        assert raw(second.db, "SELECT COUNT(*) FROM alembic_version") == [(1,)]


def test_a_database_from_a_newer_callops_is_refused_and_left_untouched(empty_db_url: str) -> None:
    db = open_database(empty_db_url)
    raw(db, "UPDATE alembic_version SET version_num = :v", {"v": revision_id(LATEST_VERSION + 1)})
    schema = _schema(db)
    db.close()
    path = sqlite_path(empty_db_url)
    before = path.read_bytes() if path else b""

    with pytest.raises(SchemaTooNewError) as caught:
        open_database(empty_db_url)

    message = str(caught.value)
    assert f"version {LATEST_VERSION + 1}" in message
    assert "upgrade callops" in message
    if path:
        assert path.read_bytes() == before
    check = connect(empty_db_url)
    try:
        assert _schema(check) == schema
        assert read_schema_version(check) == LATEST_VERSION + 1
    finally:
        check.close()


def test_two_connections_migrating_one_after_the_other_migrate_once(empty_db_url: str) -> None:
    first = open_database(empty_db_url, target_version=0)
    second = open_database(empty_db_url, target_version=0)
    try:
        assert migrate(first) == LATEST_VERSION
        assert migrate(second) == LATEST_VERSION
        assert read_schema_version(first) == LATEST_VERSION
    finally:
        first.close()
        second.close()


def test_replicas_starting_together_on_a_new_database_migrate_it_once(empty_db_url: str) -> None:
    """Several processes opening an empty database at the same instant: each one waits for
    the one that migrates (SQLite's write lock, PostgreSQL's advisory lock) and then finds
    the schema in place, instead of creating the tables twice."""
    starters = 4
    opened: list[Database] = []

    def start(_: int) -> None:
        opened.append(open_database(empty_db_url, busy_timeout=10))

    try:
        at_once(starters, start, timeout=60)
        assert len(opened) == starters
        assert raw(opened[0], "SELECT COUNT(*) FROM alembic_version") == [(1,)]
    finally:
        for db in opened:
            db.close()


def test_a_new_sqlite_file_switches_to_wal_once_a_writer_lets_go(tmp_path: Path) -> None:
    """Another process in the middle of a write on a new file (a replica starting at the
    same moment): SQLite refuses the switch to write-ahead logging at once, whatever the
    busy timeout, and the opening waits for the writer instead of failing."""
    path = tmp_path / "callops.db"
    writer = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    writer.execute("CREATE TABLE other_process (a INTEGER)")
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("INSERT INTO other_process VALUES (1)")
    done = threading.Timer(0.5, lambda: writer.execute("COMMIT"))
    done.start()
    try:
        db = open_database(str(path), busy_timeout=10)
    finally:
        done.join()
        writer.close()
    try:
        assert db.sqlite_pragma("PRAGMA journal_mode") == [("wal",)]
        assert read_schema_version(db) == LATEST_VERSION
    finally:
        db.close()
