"""The database layer itself, on both engines: short lock waits with bounded retries, a clear
error for the one request that cannot get the lock, one Storage shared by threads, claims
that hold under contention, and the wipe of a workspace's secrets."""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from sqlalchemy.exc import DBAPIError

from storage import (
    LATEST_VERSION,
    InstallationRecord,
    PushedMessage,
    SecretBox,
    Storage,
    database_url,
    read_schema_version,
)
from storage.errors import InvalidValueError, StorageBusyError
from tests.postgres import PostgresServer
from tests.storage.conftest import at_once, decide, raw, sqlite_path

BUSY = "the database is busy; try again in a moment"


class _Holder:
    """Another process's transaction that holds the write lock on ``workspaces`` (SQLite:
    the whole file's write lock; PostgreSQL: a table lock that lets readers through)."""

    def __init__(self, db_url: str) -> None:
        path = sqlite_path(db_url)
        self._sqlite: sqlite3.Connection | None = None
        self._pg: psycopg.Connection[Any] | None = None
        if path is not None:
            self._sqlite = sqlite3.connect(path, isolation_level=None)
            self._sqlite.execute("BEGIN IMMEDIATE")
        else:
            self._pg = psycopg.connect(db_url)
            self._pg.execute("LOCK TABLE workspaces IN EXCLUSIVE MODE")

    def release(self) -> None:
        """Commit and disconnect (once; later calls do nothing)."""
        if self._sqlite is not None:
            self._sqlite.execute("COMMIT")
            self._sqlite.close()
            self._sqlite = None
        if self._pg is not None:
            self._pg.commit()
            self._pg.close()
            self._pg = None


@contextmanager
def _write_lock_held(db_url: str) -> Iterator[_Holder]:
    holder = _Holder(db_url)
    try:
        yield holder
    finally:
        holder.release()


@pytest.fixture
def quick(db_url: str, box: SecretBox) -> Iterator[Storage]:
    """A Storage whose writers give up on a lock after 0.2 s per try."""
    with Storage.open(db_url, box, busy_timeout=0.2) as opened:
        yield opened


