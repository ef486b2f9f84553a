"""What a family declares to run in the background, and what the bot gives it to run.

A family lists its background work in ``Family.jobs``: each ``Job`` says how often it
runs and what it runs; ``bot/jobs.py`` runs every job of the app's registry in each
serving process, without naming a family, with the app's tables in use.  A job's work
takes a ``JobEnv``, the ports of the process (the database, the context of a team's
work nobody clicked), so the family needs nothing of ``bot/``.  Whatever a job does
must be safe in several processes at once (claims in the database), as every replica
runs it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Protocol

from commands.kernel.context import CommandContext
from storage import Storage


class JobEnv(Protocol):
    """What a background job may use."""

    @property
    def storage(self) -> Storage: ...

    async def team_context(self, team_id: str) -> CommandContext | None:
        """The context of work nobody clicked in ``team_id`` (its service client, time
        zone and Slack, no person, the least role); None when the bot cannot act there
        (no token)."""
        ...


@dataclass(frozen=True, kw_only=True)
class Job:
    name: str
    """Unique in the app: its log lines' name (``approvals.recover``)."""
    run: Callable[[JobEnv], Awaitable[object]]
    every: float
    """Seconds between two runs; the first is at the process's start.  Jobs of the same
    ``every`` run one after the other, in the families' order, each on its own: one
    that fails is logged and the next still runs."""
    probe: str
    """The readiness check it reports under (``/readyz``), shared by jobs that go
    together: ``approval_sweeper``."""
