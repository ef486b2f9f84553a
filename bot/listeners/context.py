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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import StringConstraints, ValidationError
from slack_bolt.async_app import AsyncApp, AsyncBoltContext, AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.web.async_client import AsyncWebClient

from bot import logs
from bot.metrics import work_name
from bot.request_guard import QUICK_LOCK_WAIT, RETRY_AFTER, Claim
from bot.runtime import Runtime
from commands.dispatch import database_busy
from commands.kernel.context import CommandContext
from commands.kernel.reply import Reply
from commands.kernel.values import Metadata
from commands.registry import Registry
from storage import off_loop_quick, patience

log = logging.getLogger(__name__)

CONTEXT_KEY = "callops"


@dataclass(frozen=True)
class ContextBuilder:
    rt: Runtime
    client: AsyncWebClient
    team_id: str
    user_id: str
    channel_id: str | None
    pending_claim: Claim | None = None
    """The replay claim the door left to the background (the database was busy), else
    None."""

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
        """True when the request may go on: its replay claim was made at the door, or by
        the claim the door left to the background (waited for, or for ``lock_wait``
        seconds at most: a form's answer is due in 3).  False for a replay, or when the
        database stayed busy: ``tell`` (if any) then gets the busy message, and nothing
        was done (a form's claim goes on, so its replays are refused once it is made)."""
        claiming = self.pending_claim
        if claiming is None:
            return True
        try:
            first = await asyncio.wait_for(asyncio.shield(claiming), lock_wait)
        except TimeoutError:
            first = None
        if first is None:
            log.warning("request refused: the database stayed busy; nothing was done")
            if tell is not None:
                await tell(database_busy())
            return False
        if not first:
            log.info("replayed request ignored (its claim was made after the ack)")
        return first


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
    (``bot.metrics``); over Socket Mode it gets one here."""

    async def naming(
        body: dict[str, Any], context: AsyncBoltContext, next: Callable[[], Awaitable[None]]
    ) -> None:
        logs.begin(team=context.team_id, name=work_name(body, registry), keep_id=True)
        await next()

    return naming


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
            pending = rt.held_claims.get(signature) if signature else None
            context[CONTEXT_KEY] = ContextBuilder(
                rt, client, team, user, _channel(body, context), pending
            )
        await next()
        return None