def test_a_write_that_cannot_get_the_lock_fails_clearly_while_reads_go_on(
    quick: Storage, db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    quick.workspaces.ensure("T1")
    caplog.set_level(logging.INFO, logger="storage.database")
    with _write_lock_held(db_url):
        started = time.monotonic()
        with pytest.raises(StorageBusyError) as caught:
            quick.workspaces.set_timezone("T1", "Asia/Tokyo")
        waited = time.monotonic() - started
        assert str(caught.value) == BUSY
        # Bounded: three tries of 0.2 s each and two short pauses, not a long stall.
        assert waited < 3.0, waited
        retries = [r.getMessage() for r in caplog.records if "retrying" in r.getMessage()]
        assert retries == [
            "database busy (try 1 of 3); retrying",
            "database busy (try 2 of 3); retrying",
        ]
        # Readers are not held up by the writer that has the lock.
        assert quick.workspaces.require("T1").timezone == "UTC"
    assert quick.workspaces.set_timezone("T1", "Asia/Tokyo").timezone == "Asia/Tokyo"


class _ReleaseOnFirstRetry(logging.Handler):
    """Lets the lock go the moment the first try has given up, so the retry finds it free."""

    def __init__(self, holder: _Holder) -> None:
        super().__init__()
        self.holder = holder

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage() == "database busy (try 1 of 3); retrying":
            self.holder.release()


def test_a_lock_released_during_the_retries_lets_the_write_through(
    quick: Storage, db_url: str
) -> None:
    quick.workspaces.ensure("T1")
    handler = _ReleaseOnFirstRetry(_Holder(db_url))
    logger = logging.getLogger("storage.database")
    logger.addHandler(handler)
    previous = logger.level
    logger.setLevel(logging.INFO)
    try:
        assert quick.workspaces.set_timezone("T1", "Europe/Berlin").timezone == "Europe/Berlin"
    finally:
        logger.removeHandler(handler)
        logger.setLevel(previous)
        handler.holder.release()


def test_one_storage_serves_many_threads_and_each_claim_is_won_once(store: Storage) -> None:
    digest = store.digests.add(
        "T1", channel="C1", schedule="hourly", timezone="UTC", created_by="U"
    )
    ids = [f"cdr-{n}" for n in range(40)]
    slots = [f"2024-05-01T{h:02d}:00" for h in range(10)]

    def worker(_: int) -> list[str]:
        accepted = [i for i in ids if store.call_feed.accept("T1", i, {}, []) is not None]
        mine = [f"callback:{i}" for i in accepted]
        return mine + [f"slot:{s}" for s in slots if store.digests.claim_slot("T1", digest.id, s)]

    won = [claim for mine in at_once(6, worker) for claim in mine]
    assert sorted(won) == sorted([f"callback:{i}" for i in ids] + [f"slot:{s}" for s in slots])
    assert raw(store.db, "SELECT count(*) FROM processed_callbacks") == [(len(ids),)]


def test_a_queued_post_is_leased_by_one_poster_until_its_lease_runs_out(
    store: Storage, clock: Any
) -> None:
    assert store.call_feed.accept("T1", "cdr-1", {"id": "cdr-1"}, ["C1"]) == 1
    [head] = store.call_feed.heads()
    assert store.call_feed.lease(head.seq, "poster-a", 30) is True
    assert store.call_feed.lease(head.seq, "poster-b", 30) is False
    assert store.call_feed.lease(head.seq, "poster-a", 30) is True  # renewing its own
    [leased] = store.call_feed.heads()
    assert store.call_feed.leased_elsewhere(leased, "poster-b")
    clock.advance(31)
    assert store.call_feed.lease(head.seq, "poster-b", 30) is True  # a died poster's row
    assert store.call_feed.release("poster-b") == 1
    assert store.call_feed.lease(head.seq, "poster-a", 30) is True


def test_a_posted_row_holds_its_lanes_next_row_for_every_poster(store: Storage) -> None:
    """Slack's pace of a channel is kept by all the app's processes together: the poster
    that posted a card leaves the lane's next card waiting in the database, where another
    process's poster reads it, and other lanes are not held."""
    for record in ("cdr-1", "cdr-2", "cdr-3"):
        store.call_feed.accept("T1", record, {"id": record}, ["C1"])
    store.call_feed.accept("T1", "cdr-9", {"id": "cdr-9"}, ["C2"])
    first, other = store.call_feed.heads()
    free_at = first.not_before + 1.0
    assert store.call_feed.remove(first.seq, lane_free_at=free_at) is True
    second, other_now = store.call_feed.heads()
    assert (second.record_id, second.not_before) == ("cdr-2", free_at)
    assert other_now == other
    # A time already past leaves the next row as it was (never brought forward).
    assert store.call_feed.remove(second.seq, lane_free_at=0.0) is True
    [third] = [h for h in store.call_feed.heads() if h.lane == "C1"]
    assert third.record_id == "cdr-3" and third.not_before == first.not_before
    assert store.call_feed.remove(second.seq, lane_free_at=free_at) is False  # gone already


def test_on_postgresql_a_poster_skips_a_row_another_is_taking_without_waiting(
    store: Storage, db_url: str, engine: str
) -> None:
    store.call_feed.accept("T1", "cdr-1", {"id": "cdr-1"}, ["C1"])
    [head] = store.call_feed.heads()
    if engine == "sqlite":
        # One writer at a time for the whole file: the lease simply waits its turn.
        assert store.call_feed.lease(head.seq, "poster-a", 30) is True
        return
    with psycopg.connect(db_url) as other:
        other.execute("SELECT seq FROM callback_queue WHERE seq = %s FOR UPDATE", [head.seq])
        # SKIP LOCKED: no wait for the row lock (which would end in StorageBusyError).
        assert store.call_feed.lease(head.seq, "poster-a", 30) is False
        other.rollback()
    assert store.call_feed.lease(head.seq, "poster-a", 30) is True


def test_the_push_behind_a_call_record_is_found_by_its_exact_call_id(store: Storage) -> None:
    def pushed(call_id: str, ts: str) -> None:
        approval = store.approvals.create("T1", "autocall.push", {"n": ts}, "U1")
        decide(store, "T1", approval)
        store.approvals.claim_for_execution("T1", approval.id)
        store.approvals.finish(
            "T1", approval.id, ok=True, result={"call_id": call_id, "channel": "C1", "ts": ts}
        )

    pushed("aXYb", "1.1")
    pushed("a%_b", "2.2")  # LIKE's wildcards in an id match only themselves
    pushed("a%_bc", "3.3")
    assert store.call_feed.pushed_message("T1", "a%_b") == PushedMessage("C1", "2.2")
    assert store.call_feed.pushed_message("T1", "aXYb") == PushedMessage("C1", "1.1")
    assert store.call_feed.pushed_message("T1", "a%") is None
    assert store.call_feed.pushed_message("T2", "aXYb") is None
    assert not store.call_feed.push_in_flight("T1")


def test_the_routes_version_changes_with_every_route_added_or_removed(store: Storage) -> None:
    empty = store.call_feed.routes_version("T1")
    first = store.routes.add("T1", channel="C1", created_by="U1")
    one = store.call_feed.routes_version("T1")
    second = store.routes.add("T1", channel="C2", created_by="U1")
    two = store.call_feed.routes_version("T1")
    store.routes.remove("T1", first.id)
    back_to_one = store.call_feed.routes_version("T1")
    assert len({empty, one, two, back_to_one}) == 4
    assert store.call_feed.routes_version("T2") == empty
    store.routes.remove("T1", second.id)
    assert store.call_feed.routes_version("T1") == empty


def test_wiping_a_workspace_deletes_its_secrets_and_clears_them_from_the_files(
    store: Storage, db_url: str, request: pytest.FixtureRequest
) -> None:
    store.workspaces.connect("T1", "http://127.0.0.1:9", "wiped-api-key")
    store.workspaces.save_cached_token("T1", "wiped-token", 2e9)
    store.installations.save(InstallationRecord(user_id="U1", team_id="T1", bot_token="xoxb-w"))
    store.callback_tokens.rotate("T1")
    store.workspaces.connect("T2", "http://127.0.0.1:9", "kept-api-key")
    request_id = store.approvals.create("T1", "user.update", {"user_uuid": "u"}, "U1").id
    store.approval_secrets.keep_secret("T1", request_id, {"password": "wiped-password"})
    store.step_runs.link(
        "T1",
        request_id,
        function_execution_id="Fx1",
        callback_id="update_user",
        token="xwfp-wiped",
        outputs={},
    )
    sealed = [
        value
        for (value,) in raw(store.db, "SELECT api_key_enc FROM workspaces WHERE team_id = 'T1'")
        + raw(store.db, "SELECT token_enc FROM service_tokens")
        + raw(store.db, "SELECT bot_token_enc FROM slack_installations")
        + raw(store.db, "SELECT token_enc FROM callback_tokens")
        + raw(store.db, "SELECT secret_enc FROM approval_secrets")
        + raw(store.db, "SELECT token_enc FROM step_runs")
    ]
    assert len(sealed) == 6

    wiped = store.wipe_workspace_secrets("T1")

    assert (wiped.disconnected, wiped.installations, wiped.callback_token) == (True, 1, True)
    assert wiped.held == 2
    assert not store.approval_secrets.has_secret("T1", request_id)
    step = store.step_runs.get("T1", request_id)
    assert step is not None and step.token is None
    assert wiped.scrubbed
    assert store.workspaces.api_key("T1") is None
    assert store.workspaces.cached_token("T1") is None
    assert store.installations.find_bot(enterprise_id=None, team_id="T1") is None
    assert store.callback_tokens.get("T1") is None
    assert store.workspaces.api_key("T2") == "kept-api-key"
    assert store.workspaces.require("T1").timezone == "UTC"  # settings stay
    path = sqlite_path(db_url)
    if path is not None:
        files = [path, path.with_name(path.name + "-wal")]
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        files = server.database_files(db_url, wal=False)
    stored = b"".join(f.read_bytes() for f in files if f.exists())
    assert b"http://127.0.0.1:9" in stored  # the scan reads real rows
    for value in sealed:
        assert value.encode() not in stored


@pytest.mark.parametrize(
    ("given", "backend", "shown"),
    [
        ("callops.db", "sqlite", "callops.db"),
        ("/var/lib/callops/callops.db", "sqlite", "/var/lib/callops/callops.db"),
        ("sqlite:///data/callops.db", "sqlite", "data/callops.db"),
        ("postgresql://callops:pw@db:5432/callops", "postgresql", "callops"),
        ("postgres://callops@db/callops", "postgresql", "callops"),
    ],
)
def test_callops_db_is_a_path_or_a_url(given: str, backend: str, shown: str) -> None:
    url = database_url(given)
    assert url.get_backend_name() == backend
    assert url.database == shown
    if backend == "postgresql":
        assert url.drivername == "postgresql+psycopg"


@pytest.mark.parametrize("given", ["", "mysql://db/callops", "postgresql://db:notaport/x"])
def test_a_database_callops_cannot_use_is_refused_with_a_clear_message(given: str) -> None:
    with pytest.raises(InvalidValueError, match="CALLOPS_DB"):
        database_url(given)


def test_after_the_server_drops_the_pooled_connections_the_next_calls_reconnect(
    postgres_server: PostgresServer,
    postgres_template: str,
    box: SecretBox,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """PostgreSQL only (a SQLite file has no server to lose): a restart or failover closes
    the pool's connections; the next transaction notices on its first statement and runs
    again on a fresh connection instead of failing the request."""
    url = postgres_server.create_database(template=postgres_template)
    caplog.set_level(logging.INFO, logger="storage.database")
    try:
        with Storage.open(url, box) as store:
            store.workspaces.ensure("T1")  # leaves a connection in the pool
            with psycopg.connect(url, autocommit=True) as admin:
                others = (
                    "SELECT pid FROM pg_stat_activity"
                    " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
                pids = [row[0] for row in admin.execute(others).fetchall()]
                assert pids
                for pid in pids:
                    admin.execute("SELECT pg_terminate_backend(%s)", [pid])
                deadline = time.monotonic() + 10
                while admin.execute(others).fetchall() and time.monotonic() < deadline:
                    pass  # wait until the server has really closed them
                assert admin.execute(others).fetchall() == []
            assert store.workspaces.set_timezone("T1", "Asia/Tokyo").timezone == "Asia/Tokyo"
            assert store.workspaces.require("T1").timezone == "Asia/Tokyo"
        assert any("connection lost" in r.getMessage() for r in caplog.records)
    finally:
        postgres_server.drop_database(url)


def test_the_write_probe_passes_changes_nothing_and_gives_up_quickly_on_a_held_lock(
    store: Storage, db_url: str
) -> None:
    store.db.probe_write(lock_timeout=0.2)
    assert read_schema_version(store.db) == LATEST_VERSION
    if sqlite_path(db_url) is not None:
        holder: Any = sqlite3.connect(sqlite_path(db_url) or "", isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
    else:
        holder = psycopg.connect(db_url)
        holder.execute("LOCK TABLE alembic_version IN EXCLUSIVE MODE")
    try:
        started = time.monotonic()
        with pytest.raises(DBAPIError):
            store.db.probe_write(lock_timeout=0.2)
        assert time.monotonic() - started < 2.0  # one try, not the writers' retries
    finally:
        holder.close()  # rolls back what it held
    store.db.probe_write(lock_timeout=0.2)
    store.workspaces.ensure("T1")  # the pool's connections kept their usual settings
