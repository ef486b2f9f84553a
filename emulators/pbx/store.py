"""The emulator's SQLite database: one working connection, one pristine seeded copy.

Reset has to be fast (every test of the project resets before it runs), so the seeded
state is built once into an in-memory database and copied over the working database
with SQLite's online backup: milliseconds, whatever the tests did in between.
All access happens on the server's event loop thread; the connection is opened with
``check_same_thread=False`` only because the app is built on another thread than the
one that serves it.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from emulators.pbx.schema import DDL, SCHEMA_VERSION


def _connect(path: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    if path != ":memory:":
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=OFF")
    return conn


def new_database() -> sqlite3.Connection:
    """An empty in-memory database with the emulator's schema."""
    conn = _connect(":memory:")
    conn.executescript(DDL)
    conn.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
    return conn


def has_current_schema(conn: sqlite3.Connection) -> bool:
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.DatabaseError:
        return False
    return row is not None and row[0] == str(SCHEMA_VERSION)


class Store:
    def __init__(
        self, pristine: sqlite3.Connection, path: str | None, *, spill: bool = False
    ) -> None:
        """``spill``: without a ``path``, keep the working copy in a temporary file
        rather than in memory, so a large seeded state (``--volume``) is held in memory
        once, not twice; the file goes when the store closes."""
        self.pristine = pristine
        self._spilled: str | None = None
        if path is None and spill:
            fd, path = tempfile.mkstemp(prefix="pbx-emulator-", suffix=".db")
            os.close(fd)
            self._spilled = path
        self.path = path
        self.conn = _connect(path or ":memory:")
        if path is None or not has_current_schema(self.conn):
            self.reset()

    def reset(self) -> None:
        self.pristine.backup(self.conn)

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        """One atomic change: a request's writes land together or not at all.

        Re-entrant: a simulation step run inside a request joins the request's change."""
        if self.conn.in_transaction:
            yield self.conn
            return
        self.conn.execute("BEGIN")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def close(self) -> None:
        self.conn.close()
        self.pristine.close()
        if self._spilled is not None:
            for suffix in ("", "-wal", "-shm"):
                with suppress(FileNotFoundError):
                    os.unlink(self._spilled + suffix)
