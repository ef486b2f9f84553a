"""Fixtures of the storage suite. Every test that touches a database runs twice: on a SQLite
file (``sqlite``) and on a fresh database of a real PostgreSQL server (``postgresql``)
started for the session from Debian's package (tests/postgres.py)."""

from __future__ import annotations

import io
import threading
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import psycopg
import pytest
from cryptography.fernet import Fernet
from sqlalchemy import text

from storage import (
    LATEST_VERSION,
    Approval,
    Database,
    Role,
    SecretBox,
    Storage,
    database_url,
    open_database,
)
from storage.migrations import revision_id
from storage.schema import DATA_TABLES
from tests.clocks import SteppedClock
from tests.postgres import PostgresServer, postgres_server

__all__ = ["postgres_server"]  # the session's server, a fixture of this suite

ENGINES = ("sqlite", "postgresql")


FakeClock = SteppedClock
"""Storage's clock in these tests (``tests.clocks``): expiry without waiting."""


@pytest.fixture
def key() -> str:
    return Fernet.generate_key().decode()


@pytest.fixture
def box(key: str) -> SecretBox:
    return SecretBox([key])


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """The engine this run of the test uses."""
    return str(request.param)


@pytest.fixture(scope="session")
def postgres_template(postgres_server: PostgresServer) -> str:
    """A PostgreSQL database migrated to the latest schema, copied for each test (the
    migrations themselves run on empty databases in test_migrations)."""

    def migrate(url: str) -> None:
        open_database(url).close()

    return postgres_server.create_template("callops_template", migrate)


@pytest.fixture(scope="module")
def postgres_module_db(postgres_server: PostgresServer, postgres_template: str) -> Iterator[str]:
    """One PostgreSQL database per test module, at the latest schema; `db_url` empties it
    before each test."""
    url = postgres_server.create_database(template=postgres_template)
    try:
        yield url
    finally:
        postgres_server.drop_database(url)


def _empty_tables(url: str) -> None:
    """Every callops table emptied and its ids restarted, as in a new database (DELETE is
    many times faster than TRUNCATE on tables this small). The tests connect as the
    superuser, who may switch off the triggers (the audit log's append-only rule among
    them) for this one transaction."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET lock_timeout = '10s'")  # a test that leaked a transaction fails loudly
        with conn.transaction():
            conn.execute("SET LOCAL session_replication_role = replica")
            # A test may have moved the version (to check a newer one is refused).
            conn.execute(
                "UPDATE alembic_version SET version_num = %s", [revision_id(LATEST_VERSION)]
            )
            for table in reversed(DATA_TABLES):
                conn.execute(f'DELETE FROM "{table.name}"')
                column = table.autoincrement_column
                if column is not None:
                    conn.execute(
                        "SELECT setval(pg_get_serial_sequence(%s, %s), 1, false)",
                        [table.name, column.name],
                    )


@pytest.fixture
def db_url(engine: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """A database without data: a new SQLite file, or this module's PostgreSQL database
    (already at the latest schema) with every table emptied."""
    if engine == "sqlite":
        return str(tmp_path / "callops.db")
    url: str = request.getfixturevalue("postgres_module_db")
    _empty_tables(url)
    return url


@pytest.fixture
def empty_db_url(engine: str, tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[str]:
    """A new database with nothing in it, not even the schema (for the migrations)."""
    if engine == "sqlite":
        yield str(tmp_path / "callops.db")
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    url = server.create_database()
    try:
        yield url
    finally:
        server.drop_database(url)


@pytest.fixture
def store(db_url: str, box: SecretBox, clock: FakeClock) -> Iterator[Storage]:
    with Storage.open(db_url, box, clock=clock) as opened:
        yield opened


def raw(db: Database, sql: str, params: Mapping[str, Any] | None = None) -> list[tuple[Any, ...]]:
    """Run SQL behind the stores' back (to look at what is really stored, or to tamper
    with it), in its own transaction; returns the rows, if any."""

    def work(conn: Any) -> list[tuple[Any, ...]]:
        result = conn.execute(text(sql), dict(params or {}))
        return [tuple(row) for row in result] if result.returns_rows else []

    return db.write(work)


def decide(
    store: Storage,
    team: str,
    approval: Approval,
    *,
    decider: str = "U2",
    role: Role = Role.ADMIN,
    approve: bool = True,
) -> Approval:
    """DECIDER's click on APPROVAL's card, carrying the hash of the parameters it showed."""
    return store.approvals.decide(
        team,
        approval.id,
        decider=decider,
        decider_role=role,
        approve=approve,
        params_hash=approval.params_hash,
    )


T = TypeVar("T")


def at_once(count: int, work: Callable[[int], T], timeout: float = 120) -> list[T]:
    """``work(0)`` .. ``work(count - 1)`` on as many threads, released together by a barrier
    so that they really race; their results in order, or the first error they raised."""
    barrier = threading.Barrier(count)

    def start(i: int) -> T:
        barrier.wait(timeout=30)
        return work(i)

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(start, range(count), timeout=timeout))


def sqlite_path(db: str) -> Path | None:
    """The file behind a SQLite ``CALLOPS_DB``; None for a server database."""
    url = database_url(db)
    return Path(url.database or "") if url.get_backend_name() == "sqlite" else None


@pytest.fixture(scope="module")
def emulator() -> Iterator[Any]:
    """The call-center emulator on a loopback port, with its two API keys (two domains)."""
    from emulators.pbx.testing import EmulatorServer

    with EmulatorServer(seed=1) as server:
        yield server


@dataclass
class Cli:
    """Runs `callops ...` in-process, the way the console script would."""

    capsys: pytest.CaptureFixture[str]
    monkeypatch: pytest.MonkeyPatch
    db: str
    """CALLOPS_DB: a SQLite file path or a postgresql:// URL."""

    def __call__(self, *argv: str, stdin: str | None = None) -> tuple[int, str, str]:
        # The admin family's own parser, registered exactly as bot.cli registers it, so
        # these tests do not depend on the other command families (test_cli checks that
        # the console script carries this family).
        import argparse

        from bot import cli_admin

        parser = argparse.ArgumentParser(prog="callops")
        cli_admin.register(parser.add_subparsers(dest="command", required=True))
        self.capsys.readouterr()
        if stdin is not None:
            self.monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        args = parser.parse_args(list(argv))
        code = int(args.func(args))
        out, err = self.capsys.readouterr()
        return code, out, err

    def connect(
        self, team: str, base_url: str, *options: str, stdin: str | None = None
    ) -> tuple[int, str, str]:
        """`callops workspace connect --team TEAM --base-url URL OPTIONS...`."""
        return self(
            "workspace", "connect", "--team", team, "--base-url", base_url, *options, stdin=stdin
        )

    def set_keys(self, *keys: str) -> None:
        self.monkeypatch.setenv("CALLOPS_SECRET_KEY", ",".join(keys))


@pytest.fixture
def cli(
    tmp_path: Path,
    db_url: str,
    key: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Cli:
    """A clean environment: its own database and key, no .env, no single-workspace mode."""
    monkeypatch.chdir(tmp_path)
    for name in ("CALLOPS_BASE_URL", "CALLOPS_API_KEY", "CALLOPS_TIMEZONE", "CALLOPS_ADMINS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("CALLOPS_DB", db_url)
    monkeypatch.setenv("CALLOPS_SECRET_KEY", key)
    return Cli(capsys, monkeypatch, db_url)
