"""``/healthz`` (alive) and ``/readyz`` (ready for traffic), for a load balancer.

Liveness answers 200 as long as the process serves HTTP: restarting it would not fix a
database that went read-only, so that is not its business.  Readiness is what decides
whether traffic should come here; it answers 503, naming what is wrong, unless:

- the database takes a write (a write in a transaction, rolled back: a read-only file,
  a full disk or a lock held for good all show here, while ``SELECT 1`` would pass);
- its schema is the one this code was written for (migrations current);
- the workers this process runs are alive: the scheduler (unless ``--no-scheduler``),
  the call-feed poster and the approval sweeper.

Once the process is stopping (SIGTERM or SIGINT: ``bot.server`` drains it), both answer
503 ``draining`` at once, without asking anything: the load balancer sends new traffic
elsewhere while what this process accepted is still being answered.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from aiohttp import web
from sqlalchemy.exc import DBAPIError

from storage import LATEST_VERSION, Storage, off_loop, read_schema_version

log = logging.getLogger(__name__)

PROBE_LOCK_TIMEOUT = 1.0
"""Seconds the write probe waits for another process's lock."""


def database_writable(storage: Storage) -> str | None:
    """None when a write goes through, else why not (no values, no paths). Blocking: call
    it off the event loop."""
    try:
        storage.db.probe_write(lock_timeout=PROBE_LOCK_TIMEOUT)
    except DBAPIError as exc:
        return str(exc.orig).splitlines()[0] if str(exc.orig) else type(exc.orig).__name__
    except Exception as exc:  # the point of a readiness check is to say so, not crash
        return type(exc).__name__
    return None


def migrations_current(storage: Storage) -> str | None:
    try:
        version = read_schema_version(storage.db)
    except Exception as exc:
        return f"cannot read the schema version ({type(exc).__name__})"
    if version != LATEST_VERSION:
        return f"schema version {version}, this code needs {LATEST_VERSION}"
    return None


class Readiness:
    """The checks of ``/readyz``; whoever starts a worker registers it with ``watch``."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage
        self._workers: dict[str, Callable[[], bool]] = {}
        self.draining = False
        """Set once the process stops taking traffic (``drain``), never unset."""

    def drain(self) -> None:
        """From now on both probes answer 503 ``draining``."""
        self.draining = True

    def watch(self, name: str, alive: Callable[[], bool]) -> None:
        self._workers[name] = alive

    def forget(self, name: str) -> None:
        self._workers.pop(name, None)

    def checks(self) -> dict[str, str]:
        """Every check by name: ``ok``, or what is wrong. Blocking (it asks the
        database): call it off the event loop."""
        results = {
            "database": database_writable(self._storage) or "ok",
            "migrations": migrations_current(self._storage) or "ok",
        }
        for name, alive in sorted(self._workers.items()):
            results[name] = "ok" if alive() else "stopped"
        return results


def draining() -> web.Response:
    """The probes' answer while the process drains: no more traffic here."""
    return web.json_response({"ok": False, "status": "draining"}, status=503)


def install(web_app: web.Application, readiness: Readiness) -> None:
    async def healthz(_: web.Request) -> web.Response:
        if readiness.draining:
            return draining()
        return web.json_response({"ok": True})

    async def readyz(_: web.Request) -> web.Response:
        if readiness.draining:
            return draining()
        checks = await off_loop(readiness.checks)
        if readiness.draining:  # began while the checks ran
            return draining()
        ready = all(value == "ok" for value in checks.values())
        if not ready:
            log.warning(
                "not ready: %s", ", ".join(f"{k}: {v}" for k, v in checks.items() if v != "ok")
            )
        return web.json_response({"ok": ready, "checks": checks}, status=200 if ready else 503)

    web_app.router.add_get("/healthz", healthz)
    web_app.router.add_get("/readyz", readyz)
