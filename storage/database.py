"""The database every callops process shares: a SQLite file (the embedded default) or a
PostgreSQL server (several replicas), behind one SQLAlchemy engine.

Why it is built this way:

- One engine per process, pooled and thread-safe, so the same `Storage` can be used from
  worker threads. Every store call borrows a connection for its own transaction
  (`Database.read` / `Database.write`) and gives it back; none is held across calls.
- Every call blocks its thread, so it never runs on the event loop: async code calls
  ``await off_loop(store.method, ...)`` (``storage.offload``), which runs it on a database
  thread, and `_run` asks the loop guard first (``CALLOPS_LOOP_GUARD``: a store called on
  the loop's thread is logged, or raises under ``strict``, as in the tests).
- Waiting for a lock is short and bounded: a writer waits at most the lock timeout (SQLite's
  busy timeout, PostgreSQL's ``lock_timeout``), the whole transaction is retried a few times
  with a small backoff, and then `StorageBusyError` tells the caller to fail this one
  request instead of stalling everything behind it. A caller that must answer sooner (the
  replay claim before Slack's acknowledgement, the callback receiver) narrows that for a
  block with `patience`.
- Writes take their lock up front. On SQLite a deferred transaction that reads and then
  writes can fail half-way when another process committed in between (the busy timeout
  cannot help there), so write transactions start with ``BEGIN IMMEDIATE``. PostgreSQL locks
  rows, so claims there are single statements (``INSERT ... ON CONFLICT DO NOTHING``,
  ``UPDATE ... WHERE state = ...``) or ``SELECT ... FOR UPDATE SKIP LOCKED``.
- SQLite runs in WAL mode (readers beside a writer) with ``synchronous=NORMAL`` and foreign
  keys on; the SQL that differs between the engines lives here and in the migrations, not
  in the stores.
"""

from __future__ import annotations

import contextlib
import logging
import random
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Table, create_engine, event, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import URL, Connection, Engine, RowMapping, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.sql import Executable

from storage.errors import InvalidValueError, StorageBusyError
from storage.migrations import migrate, read_schema_version
from storage.offload import CONNECTIONS, check_not_on_loop
from storage.schema import alembic_version

log = logging.getLogger(__name__)

T = TypeVar("T")
S = TypeVar("S")

Params = Mapping[str, Any] | None
"""Values for a statement's bind parameters."""

InsertFactory = Callable[[Table], sqlite.Insert | postgresql.Insert]


def by_dialect(build: Callable[[InsertFactory], S]) -> dict[str, S]:
    """A statement built once per engine, for what only has a dialect-specific construct in
    SQLAlchemy: ``INSERT ... ON CONFLICT`` (upserts and claims). ``build`` receives the
    dialect's ``insert`` and is called for both; `Database.pick` chooses at run time."""
    return {"sqlite": build(sqlite.insert), "postgresql": build(postgresql.insert)}


def upsert(table: Table, *columns: str, keys: Sequence[str] = ()) -> dict[str, Executable]:
    """``INSERT`` that, when a row with the same ``keys`` (default: the primary key) is
    there, replaces only ``columns`` of it (default: all but the keys and the primary key),
    on both engines (see `by_dialect`)."""
    primary = [c.name for c in table.primary_key]
    index = list(keys) or primary
    names = columns or [c.name for c in table.c if c.name not in (*index, *primary)]

    def build(insert: InsertFactory) -> Executable:
        statement = insert(table)
        return statement.on_conflict_do_update(
            index_elements=index, set_={name: statement.excluded[name] for name in names}
        )

    return by_dialect(build)


DEFAULT_LOCK_TIMEOUT = 2.0
"""Seconds a writer waits for another writer's lock before this try gives up."""

DEFAULT_BUSY_TIMEOUT = DEFAULT_LOCK_TIMEOUT
"""The same figure under its SQLite name (`Storage.open(busy_timeout=...)`)."""

DEFAULT_STATEMENT_TIMEOUT = 30.0
"""PostgreSQL only: seconds any one statement may run (a runaway query must not pin a
connection of the pool forever)."""

