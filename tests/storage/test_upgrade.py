"""A database made by the numbered migrations of before is taken over by the Alembic
revisions on both engines without losing a row or a secret, and a database at head is
exactly what `storage.schema` declares."""

from __future__ import annotations

from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Table, insert, inspect, select
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError

from storage import (
    LATEST_VERSION,
    AuditLog,
    SecretBox,
    Storage,
    connect,
    migrate,
    open_database,
    read_schema_version,
)
from storage.errors import StorageError
from storage.migrations import BASELINE, SECRET_SUFFIX, alembic_config, revision_id
from storage.schema import DATA_TABLES, Flag, StringList, metadata
from tests.storage.conftest import raw, sqlite_path
from tests.storage.legacy import make_legacy_database

_CHECKED = {
    "team_id": "T1",
    "params": '{"reason": "kept"}',
    "language": "vi",
    "default_language": "en",
    "name_order": "given-first",
    "role": "operator",
    "min_role": "admin",
    "mode": "approval",
    "state": "executing",
    "kind": "card",
    "hours_start": 480,
    "hours_end": 1260,
    "advertising": 1,
}
"""Values the columns' CHECK rules accept (every other column takes a made-up one)."""


def _row(table: Table, box: SecretBox) -> dict[str, Any]:
    """One row with a value in every column; secrets encrypted as the stores encrypt them."""
    row: dict[str, Any] = {}
    for number, column in enumerate(table.columns, start=1):
        if column.name in _CHECKED:
            row[column.name] = _CHECKED[column.name]
        elif column.name.endswith(SECRET_SUFFIX):
            row[column.name] = box.encrypt(f"secret of {table.name}.{column.name}")
        elif isinstance(column.type, StringList):
            row[column.name] = ("first", f"{column.name}-{number}")
        elif isinstance(column.type, Flag):
            row[column.name] = True
        elif column.foreign_keys:
            row[column.name] = "parent"
        elif column.type.python_type is str:
            row[column.name] = "parent" if column.name == "id" else f"{column.name}-{number}"
        elif column.type.python_type is int:
            row[column.name] = 40 + number
        else:
            row[column.name] = 1_700_000_000.5 + number
    return row


def _baseline_tables(conn: Connection) -> dict[str, list[str]]:
    """The data tables a database of the baseline has, with their columns (later
    revisions add tables and columns)."""
    found = inspect(conn)
    return {
        table.name: [str(c["name"]) for c in found.get_columns(table.name)]
        for table in DATA_TABLES
        if found.has_table(table.name)
    }


def _contents(conn: Connection, tables: dict[str, list[str]]) -> dict[str, list[tuple[Any, ...]]]:
    out = {}
    for table in DATA_TABLES:
        if table.name in tables:
            columns = [table.c[name] for name in tables[table.name]]
            query = select(*columns).order_by(*table.primary_key)
            out[table.name] = [tuple(r) for r in conn.execute(query)]
    return out


def _differences(conn: Connection) -> list[Any]:
    """What the database and the declarations disagree on, as Alembic's autogenerate sees
    it. Two things SQLite reads back differently from a file the numbered migrations made,
    which are the same schema all the same: a one-column ``TEXT PRIMARY KEY`` without NOT
    NULL (no store writes a NULL key), and ON DELETE CASCADE written on the column, which
    SQLite's reflection does not read back (the cascade itself is checked by the stores'
    tests)."""
    context = MigrationContext.configure(conn, opts={"compare_type": True})
    found = []
    for diff in compare_metadata(context, metadata):
        step = diff[0] if isinstance(diff, list) else diff
        if conn.dialect.name == "sqlite" and (
            step[0] in ("remove_fk", "add_fk")
            or (step[0] == "modify_nullable" and metadata.tables[step[2]].c[step[3]].primary_key)
        ):
            continue
        found.append(diff)
    return found


def test_the_latest_version_is_the_newest_revision() -> None:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head == revision_id(LATEST_VERSION)


