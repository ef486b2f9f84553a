"""Replay claims the database could not take yet, held in the process until it can.

The request guard claims each Slack request's signature in the database so that a
replay is refused (``bot.request_guard``).  When the database is busy, a slash command or
an interaction goes on with its claim pending, and its work path claims it later; if
the database is still busy then, the person is told nothing was changed.  Before, such a
signature was never recorded: exact replays during the lock were acknowledged, and the
first replay after the lock ran the command the person had been told was not run.

So a signature let through with its claim pending is held here from the door on: a
replay of it is refused at once, while the lock lasts.  Once its work path has claimed it
in the database it is let go; when the work path gives up, it stays held until a later
request finds the database free and writes it there (``to_write``), so every process
refuses its replays from then on.  A signature older than Slack's 5 minutes is refused
as stale anyway and is forgotten.  Everything here runs on the event loop.

What is held here is one process's memory: another replica, or this one after a
restart, does not know it.  What makes "nothing was changed" true everywhere is the
claim window (``bot.request_guard.CLAIM_WINDOW``): a command or a click runs only when
its claim is made within seconds of its signed timestamp, and a work path that could
not claim it says "busy" only once that window has closed, everywhere.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

KEEP_SECONDS = 330.0
"""How long a held signature matters: Slack's 5-minute window, and a little more."""


@dataclass
class _Held:
    until: float
    run_by: float = 0.0
    """Wall-clock second past which its work path may no longer claim it and run
    (``bot.request_guard.CLAIM_WINDOW``)."""
    given_up: bool = False
    """The work path could not claim it: the database is still to be told."""


@dataclass
class HeldClaims:
    clock: Callable[[], float] = time.monotonic
    _held: dict[str, _Held] = field(default_factory=dict)

    def hold(self, signature: str, run_by: float = 0.0) -> bool:
        """Hold ``signature`` for its work path, which may claim it and run until the
        wall-clock second ``run_by``: False when it is held already (a replay)."""
        self._forget_old()
        if signature in self._held:
            return False
        self._held[signature] = _Held(self.clock() + KEEP_SECONDS, run_by)
        return True

    def run_by(self, signature: str) -> float:
        """The wall-clock second past which ``signature``'s work may not start (0: none
        held)."""
        found = self._held.get(signature)
        return found.run_by if found is not None else 0.0

    def holds(self, signature: str) -> bool:
        """Whether ``signature`` was let through or refused while the database was busy,
        and the database does not know it yet."""
        found = self._held.get(signature)
        return found is not None and found.until > self.clock()

    def pending(self, signature: str) -> bool:
        """Whether ``signature`` was let through with its claim left to its work path."""
        found = self._held.get(signature)
        return found is not None and not found.given_up and found.until > self.clock()

    def claimed(self, signature: str) -> None:
        """Its work path claimed it in the database, which refuses its replays now."""
        self._held.pop(signature, None)

    def gave_up(self, signature: str) -> None:
        """Its work path could not claim it: keep it until the database takes it."""
        found = self._held.get(signature)
        if found is not None:
            found.given_up = True

    def to_write(self) -> list[str]:
        """The signatures whose work gave up, for the next claim that reaches the database."""
        self._forget_old()
        return [signature for signature, held in self._held.items() if held.given_up]

    def written(self, signatures: list[str]) -> None:
        for signature in signatures:
            self._held.pop(signature, None)

    def _forget_old(self) -> None:
        now = self.clock()
        for signature in [s for s, held in self._held.items() if held.until <= now]:
            del self._held[signature]
