"""A process's stop, in order and within a bound: what ``callops serve`` and ``callops
socket`` do on SIGTERM or SIGINT.

Before, either signal ended the process at once: commands acknowledged in its last
seconds were never answered (their work runs after the acknowledgement, in tasks the
HTTP server knows nothing of), and an approved action cut off mid-call was left for the
sweeper to report as "cannot tell whether it was done".  Now a stop is a drain:

1. at the signal, ``/healthz`` and ``/readyz`` answer 503 ``draining`` and no approved
   action starts running any more (it is settled as "not run", plainly);
2. the listening socket closes (a load balancer's next attempt goes to another
   replica), the call feed finishes the posts under way and hands its leases back, and
   the requests already being read are answered (aiohttp's own graceful shutdown:
   ``AppRunner.cleanup`` with its ``shutdown_timeout``);
3. the scheduler finishes its tick and the approval sweeper stops;
4. the work still owed is finished: replies through ``response_url``, cards, an
   action already running (``Runtime.background``, which holds every listener's task);
5. the connections close and the process exits.

All of it within ``CALLOPS_DRAIN_SECONDS`` (25 by default: under Kubernetes' default
grace period of 30 s).  Whatever the bound cuts off is cancelled and left to the
approval sweeper and the feed's leases, as after a crash.  Each step is logged with the
seconds since the signal (``drain:`` lines), the timeline ``benchmarks/drain.py``
measures from outside.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import time
from collections.abc import Callable

log = logging.getLogger(__name__)

SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Drain:
    """One process's stop: begun once (by a signal, or by the end of its ``serving``
    block), then a budget of ``seconds`` that each step takes what is left of."""

    def __init__(self, seconds: float, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self._clock = clock
        self.began: float | None = None
        self._begun = asyncio.Event()
        self._on_begin: list[Callable[[], None]] = []

    def on_begin(self, action: Callable[[], None]) -> None:
        """Run ``action`` the moment the drain begins (at once if it has)."""
        self._on_begin.append(action)
        if self.began is not None:
            action()

    def begin(self, why: str = "stop") -> None:
        """Start draining (a second call changes nothing): everything registered with
        ``on_begin`` runs now, in the signal's own loop iteration."""
        if self.began is not None:
            log.info("drain: %s received again; already draining", why)
            return
        self.began = self._clock()
        log.info("drain: %s received; draining within %.0f s", why, self.seconds)
        for action in self._on_begin:
            action()
        self._begun.set()

    async def wait(self) -> None:
        """Until the drain begins."""
        await self._begun.wait()

    def left(self) -> float:
        """Seconds of the budget still left (all of it before the drain begins)."""
        if self.began is None:
            return self.seconds
        return max(0.0, self.began + self.seconds - self._clock())

    def mark(self, step: str) -> None:
        """One line of the timeline: ``step`` done, so many seconds after the signal."""
        since = 0.0 if self.began is None else self._clock() - self.began
        log.info("drain: %s at +%.3f s", step, since)

    def on_signals(self, loop: asyncio.AbstractEventLoop) -> None:
        """Begin on SIGTERM or SIGINT (instead of dying at once, or Python's
        ``KeyboardInterrupt``)."""
        for sig in SIGNALS:
            loop.add_signal_handler(sig, self.begin, sig.name)