def test_a_database_made_before_the_revisions_keeps_every_row_and_secret(
    empty_db_url: str, box: SecretBox
) -> None:
    make_legacy_database(empty_db_url)
    old = connect(empty_db_url)
    try:
        assert read_schema_version(old) == BASELINE
        tables = old.read(_baseline_tables)
        rows = {
            table.name: {k: v for k, v in _row(table, box).items() if k in tables[table.name]}
            for table in DATA_TABLES
            if table.name in tables
        }
        old.write(
            lambda conn: [
                conn.execute(insert(t), rows[t.name]) for t in DATA_TABLES if t.name in rows
            ]
        )
        before = old.read(lambda conn: _contents(conn, tables))
    finally:
        old.close()

    with Storage.open(empty_db_url, box) as store:
        db = store.db
        assert read_schema_version(db) == LATEST_VERSION
        assert not inspect(db.engine).has_table("schema_version")
        assert raw(db, "SELECT version_num FROM alembic_version") == [
            (revision_id(LATEST_VERSION),)
        ]
        after = db.read(lambda conn: _contents(conn, tables))
        assert after == before
        assert all(len(found) == 1 for found in after.values())
        for table in (t for t in DATA_TABLES if t.name in tables):
            (stored,) = db.all(select(table))
            for name, value in stored.items():
                if name.endswith(SECRET_SUFFIX):
                    assert box.decrypt(value) == f"secret of {table.name}.{name}"
        assert store.workspaces.api_key("T1") == "secret of workspaces.api_key_enc"
        # The tables keep working as today's code writes them: numbering, defaults, rules.
        store.audit.append("T1", "U1", "test.upgraded")
        actions = [entry.action for entry in store.audit.entries("T1")]
        assert actions == [rows["audit_log"]["action"], "test.upgraded"]
        assert db.read(_differences) == []


def test_a_new_database_at_head_is_what_the_declarations_say(empty_db_url: str) -> None:
    db = open_database(empty_db_url)
    try:
        assert read_schema_version(db) == LATEST_VERSION
        assert db.read(_differences) == []
        AuditLog(db).append("T1", "U1", "test.created")
        with pytest.raises(DBAPIError, match="append-only"):
            db.write(lambda conn: conn.exec_driver_sql("DELETE FROM audit_log"))
    finally:
        db.close()


def test_undoing_the_baseline_is_refused_and_keeps_every_table(empty_db_url: str) -> None:
    db = open_database(empty_db_url)
    try:
        AuditLog(db).append("T1", "U1", "test.kept")
        with db.engine.begin() as conn:  # the revisions after the baseline undo themselves
            command.downgrade(alembic_config(conn), revision_id(BASELINE))
        with db.engine.begin() as conn, pytest.raises(CommandError, match="restore a backup"):
            command.downgrade(alembic_config(conn), "base")
        assert read_schema_version(db) == BASELINE
        migrate(db)
        assert read_schema_version(db) == LATEST_VERSION
        assert db.read(_differences) == []
        assert [e.action for e in AuditLog(db).entries("T1")] == ["test.kept"]
    finally:
        db.close()


def test_a_database_older_than_the_baseline_is_refused_and_left_untouched(
    empty_db_url: str,
) -> None:
    make_legacy_database(empty_db_url)
    old = connect(empty_db_url)
    raw(old, "UPDATE schema_version SET version = :v", {"v": BASELINE - 1})
    old.close()
    path = sqlite_path(empty_db_url)
    before = path.read_bytes() if path else b""

    with pytest.raises(StorageError, match=f"bring it to version {BASELINE}"):
        open_database(empty_db_url)

    if path:
        assert path.read_bytes() == before
    check = connect(empty_db_url)
    try:
        assert raw(check, "SELECT version FROM schema_version") == [(BASELINE - 1,)]
        assert not inspect(check.engine).has_table("alembic_version")
    finally:
        check.close()