DEFAULT_TRIES = 3
"""Attempts at a transaction that met a lock, before `StorageBusyError`."""

_BACKOFF = 0.05
"""Seconds before the second try; doubled (with jitter) before each later one."""

_SQLITE_BEGIN = {"write": "BEGIN IMMEDIATE", "read": "BEGIN"}
"""What a SQLite transaction opens with: ``write`` takes the write lock before it reads
(BEGIN IMMEDIATE), ``read`` sees one snapshot (BEGIN); ``single`` is one statement, which
SQLite runs atomically on its own, so no BEGIN and COMMIT around it.  Emitted by
`begin_sqlite` inside SQLAlchemy's transaction, not by a ``begin`` event listener: any
listener of the engine's connection events makes SQLAlchemy dispatch events around every
statement, a large part of the cost of a small query."""

_SQLITE_BUSY_CODES = frozenset({5, 6})  # SQLITE_BUSY, SQLITE_LOCKED (primary result codes)
_PG_BUSY_STATES = frozenset(
    {
        "55P03",  # lock_not_available: lock_timeout ran out
        "40001",  # serialization_failure
        "40P01",  # deadlock_detected
    }
)


_PATIENCE: ContextVar[tuple[float, int] | None] = ContextVar("callops_db_patience", default=None)


@contextlib.contextmanager
def patience(lock_timeout: float, *, tries: int = 1) -> Iterator[None]:
    """Within the block (this thread or task), transactions wait at most ``lock_timeout``
    seconds for another writer's lock, ``tries`` times, before `StorageBusyError`: for a
    caller that must answer quickly and has something better to do than wait (the request
    guard's replay claim, before Slack's acknowledgement)."""
    if tries < 1 or lock_timeout <= 0:
        raise InvalidValueError("patience needs a positive lock timeout and at least one try")
    token = _PATIENCE.set((lock_timeout, tries))
    try:
        yield
    finally:
        _PATIENCE.reset(token)


def database_url(target: str | Path) -> URL:
    """The engine URL for ``CALLOPS_DB``: a file path means SQLite; ``postgresql://`` (or
    ``postgres://``) means PostgreSQL through psycopg 3; ``sqlite:///path`` is accepted too."""
    text = str(target).strip()
    if not text:
        raise InvalidValueError("CALLOPS_DB is empty: give a SQLite file path or a URL")
    if "://" not in text:
        return URL.create("sqlite", database=text)
    try:
        url = make_url(text)
    except (ArgumentError, ValueError):
        raise InvalidValueError(
            "CALLOPS_DB is not a URL callops understands: give a SQLite file path or "
            "postgresql://user:password@host:5432/dbname"
        ) from None
    backend = url.get_backend_name()
    if backend in ("postgresql", "postgres"):
        return url.set(drivername="postgresql+psycopg")
    if backend == "sqlite":
        return url
    raise InvalidValueError(
        f"CALLOPS_DB names a {backend!r} database; callops runs on a SQLite file or PostgreSQL"
    )


