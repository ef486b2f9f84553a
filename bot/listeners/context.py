"""The Bolt middleware that knows who is asking (a ``ContextBuilder`` on Bolt's context,
from what Bolt extracted; the listener builds the ``CommandContext`` after its ack), acts
on each ``event_id`` once and hands on the claim the door left pending (docs/door.md)."""

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
from bot.request_guard import RETRY_AFTER, Claim, claim
from bot.runtime import Runtime
from commands.dispatch import database_busy
from commands.kernel.context import CommandContext
from commands.kernel.reply import Reply
from commands.kernel.values import Metadata
from commands.registry import Registry
from storage import Requester, off_loop_quick

log = logging.getLogger(__name__)

CONTEXT_KEY = "callops"
Next = Callable[[], Awaitable[None]]


@dataclass(frozen=True)
class ContextBuilder:
    rt: Runtime
    client: AsyncWebClient
    team_id: str
    user_id: str
    channel_id: str | None
    pending_claim: Claim | None = None  # the door's claim left to the background, if any
    known: Requester | None = None  # what the door read of who asks, with its claim

    async def build(self) -> CommandContext:
        return await self.rt.context(
            self.client,
            team_id=self.team_id,
            user_id=self.user_id,
            channel_id=self.channel_id,
            known=self.known,
        )

    async def claimed(
        self, tell: Callable[[Reply], Awaitable[Any]] | None, *, lock_wait: float | None = None
    ) -> bool:
        """True if the request may go on: claimed at the door, or by its pending claim within
        ``lock_wait`` s; else a replay, or busy (``tell`` is told so) and nothing was done."""
        if (claiming := self.pending_claim) is None:
            return True
        done, _ = await asyncio.wait([claiming], timeout=lock_wait)
        first = claiming.result() if done else None
        if first is None:
            log.warning("request refused: the database stayed busy; nothing was done")
            if tell is not None:
                await tell(database_busy())
        elif not first:
            log.info("replayed request ignored (its claim was made after the ack)")
        return bool(first)


def builder(context: AsyncBoltContext) -> ContextBuilder:
    found = context.get(CONTEXT_KEY)
    if not isinstance(found, ContextBuilder):
        raise RuntimeError("the callops context middleware did not run for this request")
    return found


class OpenedFrom(Metadata):  # the channel a modal was opened from, in its private metadata
    channel: Annotated[str, StringConstraints(pattern=r"^[CDG][A-Z0-9]{2,30}$")] | None = None


def _channel(body: dict[str, Any], context: AsyncBoltContext) -> str | None:
    """Bolt's channel, the clicked message's, or (a modal) the one its opener kept."""
    found = context.channel_id or (body.get("container") or {}).get("channel_id")
    view = body.get("view")
    if found or not isinstance(view, dict):
        return found or None
    try:
        return OpenedFrom.model_validate_json(view.get("private_metadata") or "{}").channel
    except ValidationError:
        return None


def name_the_work(registry: Registry) -> Callable[..., Awaitable[None]]:
    """Bolt's ``before_authorize``: the team and the work on the log lines, from the start."""

    async def naming(body: dict[str, Any], context: AsyncBoltContext, next: Next) -> None:
        logs.begin(team=context.team_id, name=work_name(body, registry), keep_id=True)
        await next()

    return naming


def install(app: AsyncApp, rt: Runtime) -> None:
    @app.middleware
    async def callops_context(req: AsyncBoltRequest, next: Next) -> BoltResponse | None:
        body, context = req.body, req.context
        event_id, team, user = body.get("event_id"), context.team_id, context.user_id
        if body.get("type") == "event_callback" and event_id and team:
            try:  # before the acknowledgement, so briefly: Slack resends an event refused now
                first, _ = await off_loop_quick(claim, rt.storage, team, str(event_id))
            except Exception as exc:  # busy, or unavailable
                log.info("event %s: database busy (%s); refused", event_id, type(exc).__name__)
                return BoltResponse(status=503, body="", headers={"Retry-After": RETRY_AFTER})
            if not first:
                log.info("event %s already handled; ignoring the retry", event_id)
                return BoltResponse(status=200, body="")
        rt.responses.pool(context)
        if team and user:
            signature = (req.headers.get("x-slack-signature") or [""])[0]
            pending, known = rt.held_claims.get(signature), None
            if isinstance(pending, tuple):  # read at the door: of the team and user Bolt names?
                (asker, read), pending = pending, None
                del rt.held_claims[signature]
                known = read if asker == (team, user) else None
            channel = _channel(body, context)
            context[CONTEXT_KEY] = ContextBuilder(
                rt, context.client, team, user, channel, pending, known
            )
        await next()
        return None
