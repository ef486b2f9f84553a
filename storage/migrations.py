"""Bringing a database to the declared schema: Alembic's revisions (``storage/alembic``),
run the same way on both engines, and the bridge from the numbered migrations of before.

Revisions are numbered (``0011``, ``0012``...), so a database's schema version is still a
number people can compare. The first revision, the baseline, creates the schema the numbered
migrations ended at (version 11). A database they made keeps its rows: it holds a
``schema_version`` table instead of Alembic's, and is stamped at the baseline (that table
dropped, nothing else touched) before Alembic upgrades it like any other.

Rules that keep upgrades safe: never edit a released revision, only add one (generated from
the declarations in `storage.schema`: ``python -m storage.alembic "what changed"``);
every upgrade runs in the caller's transaction, so a crash leaves the old version; columns
holding encrypted secrets end in ``_enc``.
"""

from __future__ import annotations

import logging
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

from alembic import command
from alembic.config import Config
from sqlalchemy import inspect, select, text
from sqlalchemy.engine import Connection

from storage.errors import SchemaTooNewError, StorageError
from storage.schema import alembic_version

if TYPE_CHECKING:
    from storage.database import Database

log = logging.getLogger(__name__)

SECRET_SUFFIX = "_enc"  # noqa: S105 - a column-name suffix, not a password

BASELINE = 11
"""The version the numbered migrations ended at: the first revision's number."""

LATEST_VERSION = 18
"""The newest revision's number (`tests/storage/test_upgrade.py` checks it is the head)."""

_SCRIPTS = Path(__file__).with_name("alembic")

_MIGRATION_LOCK = zlib.crc32(b"callops schema migration")
"""PostgreSQL advisory lock key: replicas starting together migrate one after the other."""


def revision_id(version: int) -> str:
    return f"{version:04d}"


def alembic_config(connection: Connection | None = None) -> Config:
    """Alembic's configuration, built here instead of read from an alembic.ini."""
    config = Config()
    config.set_main_option("script_location", str(_SCRIPTS))
    config.set_main_option("file_template", "r%%(rev)s_%%(slug)s")
    config.attributes["connection"] = connection
    return config


def _legacy(conn: Connection) -> bool:
    """Whether the numbered migrations made this database (and Alembic has not yet)."""
    return inspect(conn).has_table("schema_version")


def _current_version(conn: Connection) -> int:
    if inspect(conn).has_table(alembic_version.name):
        found = conn.execute(select(alembic_version.c.version_num)).scalar()
        return int(found) if found else 0
    if _legacy(conn):
        row = conn.execute(text("SELECT version FROM schema_version")).first()
        return int(row[0]) if row else 0
    return 0


def _refuse_unknown(version: int, where: str) -> None:
    if 0 < version < BASELINE:
        raise StorageError(
            f"the database {where or 'file'} has schema version {version}, older than the "
            f"baseline this callops upgrades from ({BASELINE}): bring it to version "
            f"{BASELINE} with an earlier callops first. The database was left untouched."
        )
    if version > LATEST_VERSION:
        raise SchemaTooNewError(
            f"the database {where or 'file'} has schema version {version}, but this callops "
            f"knows versions up to {LATEST_VERSION}: upgrade callops, or set CALLOPS_DB to "
            "another database. The database was left untouched."
        )


def read_schema_version(db: Database, *, refuse_newer: bool = False, where: str = "") -> int:
    """The database's schema version (0 for a new one); optionally refuse one from a newer
    callops (or one too old to upgrade)."""
    version = db.read(_current_version)
    if refuse_newer:
        _refuse_unknown(version, where or db.where)
    return version


def _stamp_baseline(conn: Connection) -> None:
    conn.exec_driver_sql("DROP TABLE schema_version")
    command.stamp(alembic_config(conn), revision_id(BASELINE))
    log.info("database at schema version %d taken over by the revisions", BASELINE)


def migrate_connection(conn: Connection, *, target: int | None = None, where: str = "") -> int:
    """Apply pending revisions up to `target` (default: all) in the caller's transaction.

    The lock is taken first (BEGIN IMMEDIATE on SQLite, an advisory lock on PostgreSQL) and
    the version re-read under it, so two processes starting together migrate once between
    them. Returns the version the database is at afterwards.
    """
    goal = LATEST_VERSION if target is None else target
    if goal not in (0, *range(BASELINE, LATEST_VERSION + 1)):
        raise StorageError(f"no schema version {goal}; known versions are {BASELINE}..")
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
    current = _current_version(conn)
    _refuse_unknown(current, where)
    if _legacy(conn):
        _stamp_baseline(conn)
    if goal > current:
        command.upgrade(alembic_config(conn), revision_id(goal))
        log.info("database migrated to schema version %d", goal)
    return max(current, goal)


def migrate(db: Database, *, target: int | None = None, where: str = "") -> int:
    """Apply pending revisions up to `target` (default: all), all in one transaction."""
    return db.write(lambda conn: migrate_connection(conn, target=target, where=where or db.where))