class Database:
    """One engine and the transactions every store runs on it."""

    def __init__(
        self,
        engine: Engine,
        *,
        lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
        tries: int = DEFAULT_TRIES,
        backoff: float = _BACKOFF,
    ) -> None:
        if tries < 1:
            raise InvalidValueError("a transaction needs at least one try")
        self.engine = engine
        self.lock_timeout = lock_timeout
        self._tries = tries
        self._backoff = backoff

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self.engine.dialect.name

    @property
    def lock_timeout_ms(self) -> int:
        return int(self.lock_timeout * 1000)

    @property
    def is_sqlite(self) -> bool:
        return self.dialect == "sqlite"

    @property
    def where(self) -> str:
        """The database for messages and logs, never with its password."""
        url = self.engine.url
        if url.get_backend_name() == "sqlite":
            return url.database or ":memory:"
        shown = url.set(drivername=url.get_backend_name())  # as people write it
        return shown.render_as_string(hide_password=True)

    # -- transactions ----------------------------------------------------------------------

    def read(self, work: Callable[[Connection], T]) -> T:
        """Run ``work`` in a read transaction (one consistent view of the data)."""
        return self._run(work, "read")

    def write(self, work: Callable[[Connection], T]) -> T:
        """Run ``work`` in a write transaction: all of it commits, or none of it.

        ``work`` may run more than once (a try that met a lock is rolled back and retried),
        so it must not have effects outside the database.
        """
        return self._run(work, "write")

    def each(self, work: Callable[[Connection], T]) -> T:
        """Run ``work``'s statements on one connection, each atomic on its own (no
        snapshot across them, no lock held between them): for rows that need not agree
        with each other, such as a request's role and its workspace, read in one trip
        instead of one per row.  On PostgreSQL they share one transaction, so a statement
        that fails undoes the ones before it; on SQLite each is committed as it runs.
        ``work`` should therefore write last, if at all."""
        return self._run(work, "single")

    def _run(self, work: Callable[[Connection], T], mode: str) -> T:
        check_not_on_loop()
        override = _PATIENCE.get()
        tries = override[1] if override else self._tries
        wait_ms = int(override[0] * 1000) if override else None
        delay = self._backoff
        for attempt in range(1, tries + 1):
            committing = False
            try:
                with self.engine.connect() as conn:
                    if wait_ms is not None and self.is_sqlite:
                        _driver_sql(conn, f"PRAGMA busy_timeout = {wait_ms}")
                    try:
                        with conn.begin():
                            if self.is_sqlite:
                                begin_sqlite(conn, mode)
                            elif wait_ms is not None:
                                conn.exec_driver_sql(f"SET LOCAL lock_timeout = {wait_ms}")
                            result = work(conn)
                            committing = True
                        return result
                    finally:
                        if wait_ms is not None and self.is_sqlite:
                            # The connection goes back to the pool with the usual wait (a
                            # connection that broke meanwhile is discarded anyway).
                            with contextlib.suppress(Exception):
                                _driver_sql(conn, f"PRAGMA busy_timeout = {self.lock_timeout_ms}")
            except DBAPIError as exc:
                last = attempt == tries
                if exc.connection_invalidated and not committing and not last:
                    # A pooled connection the server had closed (a restart, a failover):
                    # SQLAlchemy has discarded the pool's old connections; nothing of this
                    # transaction was committed, so it simply runs again on a fresh one.
                    log.info(
                        "database connection lost (try %d of %d); reconnecting",
                        attempt,
                        tries,
                    )
                    continue
                if not _driver_busy(exc.orig):
                    raise
                if last:
                    log.warning("database busy after %d tries; failing this request", tries)
                    raise StorageBusyError() from exc
                log.info("database busy (try %d of %d); retrying", attempt, tries)
                time.sleep(delay * (1 + random.random()))
                delay *= 2
        raise AssertionError("unreachable: the loop returns or raises")

    # -- one-statement shorthands ------------------------------------------------------------
    #
    # The stores keep their statements as module constants with bind parameters and pass
    # the values here: SQLAlchemy then builds and caches each statement once instead of on
    # every call (most of the cost of a small query).

    def all(self, statement: Executable, params: Params = None) -> list[RowMapping]:
        return self._run(lambda conn: list(conn.execute(statement, params).mappings()), "single")

    def first(self, statement: Executable, params: Params = None) -> RowMapping | None:
        return self._run(lambda conn: conn.execute(statement, params).mappings().first(), "single")

    def scalar(self, statement: Executable, params: Params = None) -> Any:
        return self._run(lambda conn: conn.execute(statement, params).scalar(), "single")

    def change(self, statement: Executable, params: Params = None) -> int:
        """Run one writing statement on its own (atomic by itself); returns the rows it
        changed."""
        return self._run(lambda conn: conn.execute(statement, params).rowcount, "single")

    # -- dialect differences -----------------------------------------------------------------

    def pick(self, statements: Mapping[str, S]) -> S:
        """This engine's variant of a statement built with `by_dialect`."""
        return statements[self.dialect]

    def sqlite_pragma(self, statement: str) -> Sequence[Any]:
        """Run a PRAGMA outside any transaction (some, like ``journal_mode`` or
        ``wal_checkpoint``, refuse to run inside one); returns its rows."""
        if not self.is_sqlite:
            raise InvalidValueError("PRAGMA is SQLite's; this database is PostgreSQL")
        raw = self.engine.raw_connection()
        try:
            cursor = raw.cursor()
            try:
                cursor.execute(statement)
                return list(cursor.fetchall())
            finally:
                cursor.close()
        finally:
            raw.close()

    def probe_write(self, *, lock_timeout: float) -> None:
        """Raises unless a write goes through now: an UPDATE in a transaction that is
        rolled back, so a read-only file, a full disk or a lock held for good show here
        while ``SELECT 1`` would pass. Waits at most ``lock_timeout`` seconds for another
        writer's lock, and tries once (a readiness check must answer quickly)."""
        ms = int(lock_timeout * 1000)
        with self.engine.connect() as conn:
            if self.is_sqlite:
                _driver_sql(conn, f"PRAGMA busy_timeout = {ms}")
            try:
                with conn.begin() as transaction:
                    if self.is_sqlite:
                        begin_sqlite(conn, "write")
                    else:
                        conn.exec_driver_sql(f"SET LOCAL lock_timeout = {ms}")
                    conn.execute(_TOUCH_VERSION)
                    transaction.rollback()
            finally:
                if self.is_sqlite:  # the connection goes back to the pool
                    _driver_sql(conn, f"PRAGMA busy_timeout = {self.lock_timeout_ms}")

    def close(self) -> None:
        self.engine.dispose()

    def __repr__(self) -> str:
        return f"Database({self.dialect}: {self.where})"


