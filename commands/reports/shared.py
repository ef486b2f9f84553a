"""One count shared by every surface that asks for it within a minute.

A digest, the Home tab and ``stats`` asked about the same scope and period at about the
same time would each page through the same call records.  ``SharedCounts`` keeps each
result for ``ttl`` seconds and, while a count is still running, hands later askers the
same running count instead of starting another.  It is per process: replicas each
count for themselves (at most once a minute per scope and period each).  A count that
fails is not kept, so the next asker tries again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

T = TypeVar("T")
MAX_ENTRIES = 256
"""Counts kept at most; the oldest go first (each is a few hundred counters)."""


class _Entry(Generic[T]):
    __slots__ = ("future", "made", "waiters")

    def __init__(self, made: float, future: asyncio.Future[T]) -> None:
        self.made = made
        self.future = future
        self.waiters = 0


class SharedCounts(Generic[T]):
    def __init__(self, ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self.clock = clock
        self._entries: dict[Hashable, _Entry[T]] = {}

    async def get(self, key: Hashable, count: Callable[[], Awaitable[T]]) -> T:
        now = self.clock()
        entry = self._entries.get(key)
        if entry is not None and not self._fresh(entry, now):
            del self._entries[key]
            entry = None
        if entry is None:
            entry = _Entry(now, asyncio.ensure_future(count()))
            self._entries[key] = entry
            self._trim(now)
        entry.waiters += 1
        try:
            return await asyncio.shield(entry.future)
        except asyncio.CancelledError:
            # This asker went away (a cancelled command); the count goes on while
            # someone else still waits for it.
            if entry.waiters == 1 and not entry.future.done():
                entry.future.cancel()
                if self._entries.get(key) is entry:
                    del self._entries[key]
            raise
        except Exception:
            if self._entries.get(key) is entry:
                del self._entries[key]
            raise
        finally:
            entry.waiters -= 1

    def _fresh(self, entry: _Entry[T], now: float) -> bool:
        if now - entry.made >= self.ttl:
            return False
        future = entry.future
        return not (future.done() and (future.cancelled() or future.exception() is not None))

    def _trim(self, now: float) -> None:
        for key in [k for k, e in self._entries.items() if now - e.made >= self.ttl]:
            del self._entries[key]
        while len(self._entries) > MAX_ENTRIES:
            del self._entries[next(iter(self._entries))]

    def clear(self) -> None:
        self._entries.clear()
