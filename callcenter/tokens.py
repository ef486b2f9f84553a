"""Access tokens: fetched on first use, cached, renewed before expiry and once on refusal.

A token costs a round trip and the service never says how long it lives in a unit we
can trust (spec 5.3), so this module decides once, here, how to read ``expired_in``
and when a cached token is too old to use.  The client owns one ``TokenManager``; the
optional ``TokenCache`` (``storage`` implements it per Slack workspace) lets a token
outlive the process, so a restart or a second worker does not fetch a new one.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

from callcenter.errors import AuthenticationError

DEFAULT_LIFETIME = 300.0
"""Seconds a token is trusted when the service gives no usable ``expired_in``: short
enough that a wrong guess costs one extra token request, and an early expiry is still
caught by the renew-once-on-refusal rule."""

RENEW_MARGIN = 60.0
RENEW_FRACTION = 0.1

_INSTANT_SECONDS = 1e9
_INSTANT_MILLIS = 1e12


@dataclass(frozen=True)
class CachedToken:
    """A bearer token and the Unix time (seconds) at which it stops being valid."""

    token: str = field(repr=False)
    expires_at: float


class TokenCache(Protocol):
    """Somewhere to keep one token between processes. Its methods block (a database):
    `TokenManager` calls them on a worker thread, never on the event loop."""

    def load(self) -> CachedToken | None: ...

    def save(self, token: CachedToken) -> None: ...

    def clear(self) -> None: ...


def expires_at_from(expired_in: int | float, now: float) -> float:
    """Turn the service's ``expired_in`` (v3) or ``expired`` (v1) into a Unix time.

    The spec does not give the unit, so the size of the number decides:

    * ``<= 0``: no usable value; the token is trusted for ``DEFAULT_LIFETIME`` seconds.
    * ``< 1e9``: a duration in seconds from now (1e9 s is ~31 years, so no plausible
      lifetime is mistaken for an instant, and no instant after 2001 for a lifetime).
    * ``< 1e12``: a Unix instant in seconds.
    * otherwise: a Unix instant in milliseconds (1e12 ms is the year 2001).
    """
    value = float(expired_in)
    if value <= 0:
        return now + DEFAULT_LIFETIME
    if value < _INSTANT_SECONDS:
        return now + value
    if value < _INSTANT_MILLIS:
        return value
    return value / 1000.0


def renew_margin(lifetime: float | None) -> float:
    """How long before expiry a token is replaced.

    Renew when less than 60 s or 10 % of the lifetime is left, whichever is larger, so
    a token is never sent so close to expiry that it lapses in flight.  The margin never
    exceeds half the lifetime: with a 30 s token (an emulator test) the client still uses
    each token for 15 s instead of fetching a new one on every call.
    """
    if lifetime is None or lifetime <= 0:
        return RENEW_MARGIN
    return min(max(RENEW_MARGIN, RENEW_FRACTION * lifetime), lifetime / 2)


class TokenManager:
    """Hands out a valid token; at most one token request is in flight at a time.

    Concurrent callers that find no usable token share one fetch (an ``asyncio.Task``
    each of them awaits through ``asyncio.shield``, so a caller being cancelled does not
    cancel the fetch the others are waiting on).  If the fetch fails every waiter gets
    the error, and the next call tries again.
    """

    def __init__(
        self,
        fetch: Callable[[], Awaitable[CachedToken]],
        cache: TokenCache | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._fetch = fetch
        self._cache = cache
        self._clock = clock
        self._current: CachedToken | None = None
        self._lifetime: float | None = None
        self._cache_loaded = False
        self._inflight: asyncio.Task[CachedToken] | None = None

    def _is_fresh(self, token: CachedToken) -> bool:
        return token.expires_at - self._clock() > renew_margin(self._lifetime)

    async def _usable(self) -> CachedToken | None:
        if self._current is None and not self._cache_loaded and self._cache is not None:
            self._cache_loaded = True
            self._current = await asyncio.to_thread(self._cache.load)
            self._lifetime = None
        if self._current is not None and self._is_fresh(self._current):
            return self._current
        return None

    async def get(self) -> str:
        """A token to send now: the cached one while fresh, else a newly fetched one."""
        token = await self._usable()
        if token is not None:
            return token.token
        return (await self._refresh()).token

    async def renew(self, rejected: str | None) -> str:
        """A new token after the service refused ``rejected``.

        When several requests are refused at once, only the first renews; the others
        find a different, fresh token already in place and use it.
        """
        current = self._current
        if current is not None and current.token != rejected and self._is_fresh(current):
            return current.token
        self._current = None
        return (await self._refresh()).token

    async def install(self, token: CachedToken, lifetime: float | None = None) -> None:
        """Adopt a token fetched outside ``get`` (``auth.token()``)."""
        self._current = token
        self._lifetime = lifetime
        if self._cache is not None:
            await asyncio.to_thread(self._cache.save, token)

    async def forget(self) -> None:
        """Drop the token here and in the cache (the key was refused)."""
        self._current = None
        self._lifetime = None
        if self._cache is not None:
            await asyncio.to_thread(self._cache.clear)

    async def _refresh(self) -> CachedToken:
        task = self._inflight
        if task is None:
            task = asyncio.ensure_future(self._fetch_and_keep())
            self._inflight = task
            task.add_done_callback(self._fetch_done)
        return await asyncio.shield(task)

    def _fetch_done(self, task: asyncio.Task[CachedToken]) -> None:
        if self._inflight is task:
            self._inflight = None
        if not task.cancelled():
            # Marks the exception retrieved even when every waiter was cancelled.
            task.exception()

    async def _fetch_and_keep(self) -> CachedToken:
        started = self._clock()
        try:
            token = await self._fetch()
        except AuthenticationError:
            # The key itself was refused: a cached token for it is worthless too.
            await self.forget()
            raise
        await self.install(token, lifetime=token.expires_at - started)
        return token


__all__ = [
    "DEFAULT_LIFETIME",
    "CachedToken",
    "TokenCache",
    "TokenManager",
    "expires_at_from",
    "renew_margin",
]
