"""Runs the background jobs the families declare (``Family.jobs``), naming none.

A runner runs the jobs of the places it is given (``SERVING``: every serving process,
``bot.server.workers``; ``SCHEDULER``: the process that runs the scheduler, that one or
``callops scheduler``).  Jobs of the same period run in one loop, one after the other
in the families' order (a job ``alone`` in a loop of its own): at once when the process
starts, then every period.  Each runs with the app's tables in use (``Registry.using``)
and on its own: a database too busy is a warning and the next round catches up, any
other failure is logged, and neither stops the next job or the next round.  What a job
does is claimed in the database, so replicas never do it twice.  ``TeamContexts`` is the
``JobEnv`` on this process's parts: its paced outbox (``BotOutbox``), its service
clients and the context of work nobody clicked.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Collection, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Protocol
from zoneinfo import ZoneInfo

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot import logs
from bot.posting import BotClients, SlackOutbox, rate_limited
from bot.service_clients import ServiceClients
from callcenter import CallCenter
from commands.kernel.context import CommandContext, NotConnectedError
from commands.kernel.jobs import NOT_INSTALLED, SERVING, Job, JobEnv, JobOutbox, SlackRefused, Where
from commands.kernel.reply import Reply
from commands.registry import Registry
from storage import Storage, Workspace
from storage.errors import StorageBusyError

if TYPE_CHECKING:
    from bot.runtime import Runtime

log = logging.getLogger(__name__)


class SystemContexts(Protocol):
    async def system_context(self, client: AsyncWebClient, team_id: str) -> CommandContext:
        """The context of work nobody clicked, for ``team_id``."""
        ...


class BotOutbox:
    """``JobOutbox`` on the process's paced outbox, as each team's bot; Slack's
    refusals become ``SlackRefused``."""

    def __init__(self, bots: BotClients, outbox: SlackOutbox) -> None:
        self._bots = bots
        self._outbox = outbox

    async def _client(self, team_id: str) -> AsyncWebClient:
        client = await self._bots.get(team_id)
        if client is None:
            raise SlackRefused(NOT_INSTALLED)
        return client

    async def reachable(self, team_id: str) -> bool:
        return await self._bots.get(team_id) is not None

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
        client = await self._client(team_id)
        with refused():
            response = await self._outbox.post(
                client,
                channel,
                reply,
                team=team_id,
                thread_ts=thread_ts,
                metadata=dict(metadata) if metadata is not None else None,
                burst=burst,
            )
        return str(response.get("ts") or "")

    async def update(self, team_id: str, channel: str, ts: str, reply: Reply) -> None:
        client = await self._client(team_id)
        with refused():
            await self._outbox.update(client, channel, ts, reply, team=team_id)

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
        client = await self._client(team_id)
        with refused():
            await self._outbox.upload(
                client, channel, team=team_id, burst=burst, content=content,
                filename=filename, title=title, alt_txt=title, request_file_info=False,
                **({"thread_ts": thread_ts} if thread_ts else {}),
            )  # fmt: skip

    async def delete_file(self, team_id: str, file_id: str) -> None:
        client = await self._client(team_id)
        with refused():
            await client.files_delete(file=file_id)

    async def history(
        self, team_id: str, channel: str, *, since: float
    ) -> AsyncIterator[Mapping[str, Any]]:
        client = await self._client(team_id)
        with refused():
            async for message in self._outbox.history(client, channel, since=since):
                yield message

    async def workspace_admins(self, team_id: str) -> list[str]:
        client = await self._client(team_id)
        with refused():
            listing = await client.users_list(limit=200)
        admins = []
        for member in listing.get("members") or []:
            if not isinstance(member, dict) or member.get("is_bot") or member.get("deleted"):
                continue
            if member.get("is_admin") or member.get("is_owner"):
                admins.append(str(member.get("id")))
        return admins


@contextlib.contextmanager
def refused() -> Iterator[None]:
    """Slack's refusal in the block as ``SlackRefused`` (its error code, and whether it
    was a 429)."""
    try:
        yield
    except SlackApiError as exc:
        error = str(exc.response.get("error") or "error")
        raise SlackRefused(error, rate_limited=rate_limited(exc)) from exc


class TeamContexts:
    """``JobEnv`` on the runtime's parts: the paced outbox as each team's bot, the
    teams' service clients, then the context of work nobody clicked
    (``Runtime.system_context``)."""

    def __init__(
        self,
        storage: Storage,
        bots: BotClients,
        contexts: SystemContexts,
        *,
        outbox: SlackOutbox,
        services: ServiceClients,
        admins: Iterable[str] = (),
        timezone: str = "UTC",
    ) -> None:
        """``timezone``: the zone of a workspace that has none of its own."""
        self._storage = storage
        self._timezone = timezone
        self._bots = bots
        self._contexts = contexts
        self._outbox = BotOutbox(bots, outbox)
        self._services = services
        self._admins = frozenset(admins)

    @property
    def storage(self) -> Storage:
        return self._storage

    @property
    def outbox(self) -> JobOutbox:
        return self._outbox

    @property
    def admins(self) -> frozenset[str]:
        return self._admins

    def zone(self, workspace: Workspace | None) -> ZoneInfo:
        return ZoneInfo(workspace.timezone if workspace else self._timezone)

    async def service(self, team_id: str) -> CallCenter:
        cc = await self._services.get(team_id)
        if cc is None:
            raise NotConnectedError
        return cc

    async def team_context(self, team_id: str) -> CommandContext | None:
        client = await self._bots.get(team_id)
        if client is None:
            return None
        return await self._contexts.system_context(client, team_id)


def env_of(rt: Runtime) -> TeamContexts:
    """The ``JobEnv`` of the runtime's process: its paced outbox (the digests', shared
    with the call feed), its service clients and ``CALLOPS_ADMINS``."""
    return TeamContexts(
        rt.storage,
        rt.bots,
        rt,
        outbox=rt.digests.outbox,
        services=rt.clients,
        admins=rt.settings.admin_ids,
        timezone=rt.settings.callops_timezone,
    )


class JobRunner:
    def __init__(
        self,
        registry: Registry,
        env: JobEnv,
        *,
        every: float | None = None,
        where: Collection[Where] = (SERVING,),
    ) -> None:
        """``every``: one period for every job instead of each one's own (tests);
        ``where``: the places whose jobs this process runs."""
        self._registry = registry
        self._env = env
        self._every = every
        self._where = frozenset(where)
        self._tasks: list[asyncio.Task[None]] = []

    @property
    def jobs(self) -> tuple[Job, ...]:
        """The jobs this runner runs, in the families' order."""
        return tuple(job for job in self._registry.jobs if job.where in self._where)

    def job(self, name: str) -> Job:
        """Any job of the app (``run_once`` runs one wherever it is meant to run)."""
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
        return tuple(dict.fromkeys(job.probe for job in self.jobs))

    def running(self, probe: str) -> bool:
        """Whether the loop of every job reporting under ``probe`` is alive."""
        names = {job.name for job in self.jobs if job.probe == probe}
        alive = {task.get_name() for task in self._tasks if not task.done()}
        return bool(names) and all(any(name in loop.split(",") for loop in alive) for name in names)

    def start(self) -> None:
        if self._tasks:
            return
        rounds: dict[tuple[float, str], list[Job]] = {}
        for job in self.jobs:
            every = self._every or job.every
            rounds.setdefault((every, job.name if job.alone else ""), []).append(job)
        loop = asyncio.get_running_loop()
        for (every, _alone), jobs in rounds.items():
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
        """Rounds ``every`` seconds apart, start to start (a minute's job runs once a
        minute however long a round takes); a round longer than the period is followed
        by the next at once, never by two."""
        loop = asyncio.get_running_loop()
        while True:
            next_round = loop.time() + every
            with self._registry.using():
                for job in jobs:
                    logs.begin(name=job.name)  # this run's log lines, one correlation id
                    try:
                        await job.run(self._env)
                    except StorageBusyError:
                        log.warning("%s: the database is busy; trying again later", job.name)
                    except Exception:  # one bad run must not stop the next ones
                        log.exception("%s failed", job.name)
            await asyncio.sleep(max(0.0, next_round - loop.time()))
