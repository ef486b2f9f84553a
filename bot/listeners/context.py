"""The one Bolt middleware that knows who is asking: it puts a ``ContextBuilder`` on
Bolt's ``context`` for every request, read from what Bolt already extracted (team,
enterprise, user, channel; a modal's ``view.app_installed_team_id`` included).  The
listener builds the ``CommandContext`` (the person's role, from Slack and the database)
after acknowledging: Slack's 3 seconds are never spent here.

The same middleware acts on each Events API ``event_id`` once (Slack redelivers an event
it thinks was not acknowledged), and a request whose replay claim the door could not make
(``bot.request_guard``: the database was busy) carries its signature as
``ContextBuilder.pending_claim``, which the listener settles with ``claimed`` before any
work.
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
from slack_bolt.response import BoltResponse
from slack_sdk.web.async_client import AsyncWebClient

from bot import logs
from bot.observe import work_name
from bot.request_guard import QUICK_LOCK_WAIT, RETRY_AFTER, claim
from bot.runtime import Runtime
from commands.dispatch import database_busy
from commands.kernel.context import CommandContext
from commands.kernel.reply import Reply
from commands.kernel.values import Metadata
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
        made now (with the usual retries until its claim window closes, or one try of
        ``lock_wait`` seconds).  False for a replay, or when the database stayed busy:
        ``tell`` (if any) then gets the busy message, and nothing was done."""
        signature = self.pending_claim
        if signature is None:
            return True
        held = self.rt.held_claims
        run_by = held.run_by(signature)
        # A short claim is one an answer to Slack waits on: on the threads kept for those.
        offload = off_loop if lock_wait is None else off_loop_quick
        while True:
            try:
                first = await offload(self._claim, signature, lock_wait)
                break
            except StorageBusyError:
                if lock_wait is None and time.time() < run_by:
                    continue  # past the window no process may claim it: "busy" stays true
                held.gave_up(signature)  # its replays are refused until the database has it
                if lock_wait is not None:  # a form: written as soon as the database takes it
                    self.rt.background.spawn(
                        self._claim_later(signature, run_by), name="callops-late-claim"
                    )
                return await self._busy(tell, "the database stayed busy")
        held.claimed(signature)
        if first and lock_wait is None and 0 < run_by < time.time():
            # Claimed once its window had closed: another process would refuse it now.
            return await self._busy(tell, "claimed after its window")
        if not first:
            log.info("replayed request ignored (its claim was made after the ack)")
        return first

    async def _busy(self, tell: Callable[[Reply], Awaitable[Any]] | None, why: str) -> bool:
        log.warning("request refused: %s; nothing was done", why)
        if tell is not None:
            await tell(database_busy())
        return False

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


async def name_the_work(
    body: dict[str, Any], context: AsyncBoltContext, next: Callable[[], Awaitable[None]]
) -> None:
    """Bolt's ``before_authorize`` middleware: the team and the command (or interaction)
    of this request on its log lines, from before Bolt asks Slack who the bot is.  Over
    HTTP the request already has its correlation id (``bot.observe``); over Socket Mode
    it gets one here."""
    logs.begin(team=context.team_id, name=work_name(body), keep_id=True)
    await next()


def install(app: AsyncApp, rt: Runtime) -> None:
    def first_delivery(team: str, event_id: str) -> bool:
        with patience(QUICK_LOCK_WAIT, tries=1):
            return rt.storage.dedup.mark_event(team, event_id)

    @app.middleware
    async def callops_context(
        req: AsyncBoltRequest,
        body: dict[str, Any],
        context: AsyncBoltContext,
        client: AsyncWebClient,
        next: Callable[[], Awaitable[None]],
    ) -> BoltResponse | None:
        event_id, team = body.get("event_id"), context.team_id
        if body.get("type") == "event_callback" and event_id and team:
            try:
                # Before the acknowledgement, so briefly: Slack resends an event refused now.
                first = await off_loop_quick(first_delivery, team, str(event_id))
            except Exception as exc:  # busy, or unavailable
                log.info(
                    "event %s: the database is busy (%s); refused", event_id, type(exc).__name__
                )
                return BoltResponse(status=503, body="", headers={"Retry-After": RETRY_AFTER})
            if not first:
                log.info("event %s already handled; ignoring the retry", event_id)
                return BoltResponse(status=200, body="")
        rt.responses.pool(context)
        user = context.user_id
        if team and user:
            signature = (req.headers.get("x-slack-signature") or [""])[0]
            pending = signature if signature and rt.held_claims.pending(signature) else None
            context[CONTEXT_KEY] = ContextBuilder(
                rt, client, team, user, _channel(body, context), pending
            )
        await next()
        return None
