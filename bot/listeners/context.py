"""The one Bolt middleware that knows who is asking: it puts a ``ContextBuilder`` on
Bolt's ``context`` for every request, read from what Bolt already extracted (team,
enterprise, user, channel; a modal's ``view.app_installed_team_id`` included).

Building the ``CommandContext`` asks Slack for the person's admin flag and the database
for their role, so it is left to the listener, which does it after acknowledging:
Slack's 3 seconds are never spent here.

A request whose replay claim the request guard could not make (the database was busy;
``bot.request_guard`` says why it was let through) has its signature held in
``Runtime.held_claims``; found there by the request's own signature, it is carried as
``ContextBuilder.pending_claim``, and the listener settles it with ``claimed`` before any
work, so a replay still acts never and a busy database is told, not waited on.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import StringConstraints, ValidationError
from slack_bolt.async_app import AsyncApp, AsyncBoltContext, AsyncBoltRequest
from slack_sdk.web.async_client import AsyncWebClient

from bot import logs
from bot.observe import work_name
from bot.request_guard import claim
from bot.runtime import Runtime
from commands.dispatch import database_busy
from commands.kernel.context import CommandContext
from commands.kernel.reply import Reply
from commands.kernel.values import Metadata
from commands.registry import Registry
from storage import off_loop, off_loop_quick, patience
from storage.errors import StorageBusyError

log = logging.getLogger(__name__)

CONTEXT_KEY = "callops"
LATE_CLAIM_EVERY = 0.25
"""Seconds between two tries at a refused form's claim while the database is busy."""


@dataclass(frozen=True)
class ContextBuilder:
    rt: Runtime
    client: AsyncWebClient
    team_id: str
    user_id: str
    channel_id: str | None
    pending_claim: str | None = None
    """The signature whose replay claim is still to be made (the guard found the database
    busy), else None."""

    async def build(self) -> CommandContext:
        return await self.rt.context(
            self.client, team_id=self.team_id, user_id=self.user_id, channel_id=self.channel_id
        )

    async def claimed(
        self,
        tell: Callable[[Reply], Awaitable[Any]] | None,
        *,
        lock_wait: float | None = None,
    ) -> bool:
        """True when the request may go on: its replay claim was made at the door, or is
        made now (with the usual retries, or one try of ``lock_wait`` seconds).  False for
        a replay (nothing is done), or when the database is still busy: ``tell`` (if any)
        then gets the busy message, and nothing was done."""
        signature = self.pending_claim
        if signature is None:
            return True
        run_by = self.rt.held_claims.run_by(signature)
        try:
            # A short claim is one an answer to Slack waits on: on the threads kept for those.
            offload = off_loop if lock_wait is None else off_loop_quick
            while True:
                try:
                    first = await offload(self._claim, signature, lock_wait)
                    break
                except StorageBusyError:
                    # Until the claim window closes (``CLAIM_WINDOW``): past it no process
                    # may claim it, so "nothing was changed" stays true everywhere.
                    if lock_wait is not None or time.time() >= run_by:
                        raise
        except StorageBusyError:
            # Held until the database takes it, so its replays are refused meanwhile.
            self.rt.held_claims.gave_up(signature)
            if lock_wait is not None:
                # A form is answered within Slack's 3 s, long before its claim window
                # closes: the claim is written as soon as the database takes it, so a
                # replay to another replica is refused from then on, not only here.
                self.rt.background.spawn(
                    self._claim_later(signature, run_by), name="callops-late-claim"
                )
            log.warning("request refused: the database stayed busy; nothing was done")
            if tell is not None:
                await tell(database_busy())
            return False
        self.rt.held_claims.claimed(signature)
        if first and lock_wait is None and 0 < run_by < time.time():
            # Claimed once the window had closed: it may not run any more (another
            # process would refuse it now), so it is refused here too, as busy.
            log.warning("request refused: claimed after its window; nothing was done")
            if tell is not None:
                await tell(database_busy())
            return False
        if not first:
            log.info("replayed request ignored (its claim was made after the ack)")
            return False
        return True

    async def _claim_later(self, signature: str, run_by: float) -> None:
        """Write a refused request's claim once the database takes it, until its claim
        window closes (every process refuses it after that anyway)."""
        while time.time() <= run_by:
            try:
                await off_loop(claim, self.rt.storage.dedup, signature)
            except StorageBusyError:
                await asyncio.sleep(LATE_CLAIM_EVERY)
                continue
            except Exception:
                log.warning("could not record a refused request's claim", exc_info=True)
                return
            self.rt.held_claims.written([signature])
            return

    def _claim(self, signature: str, lock_wait: float | None) -> bool:
        if lock_wait is None:
            return claim(self.rt.storage.dedup, signature)
        with patience(lock_wait, tries=1):
            return claim(self.rt.storage.dedup, signature)


def builder(context: AsyncBoltContext) -> ContextBuilder:
    found = context.get(CONTEXT_KEY)
    if not isinstance(found, ContextBuilder):
        raise RuntimeError("the callops context middleware did not run for this request")
    return found


def _channel(body: dict[str, Any], context: AsyncBoltContext) -> str | None:
    """The channel to answer in: Bolt's, else the clicked message's container's, else
    (a modal) the one its opener recorded in ``private_metadata``."""
    if context.channel_id:
        return context.channel_id
    container = body.get("container") or {}
    if container.get("channel_id"):
        return str(container["channel_id"])
    view = body.get("view")
    if isinstance(view, dict):
        try:
            return OpenedFrom.model_validate_json(view.get("private_metadata") or "{}").channel
        except ValidationError:
            return None  # forged, or not ours: answered where nothing is said
    return None


class OpenedFrom(Metadata):
    """The channel a modal was opened from, as its private metadata keeps it."""

    channel: Annotated[str, StringConstraints(pattern=r"^[CDG][A-Z0-9]{2,30}$")] | None = None


def name_the_work(
    registry: Registry,
) -> Callable[[dict[str, Any], AsyncBoltContext, Callable[[], Awaitable[None]]], Awaitable[None]]:
    """Bolt's ``before_authorize`` middleware: the team and the command (or interaction)
    of this request on its log lines (named by the app's ``registry``), from before Bolt
    asks Slack who the bot is.  Over HTTP the request already has its correlation id
    (``bot.observe``); over Socket Mode it gets one here."""

    async def naming(
        body: dict[str, Any], context: AsyncBoltContext, next: Callable[[], Awaitable[None]]
    ) -> None:
        logs.begin(team=context.team_id, name=work_name(body, registry), keep_id=True)
        await next()

    return naming


def install(app: AsyncApp, rt: Runtime) -> None:
    @app.middleware
    async def callops_context(
        req: AsyncBoltRequest,
        body: dict[str, Any],
        context: AsyncBoltContext,
        client: AsyncWebClient,
        next: Callable[[], Awaitable[None]],
    ) -> None:
        rt.responses.pool(context)
        team = context.team_id
        user = context.user_id
        if team and user:
            signature = (req.headers.get("x-slack-signature") or [""])[0]
            pending = signature if signature and rt.held_claims.pending(signature) else None
            context[CONTEXT_KEY] = ContextBuilder(
                rt, client, team, user, _channel(body, context), pending
            )
        await next()