def _driver_busy(error: BaseException | None) -> bool:
    """Whether a driver's error (sqlite3's or psycopg's) means another writer holds the
    lock, so that trying again later may succeed."""
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in _SQLITE_BUSY_CODES
    state = getattr(error, "sqlstate", None)
    if isinstance(state, str):
        return state in _PG_BUSY_STATES
    return "database is locked" in str(error)


def begin_sqlite(conn: Connection, mode: str = "read") -> None:
    """Open SQLite's own transaction inside SQLAlchemy's (just begun on ``conn``): the
    driver runs in autocommit mode, so without this each statement would be a transaction
    of its own.  ``mode`` is ``write``, ``read`` or ``single`` (see `_SQLITE_BEGIN`)."""
    statement = _SQLITE_BEGIN.get(mode)
    if statement is not None:
        conn.exec_driver_sql(statement)


def _driver_sql(conn: Connection, statement: str) -> None:
    """Run a statement on the driver's connection, outside SQLAlchemy's transaction (which
    would otherwise begin before it)."""
    dbapi = conn.connection.dbapi_connection
    assert dbapi is not None
    cursor = dbapi.cursor()
    try:
        cursor.execute(statement)
    finally:
        cursor.close()


_TOUCH_VERSION = update(alembic_version).values(version_num=alembic_version.c.version_num)

_EXECUTION_OPTIONS = {"preserve_rowcount": True}
"""Claims are decided by how many rows an INSERT ... ON CONFLICT DO NOTHING changed; by
default SQLAlchemy keeps that count only for UPDATE and DELETE."""


_POOL_SIZE = 5
"""PostgreSQL connections kept open; up to `CONNECTIONS` (one per database thread) while
busy.  A server's connection slots are shared by every replica, so idle ones go back."""


def _sqlite_engine(url: URL, lock_timeout: float) -> Engine:
    # Every connection stays open (one per database thread, `CONNECTIONS`): a SQLite
    # connection is a file handle, and one opened again starts with an empty page cache,
    # reads the schema anew and runs the PRAGMAs below; with fewer kept than threads,
    # commands in flight would keep opening new ones.
    engine = create_engine(
        url,
        connect_args={"timeout": lock_timeout},
        hide_parameters=True,
        pool_size=CONNECTIONS,
        max_overflow=0,
        execution_options=_EXECUTION_OPTIONS,
    )
    busy_ms = int(lock_timeout * 1000)

    @event.listens_for(engine, "connect")
    def configure(dbapi_connection: Any, _record: Any) -> None:
        # callops emits BEGIN itself (`begin_sqlite`); the driver's own transaction handling
        # would start transactions late and never for SELECTs.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {busy_ms}")
            cursor.execute("PRAGMA foreign_keys = ON")
            cursor.execute("PRAGMA synchronous = NORMAL")
        finally:
            cursor.close()

    return engine


