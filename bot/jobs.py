"""Runs the background jobs the families declare (``Family.jobs``), naming none.

Jobs of the same period run in one loop, one after the other in the families' order: at
once when the process starts, then every period.  Each runs with the app's tables in use
(``Registry.using``) and on its own: a database too busy is a warning and the next round
catches up, any other failure is logged, and neither stops the next job or the next
round.  Every serving process runs them (``bot.server.workers``); what a job does is
claimed in the database, so replicas never do it twice.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Protocol

from slack_sdk.web.async_client import AsyncWebClient

from bot.posting import BotClients
from commands.kernel.context import CommandContext
from commands.kernel.jobs import Job, JobEnv
from commands.registry import Registry
from storage import Storage
from storage.errors import StorageBusyError

log = logging.getLogger(__name__)


class SystemContexts(Protocol):
    async def system_context(self, client: AsyncWebClient, team_id: str) -> CommandContext:
        """The context of work nobody clicked, for ``team_id``."""
        ...


class TeamContexts:
    """``JobEnv`` on the runtime's parts: the team's bot client, then the context of
    work nobody clicked (``Runtime.system_context``)."""

    def __init__(self, storage: Storage, bots: BotClients, contexts: SystemContexts) -> None:
        self._storage = storage
        self._bots = bots
        self._contexts = contexts

    @property
    def storage(self) -> Storage:
        return self._storage

    async def team_context(self, team_id: str) -> CommandContext | None:
        client = await self._bots.get(team_id)
        if client is None:
            return None
        return await self._contexts.system_context(client, team_id)


class JobRunner:
    def __init__(self, registry: Registry, env: JobEnv, *, every: float | None = None) -> None:
        """``every``: one period for every job instead of each one's own (tests)."""
        self._registry = registry
        self._env = env
        self._every = every
        self._tasks: list[asyncio.Task[None]] = []

    def job(self, name: str) -> Job:
        for job in self._registry.jobs:
            if job.name == name:
                return job
        raise LookupError(f"no family of this app declares the job {name!r}")

    async def run_once(self, name: str) -> object:
        """Run one job now, as its loop would (its failures are the caller's)."""
        with self._registry.using():
            return await self.job(name).run(self._env)

    @property
    def probes(self) -> tuple[str, ...]:
        """The readiness checks the jobs report under."""
        return tuple(dict.fromkeys(job.probe for job in self._registry.jobs))

    def running(self, probe: str) -> bool:
        """Whether the loop of every job reporting under ``probe`` is alive."""
        names = {job.name for job in self._registry.jobs if job.probe == probe}
        alive = {task.get_name() for task in self._tasks if not task.done()}
        return bool(names) and all(any(name in loop.split(",") for loop in alive) for name in names)

    def start(self) -> None:
        if self._tasks:
            return
        rounds: dict[float, list[Job]] = {}
        for job in self._registry.jobs:
            rounds.setdefault(self._every or job.every, []).append(job)
        loop = asyncio.get_running_loop()
        for every, jobs in rounds.items():
            name = ",".join(job.name for job in jobs)
            self._tasks.append(loop.create_task(self._forever(every, jobs), name=name))

    async def stop(self) -> None:
        tasks, self._tasks = self._tasks, []
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _forever(self, every: float, jobs: list[Job]) -> None:
        while True:
            with self._registry.using():
                for job in jobs:
                    try:
                        await job.run(self._env)
                    except StorageBusyError:
                        log.warning("%s: the database is busy; trying again later", job.name)
                    except Exception:  # one bad run must not stop the next ones
                        log.exception("%s failed", job.name)
            await asyncio.sleep(every)
