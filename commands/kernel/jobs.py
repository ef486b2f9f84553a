"""What a family declares to run in the background, and what the bot gives it to run.

A family lists its background work in ``Family.jobs``: each ``Job`` says how often it
runs, what it runs and where: in every serving process (``SERVING``: the approval
sweeper), or in the one process that runs the scheduler (``SCHEDULER``: ``callops
scheduler``, or a server started without ``--no-scheduler``), for work that is paced
across the whole deployment (the rule watch, the privacy chores).  ``bot/jobs.py`` runs
the jobs of the app's registry without naming a family, with the app's tables in use.
A job's work takes a ``JobEnv``, the ports of the process (the database, the service
clients, the paced outbox, the context of a team's work nobody clicked), so the family
needs nothing of ``bot/``.  Whatever a job does must be safe in several processes at
once (claims in the database), as every replica may run it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol
from zoneinfo import ZoneInfo

from callcenter import CallCenter
from commands.kernel.context import CommandContext
from commands.kernel.reply import Reply
from storage import Storage, Workspace

Where = Literal["serving", "scheduler"]
SERVING: Where = "serving"
"""Every serving process runs the job (``callops serve``, ``callops socket``)."""
SCHEDULER: Where = "scheduler"
"""Only the process that runs the scheduler runs the job (one in a deployment)."""
MINUTE = 60.0
SCHEDULER_PROBE = "scheduler"
"""The readiness check (``/readyz``) the scheduler's jobs report under: its own."""
ALERT_BURST = 3
"""Posts to one channel that may go at once before the pace applies, for the checks that
post alerts (the digests' burst)."""


class SlackRefused(Exception):
    """Slack refused a call of the outbox (its ``error`` code), or the bot has no token
    in the team (``not_installed``)."""

    def __init__(self, error: str, *, rate_limited: bool = False) -> None:
        super().__init__(error)
        self.error = error
        self.rate_limited = rate_limited
        """Slack answered 429: the channel waits its ``Retry-After``; try again later."""


NOT_INSTALLED = "not_installed"


class JobOutbox(Protocol):
    """The process's paced outbox as the bot of a team (Slack's one message a second
    per channel, a 429's ``Retry-After`` honoured; the customers' numbers a post shows
    noted).  Every call raises ``SlackRefused`` when Slack refuses it or the bot has no
    token there."""

    async def reachable(self, team_id: str) -> bool:
        """Whether the bot has a token in ``team_id`` (it can post there)."""
        ...

    async def post(
        self,
        team_id: str,
        channel: str,
        reply: Reply,
        *,
        metadata: Mapping[str, Any] | None = None,
        thread_ts: str | None = None,
        burst: int = 1,
    ) -> str:
        """Post as the bot at the channel's pace (``burst`` posts may go at once), in
        the thread of ``thread_ts`` if given; returns the message's ts."""
        ...

    async def update(self, team_id: str, channel: str, ts: str, reply: Reply) -> None:
        """Rewrite the message ``ts`` at the channel's pace."""
        ...

    async def upload(
        self,
        team_id: str,
        channel: str,
        *,
        content: bytes,
        filename: str,
        title: str,
        thread_ts: str | None = None,
        burst: int = 1,
    ) -> None:
        """Upload a file (a chart's PNG, ``title`` its alt text too) at the channel's
        pace, in the thread of ``thread_ts`` if given."""
        ...

    async def delete_file(self, team_id: str, file_id: str) -> None:
        """Delete a file the bot uploaded."""
        ...

    def history(
        self, team_id: str, channel: str, *, since: float
    ) -> AsyncIterator[Mapping[str, Any]]:
        """The messages carrying metadata in ``channel`` from a little before ``since``
        on, newest first (where a job whose claimer stopped looks for its post)."""
        ...

    async def workspace_admins(self, team_id: str) -> list[str]:
        """The people Slack says administer or own the workspace (no bots, no one
        deactivated)."""
        ...


class JobEnv(Protocol):
    """What a background job may use."""

    @property
    def storage(self) -> Storage: ...

    @property
    def outbox(self) -> JobOutbox:
        """The process's paced outbox, shared with the digests and the call feed."""
        ...

    @property
    def admins(self) -> frozenset[str]:
        """The people ``CALLOPS_ADMINS`` makes admins in every workspace."""
        ...

    def zone(self, workspace: Workspace | None) -> ZoneInfo:
        """A workspace's time zone (its own, else the deployment's ``CALLOPS_TIMEZONE``)."""
        ...

    async def service(self, team_id: str) -> CallCenter:
        """The team's call-center client; raises ``NotConnectedError`` when the team has
        none."""
        ...

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
    ``every`` (and ``where``) run one after the other, in the families' order, each on
    its own: one that fails is logged and the next still runs (unless ``alone``)."""
    probe: str
    """The readiness check it reports under (``/readyz``), shared by jobs that go
    together: ``approval_sweeper``; ``scheduler`` for the scheduler's own check."""
    where: Where = SERVING
    """Which processes run it (``SERVING``, ``SCHEDULER``)."""
    alone: bool = False
    """Run in a loop of its own rather than after the other jobs of its period: for work
    that may take long now and then (the anomaly check's first learning of a day), so
    it holds up no other job (the rule watch's enforcing of the calling hours)."""
