"""Outgoing callbacks: the service POSTs a call record to a campaign's ``callback_url``.

The spec names the URL but not the payload (section 6); the emulator sends the CDR
object of section 2.9 as JSON.  Sending never blocks the request or the simulation
step that produced the record: each POST is its own task on the server's loop, and
its outcome (status or transport error) lands in the journal as a ``callback`` entry.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx

from emulators.pbx.journal import Journal, redact

CALLBACK_TIMEOUT = 5.0


class CallbackSender:
    def __init__(self, journal: Journal, now: Callable[[], float]) -> None:
        self._journal = journal
        self._now = now
        self._tasks: set[asyncio.Task[None]] = set()
        self._client: httpx.AsyncClient | None = None

    def send(self, url: str, payload: dict[str, Any], *, event: str, domain: str) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._record(url, payload, event, domain, None, "no event loop to send from", 0.0)
            return
        task = loop.create_task(self._post(url, payload, event, domain))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @property
    def pending(self) -> int:
        return len(self._tasks)

    async def _post(self, url: str, payload: dict[str, Any], event: str, domain: str) -> None:
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=CALLBACK_TIMEOUT,
                headers={"User-Agent": "callops-pbx-emulator/1"},
                trust_env=False,
            )
        started = time.perf_counter()
        try:
            response = await self._client.post(url, json=payload)
        except (httpx.HTTPError, ValueError) as exc:
            elapsed = time.perf_counter() - started
            self._record(url, payload, event, domain, None, type(exc).__name__, elapsed)
            return
        elapsed = time.perf_counter() - started
        self._record(url, payload, event, domain, response.status_code, None, elapsed)

    def _record(
        self,
        url: str,
        payload: dict[str, Any],
        event: str,
        domain: str,
        status: int | None,
        error: str | None,
        elapsed: float,
    ) -> None:
        self._journal.record(
            {
                "kind": "callback",
                "event": event,
                "method": "POST",
                "path": url,
                "query": {},
                "body": redact(payload),
                "status": status,
                "error": error,
                "domain": domain,
                "fault": None,
                "duration_ms": round(elapsed * 1000, 3),
            },
            self._now(),
        )

    async def aclose(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        if self._client is not None:
            await self._client.aclose()
            self._client = None
