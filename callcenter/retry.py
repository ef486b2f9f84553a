"""The retry policy: the one place that decides whether a failed request is sent again.

What may be repeated is declared by each endpoint method (``idempotent=True`` for reads
and the token request, ``False`` for every write with an effect); this module only
applies the rules below to that declaration.

* Idempotent requests are retried, up to ``max_retries`` times, on transport failures
  (connect errors, timeouts, dropped connections), HTTP 429 and HTTP 5xx, with
  exponential backoff and full jitter; a ``Retry-After`` the service sends is honoured
  (and a wait longer than ``max_retry_after`` is not sat out: the error is raised so the
  caller can decide).
* Effectful writes (autocall import, transfer, lead create/multi/file, campaign, user
  and group updates, group create) are retried only when the request provably never
  left this machine: the connection could not be opened (``httpx.ConnectError``,
  ``httpx.ConnectTimeout``) or no pooled connection became free (``httpx.PoolTimeout``).
  After that point (a read timeout, a dropped connection, a 5xx, a 429) the service may
  have placed the call or inserted the lead, and sending it again could do it twice.

A refused token (401/403) is handled elsewhere (``callcenter._http``): the token is
renewed once and the request replayed once, writes included, because the service
rejects an unauthenticated request before doing anything.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

import httpx

Sleep = Callable[[float], Awaitable[None]]

NEVER_SENT: tuple[type[httpx.TransportError], ...] = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.PoolTimeout,
)
"""Transport failures that happen before a single byte of the request is written."""

TRANSIENT: tuple[type[httpx.TransportError], ...] = (
    httpx.TimeoutException,
    httpx.NetworkError,
    httpx.RemoteProtocolError,
)
"""Transport failures worth another try for a request that is safe to repeat."""


def is_retryable_status(status_code: int) -> bool:
    return status_code == 429 or status_code >= 500


@dataclass(frozen=True)
class RetryPolicy:
    """Backoff parameters plus the injectable ``sleep`` (tests pass a recorder)."""

    max_retries: int = 3
    initial_delay: float = 0.5
    max_delay: float = 8.0
    max_retry_after: float = 60.0
    sleep: Sleep = field(default=asyncio.sleep, repr=False)
    jitter: Callable[[], float] = field(default=random.random, repr=False)

    def backoff(self, attempt: int) -> float:
        """Full jitter: uniform in [0, min(max_delay, initial_delay * 2**attempt))."""
        ceiling = min(self.max_delay, self.initial_delay * (2.0**attempt))
        return self.jitter() * ceiling

    def delay_after_exception(
        self, exc: BaseException, *, idempotent: bool, attempt: int
    ) -> float | None:
        """Seconds to wait before attempt ``attempt + 1``, or None to give up."""
        if attempt >= self.max_retries:
            return None
        if isinstance(exc, NEVER_SENT):
            return self.backoff(attempt)
        if idempotent and isinstance(exc, TRANSIENT):
            return self.backoff(attempt)
        return None

    def delay_after_status(
        self, status_code: int, retry_after: float | None, *, idempotent: bool, attempt: int
    ) -> float | None:
        """Seconds to wait before attempt ``attempt + 1``, or None to give up."""
        if attempt >= self.max_retries or not idempotent:
            return None
        if not is_retryable_status(status_code):
            return None
        if retry_after is not None:
            return None if retry_after > self.max_retry_after else max(retry_after, 0.0)
        return self.backoff(attempt)


__all__ = ["NEVER_SENT", "TRANSIENT", "RetryPolicy", "Sleep", "is_retryable_status"]
