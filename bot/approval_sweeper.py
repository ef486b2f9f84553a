"""The approval sweep: at start and every ~15 s, overdue requests become expired and
requests a dead process left behind are settled, and their cards say so, whether or not
anyone clicks; and whatever a settled request still holds apart (a one-time secret, its
prompt's address) is deleted.

It runs as one asyncio task beside the app (``bot.server`` starts and stops it with the
HTTP server and with Socket Mode).  Expiry is one compare-and-set per request in SQLite, so
two processes sweeping the same database expire (and audit) each request once.  Recovery
(``commands.approvals.recovery``) settles an execution whose lease ran out by reading the
service, never by running it again; the process that runs an action renews its lease, so
a slow action is never mistaken for an abandoned one.

It needs the database, the bot's client per team (``BotClients``: the team's installation,
else the single bot token) and something that expires a team's requests and updates their
cards (the approvals family's ``ApprovalFlow`` in the team's system context, through the
``TeamSweep`` protocol).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Protocol

from slack_sdk.web.async_client import AsyncWebClient

from bot.posting import BotClients
from commands.approvals.flow import PROMPT_URL_LIFETIME, ApprovalFlow
from commands.approvals.recovery import APPROVED_GRACE, recover
from commands.approvals.workflow import expire_due
from commands.kernel.context import CommandContext
from commands.registry import Registry
from storage import Approval, Storage
from storage.errors import StorageBusyError
from storage.offload import off_loop

log = logging.getLogger(__name__)

SWEEP_SECONDS = 15.0


class TeamSweep(Protocol):
    registry: Registry
    """The app's tables: the action table recovery and expiry read."""

    async def sweep_team(self, client: AsyncWebClient, team_id: str) -> list[Approval]:
        """Expire ``team_id``'s overdue requests and say so on their cards."""
        ...

    async def recover_team(
        self, client: AsyncWebClient, team_id: str, abandoned: list[Approval]
    ) -> list[Approval]:
        """Settle ``team_id``'s ``abandoned`` requests, update their cards, tell the
        requesters."""
        ...


class SystemContexts(Protocol):
    registry: Registry

    async def system_context(self, client: AsyncWebClient, team_id: str) -> CommandContext:
        """The context of work nobody clicked, for ``team_id``."""
        ...


class FlowSweep:
    """``TeamSweep`` by the approvals family's own flow: expire, update the cards, tell
    the requesters."""

    def __init__(self, contexts: SystemContexts) -> None:
        self._contexts = contexts
        self.registry = contexts.registry

    async def sweep_team(self, client: AsyncWebClient, team_id: str) -> list[Approval]:
        ctx = await self._contexts.system_context(client, team_id)
        return await ApprovalFlow(ctx).sweep()

    async def recover_team(
        self, client: AsyncWebClient, team_id: str, abandoned: list[Approval]
    ) -> list[Approval]:
        ctx = await self._contexts.system_context(client, team_id)
        flow = ApprovalFlow(ctx)
        return await recover(flow.storage, abandoned, ctx.cc, flow)


class ApprovalSweeper:
    def __init__(
        self, storage: Storage, bots: BotClients, flow: TeamSweep, *, every: float = SWEEP_SECONDS
    ) -> None:
        self._storage = storage
        self._bots = bots
        self._flow = flow
        self._every = every
        self._task: asyncio.Task[None] | None = None

    async def sweep_once(self) -> list[Approval]:
        """Expire every team's overdue requests now; returns them.  A team the bot cannot
        post in still has its requests expired (and audited), only its cards stay as
        they are."""
        with self._flow.registry.using():
            return await self._sweep_once()

    async def _sweep_once(self) -> list[Approval]:
        expired: list[Approval] = []
        for team in await off_loop(self._storage.approvals.teams_with_pending):
            client = await self._bots.get(team)
            if client is None:
                expired.extend(await off_loop(expire_due, self._storage, team))
                continue
            expired.extend(await self._flow.sweep_team(client, team))
        await off_loop(
            self._storage.approval_secrets.purge_settled, max_prompt_age=PROMPT_URL_LIFETIME
        )
        return expired

    async def recover_once(self) -> list[Approval]:
        """Settle every team's abandoned requests now; returns them.  A team the bot cannot
        post in still has them settled (and audited), only its cards stay as they are."""
        with self._flow.registry.using():
            return await self._recover_once()

    async def _recover_once(self) -> list[Approval]:
        by_team: dict[str, list[Approval]] = {}
        for approval in await off_loop(
            self._storage.approvals.abandoned, approved_grace=APPROVED_GRACE
        ):
            by_team.setdefault(approval.team_id, []).append(approval)
        settled: list[Approval] = []
        for team, abandoned in by_team.items():
            client = await self._bots.get(team)
            if client is None:
                settled.extend(await recover(self._storage, abandoned, None, None))
            else:
                settled.extend(await self._flow.recover_team(client, team, abandoned))
        return settled

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(
                self._sweep_forever(), name="approval-sweeper"
            )

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _sweep_forever(self) -> None:
        while True:
            # At once on start: what a previous process left behind is settled first.
            try:
                await self.recover_once()
            except StorageBusyError:
                log.warning("approval recovery: the database is busy; trying again later")
            except Exception:  # one bad sweep must not stop the next ones
                log.exception("approval recovery failed")
            try:
                await self.sweep_once()
            except StorageBusyError:
                log.warning("approval expiry sweep: the database is busy; trying again later")
            except Exception:
                log.exception("approval expiry sweep failed")
            await asyncio.sleep(self._every)
