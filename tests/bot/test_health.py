"""``/healthz`` says the process serves; ``/readyz`` says whether it should get traffic:
database writable, schema current, its workers alive.  A read-only database turns
readiness to 503 and the callback receiver to 503 with ``Retry-After``, never a 500."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from sqlalchemy import event, update

from bot.drain import Drain
from bot.runtime import Runtime
from bot.server import serving
from bot.settings import Settings
from emulators.pbx.testing import EmulatorServer
from emulators.slack import SlackStandIn
from storage import LATEST_VERSION, Database
from storage.migrations import revision_id
from storage.schema import alembic_version
from tests.bot.feed_helpers import callback_url, feed_app, make_record, routed_feed


async def probe(base: str) -> tuple[httpx.Response, httpx.Response]:
    async with httpx.AsyncClient(trust_env=False) as http:
        return await http.get(base + "/healthz"), await http.get(base + "/readyz")


@contextmanager
def read_only(db: Database) -> Iterator[None]:
    """Every connection of the process refuses writes for the block, as on a read-only
    disk (SQLite's ``query_only``, set on each connection as the pool hands it out)."""
    refusing = True

    def on_checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        dbapi_connection.execute(f"PRAGMA query_only = {'ON' if refusing else 'OFF'}")

    event.listen(db.engine, "checkout", on_checkout)
    try:
        yield
    finally:
        refusing = False
        db.engine.dispose()  # connections that were read-only are not handed out again
        event.remove(db.engine, "checkout", on_checkout)


def set_version(db: Database, version: int) -> None:
    db.change(update(alembic_version).values(version_num=revision_id(version)))


async def test_ready_names_every_check_of_a_full_process(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    async with feed_app(settings, slack, pbx) as (_, base):
        alive, ready = await probe(base)
    assert (alive.status_code, alive.json()) == (200, {"ok": True})
    assert ready.status_code == 200
    assert ready.json() == {
        "ok": True,
        "checks": {
            "approval_sweeper": "ok",
            "call_feed": "ok",
            "database": "ok",
            "migrations": "ok",
            "scheduler": "ok",
        },
    }


async def test_a_read_only_database_is_not_ready_and_callbacks_get_503(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    async with routed_feed(settings, slack, pbx) as (rt, base):
        url = callback_url(rt, base)
        with read_only(rt.storage.db):  # every write now fails
            alive, ready = await probe(base)
            async with httpx.AsyncClient(trust_env=False) as http:
                refused = await http.post(url, json=make_record())
        assert alive.status_code == 200  # alive: restarting would not fix the disk
        assert ready.status_code == 503
        assert ready.json()["checks"]["database"] == "attempt to write a readonly database"
        assert refused.status_code == 503 and refused.headers["Retry-After"] == "5"
        assert rt.storage.call_feed.pending() == 0
        _, again = await probe(base)
        assert again.status_code == 200


async def test_a_stopped_worker_or_a_newer_schema_is_not_ready(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    async with feed_app(settings, slack, pbx) as (rt, base):
        await rt.scheduler.stop()
        _, ready = await probe(base)
        assert ready.status_code == 503 and ready.json()["checks"]["scheduler"] == "stopped"
        rt.scheduler.start()
        set_version(rt.storage.db, LATEST_VERSION + 1)
        _, ready = await probe(base)
        assert ready.status_code == 503
        assert ready.json()["checks"]["migrations"] == (
            f"schema version {LATEST_VERSION + 1}, this code needs {LATEST_VERSION}"
        )
        set_version(rt.storage.db, LATEST_VERSION)


async def test_a_web_process_without_the_scheduler_does_not_wait_for_one(
    settings: Settings, slack: SlackStandIn
) -> None:
    rt = Runtime.open(settings)
    try:
        async with serving(rt, port=0, scheduler=False) as base:
            _, ready = await probe(base)
    finally:
        rt.storage.close()
    assert ready.status_code == 200 and "scheduler" not in ready.json()["checks"]


async def test_both_probes_say_draining_the_moment_a_drain_begins(
    settings: Settings, slack: SlackStandIn
) -> None:
    """SIGTERM begins the drain (``bot.drain``): the load balancer is told at once, before
    the listener closes, and the runtime starts no approved action any more."""
    rt = Runtime.open(settings)
    drain = Drain(settings.callops_drain_seconds)
    try:
        async with serving(rt, port=0, scheduler=False, drain=drain) as base:
            before = await probe(base)
            drain.begin("SIGTERM")
            alive, ready = await probe(base)
            stopping = rt.stopping
    finally:
        rt.storage.close()
    assert [answer.status_code for answer in before] == [200, 200]
    assert (alive.status_code, alive.json()) == (503, {"ok": False, "status": "draining"})
    assert (ready.status_code, ready.json()) == (503, {"ok": False, "status": "draining"})
    assert stopping
