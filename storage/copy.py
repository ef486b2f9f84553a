"""Moving an installation from one database to another (`callops db copy`), typically from
the embedded SQLite file to the PostgreSQL server that several replicas will share.

Rows are copied as they are: encrypted columns stay ciphertext (no key is needed, and the
same CALLOPS_SECRET_KEY reads them on the other side), ids and sequence numbers are kept
(a queued call record keeps its place; an audit entry keeps its id). The source is read in
one snapshot; the target is written in one transaction, so it ends up with everything or
with nothing; and the row counts of both are compared before that transaction commits.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table, func, insert, select
from sqlalchemy.engine import Connection
from sqlalchemy.schema import DropTable

from storage.database import Database, begin_sqlite
from storage.errors import DatabaseNotEmptyError, StorageError
from storage.migrations import LATEST_VERSION, migrate_connection, read_schema_version
from storage.schema import DATA_TABLES, alembic_version

log = logging.getLogger(__name__)

BATCH_ROWS = 500
"""Rows read from the source and written to the target at a time (bounded memory)."""


@dataclass(frozen=True)
class CopyReport:
    source: str
    target: str
    rows: dict[str, int]
    """Rows copied per table (equal to the source's count, checked)."""
    replaced: bool
    """The target held rows that were dropped first (``force``)."""

    @property
    def total(self) -> int:
        return sum(self.rows.values())


def _counts(conn: Connection) -> dict[str, int]:
    count = select(func.count()).select_from
    return {table.name: int(conn.execute(count(table)).scalar_one()) for table in DATA_TABLES}


def _check_version(db: Database, role: str) -> None:
    version = read_schema_version(db, refuse_newer=True)
    if version != LATEST_VERSION:
        raise StorageError(
            f"the {role} database {db.where} is at schema version {version}, not "
            f"{LATEST_VERSION}: run `callops db migrate --db ...` on it first"
        )


def _replace_schema(conn: Connection) -> None:
    """Drop every callops table of the target and create them again, empty (the audit
    log's append-only rule forbids deleting its rows one by one, and rightly so)."""
    for table in (*reversed(DATA_TABLES), alembic_version):
        conn.execute(DropTable(table))
    migrate_connection(conn)


def _copy_table(source: Connection, target: Connection, table: Table) -> int:
    copied = 0
    rows = source.execute(select(table).order_by(*table.primary_key.columns))
    for part in rows.mappings().partitions(BATCH_ROWS):
        batch: list[dict[str, Any]] = [dict(row) for row in part]
        target.execute(insert(table), batch)
        copied += len(batch)
    return copied


def _restart_identities(conn: Connection) -> None:
    """PostgreSQL hands out identity values from a sequence that copied rows did not move:
    start each one after the highest id copied, so the next row does not collide."""
    if conn.dialect.name != "postgresql":
        return  # SQLite's AUTOINCREMENT follows the largest id ever inserted by itself
    for table in DATA_TABLES:
        column = table.autoincrement_column
        if column is None:
            continue
        highest = select(func.max(column)).scalar_subquery()
        conn.execute(
            select(
                func.setval(
                    func.pg_get_serial_sequence(table.name, column.name),
                    func.coalesce(highest, 0) + 1,
                    False,
                )
            )
        )


def copy_database(source: Database, target: Database, *, force: bool = False) -> CopyReport:
    """Copy every callops table from ``source`` into ``target`` (both at the latest schema).

    Refuses a target that already holds rows unless ``force``, which drops the target's
    tables and creates them again first (in the same transaction). Raises StorageError,
    with the target unchanged, if the counts differ after the copy.
    """
    if source.where == target.where and source.dialect == target.dialect:
        raise StorageError("the source and the target are the same database; nothing was copied")
    _check_version(source, "source")
    _check_version(target, "target")

    def work(conn: Connection) -> tuple[dict[str, int], bool]:
        present = {name: n for name, n in _counts(conn).items() if n}
        if present and not force:
            listed = ", ".join(f"{name} ({n})" for name, n in sorted(present.items()))
            raise DatabaseNotEmptyError(
                f"the target {target.where} already holds rows: {listed}. Nothing was copied; "
                "copy into an empty database, or pass --force to replace everything in it "
                "(its audit log included)"
            )
        if present:
            _replace_schema(conn)
        with source.engine.connect() as reader:
            if source.dialect == "postgresql":
                # One snapshot across every table, even if the app is still writing.
                reader.execution_options(isolation_level="REPEATABLE READ")
            reader.execution_options(yield_per=BATCH_ROWS)
            with reader.begin():
                if source.is_sqlite:
                    begin_sqlite(reader)  # one snapshot across every table there too
                copied = {table.name: _copy_table(reader, conn, table) for table in DATA_TABLES}
                expected = _counts(reader)
        found = _counts(conn)
        if not copied == expected == found:
            differ = sorted(n for n in expected if not copied[n] == expected[n] == found[n])
            raise StorageError(
                f"row counts differ after the copy in {', '.join(differ)}; the target was "
                "rolled back and is unchanged"
            )
        _restart_identities(conn)
        return copied, bool(present)

    rows, replaced = target.write(work)
    log.info("copied %d rows from %s to %s", sum(rows.values()), source.where, target.where)
    return CopyReport(source=source.where, target=target.where, rows=rows, replaced=replaced)