def _postgresql_engine(url: URL, lock_timeout: float, statement_timeout: float) -> Engine:
    # No pool_pre_ping (a round trip before every transaction): a connection the server
    # closed fails on its first statement and `Database` runs the transaction again.
    engine = create_engine(
        url,
        hide_parameters=True,
        execution_options=_EXECUTION_OPTIONS,
        pool_size=_POOL_SIZE,
        max_overflow=CONNECTIONS - _POOL_SIZE,
    )
    lock_ms, statement_ms = int(lock_timeout * 1000), int(statement_timeout * 1000)

    @event.listens_for(engine, "connect")
    def configure(dbapi_connection: Any, _record: Any) -> None:
        # Session settings outside a transaction, so the pool's reset-on-return (a rollback)
        # cannot undo them.
        autocommit = dbapi_connection.autocommit
        dbapi_connection.autocommit = True
        try:
            with dbapi_connection.cursor() as cursor:
                cursor.execute(f"SET lock_timeout = {lock_ms}")
                cursor.execute(f"SET statement_timeout = {statement_ms}")
        finally:
            dbapi_connection.autocommit = autocommit

    return engine


def connect(
    target: str | Path,
    *,
    busy_timeout: float = DEFAULT_LOCK_TIMEOUT,
    statement_timeout: float = DEFAULT_STATEMENT_TIMEOUT,
    tries: int = DEFAULT_TRIES,
) -> Database:
    """A configured database without migrating it (for tests and tools that inspect)."""
    url = database_url(target)
    if url.get_backend_name() == "sqlite":
        engine = _sqlite_engine(url, busy_timeout)
    else:
        engine = _postgresql_engine(url, busy_timeout, statement_timeout)
    return Database(engine, lock_timeout=busy_timeout, tries=tries)


def _use_wal(db: Database) -> None:
    """Switch a SQLite file to write-ahead logging, waiting out the others that hold it.

    The switch needs the file to itself, and when another process (a replica starting
    together on a new file) holds a lock at that moment, SQLite refuses it at once with
    "database is locked": its busy timeout does not apply to the switch.  It does apply
    to ``BEGIN EXCLUSIVE``, so on a refusal the switch waits there, in SQLite, until the
    others let go (for at most the lock timeout), and is asked again right after, on the
    same connection; it is idempotent, so a file another process switched meanwhile is
    simply found in WAL mode."""
    deadline = time.monotonic() + db.lock_timeout
    raw = db.engine.raw_connection()
    try:
        cursor = raw.cursor()
        try:
            while True:
                try:
                    cursor.execute("PRAGMA journal_mode = WAL")
                    return
                except sqlite3.OperationalError as exc:
                    if not _driver_busy(exc) or time.monotonic() > deadline:
                        raise
                cursor.execute("BEGIN EXCLUSIVE")  # waits, up to the busy timeout
                cursor.execute("COMMIT")
        finally:
            cursor.close()
    finally:
        raw.close()


def open_database(
    target: str | Path,
    *,
    busy_timeout: float = DEFAULT_LOCK_TIMEOUT,
    target_version: int | None = None,
) -> Database:
    """Open (creating if needed) and migrate the database; refuse one from a newer callops.

    `target_version` stops migrating at that version; only tests of upgrades use it.
    """
    db = connect(target, busy_timeout=busy_timeout)
    try:
        # Check before touching the database at all: a newer one is left exactly as it was.
        read_schema_version(db, refuse_newer=True, where=db.where)
        if db.is_sqlite:
            _use_wal(db)
        migrate(db, target=target_version, where=db.where)
    except BaseException:
        db.close()
        raise
    log.debug("opened database %s", db.where)
    return db
