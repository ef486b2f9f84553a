"""Opening the one SQLite file every callops process shares.

Two processes (the app and the CLI, or two app workers) write the same file, so the
connection is set up for contention: WAL lets readers run beside a writer, the busy timeout
makes a writer wait for the lock instead of failing, and writes that read first take the
lock up front (`write_transaction`) so they never fail half-way on a stale snapshot.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from sqlite_utils import Database

from storage.migrations import migrate, read_schema_version
from storage.transactions import write_transaction

__all__ = ["DEFAULT_BUSY_TIMEOUT", "connect", "open_database", "write_transaction"]

log = logging.getLogger(__name__)

DEFAULT_BUSY_TIMEOUT = 15.0
"""Seconds a writer waits for another process's lock before giving up."""


def connect(path: str | Path, *, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> Database:
    """A configured connection without migrating (for tests and tools that inspect)."""
    conn = sqlite3.connect(str(path), timeout=busy_timeout)
    db = Database(conn, execute_plugins=False)
    db.execute(f"PRAGMA busy_timeout = {int(busy_timeout * 1000)}")
    db.execute("PRAGMA foreign_keys = ON")
    return db


def open_database(
    path: str | Path,
    *,
    busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
    target_version: int | None = None,
) -> Database:
    """Open (creating if needed) and migrate the database; refuse a file from a newer callops.

    `target_version` stops migrating at that version; only tests of upgrades use it.
    """
    db = connect(path, busy_timeout=busy_timeout)
    try:
        # Check before touching the file at all: a newer file is left exactly as it was.
        read_schema_version(db, refuse_newer=True, where=str(path))
        db.enable_wal()
        db.execute("PRAGMA synchronous = NORMAL")
        migrate(db, target=target_version, where=str(path))
    except BaseException:
        db.close()
        raise
    log.debug("opened database %s", path)
    return db
