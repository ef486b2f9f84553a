"""The Bolt middleware in front of every listener: the request claimed once
(``bot.request_guard``), then a ``ContextBuilder`` on Bolt's context for the listener to
build the ``CommandContext`` from after its ack (who asks, where)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import StringConstraints, ValidationError
from slack_bolt.async_app import AsyncApp, AsyncBoltContext, AsyncBoltRequest
from slack_bolt.response import BoltResponse
from slack_sdk.web.async_client import AsyncWebClient

from bot import logs, request_guard
from bot.metrics import work_name
from bot.runtime import Runtime
from commands.kernel.context import CommandContext
from commands.kernel.reply import Reply
from commands.kernel.values import Metadata
from commands.registry import Registry
from storage import Requester

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
    pending_claim: request_guard.Claim | None = None  # a claim left to the background
    known: Requester | None = None  # what was read of who asks, with its claim

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
        """``bot.request_guard.claimed``, for the claim left pending, if any."""
        return await request_guard.claimed(self.pending_claim, tell, lock_wait=lock_wait)


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
        team, user = context.team_id, context.user_id
        try:
            pending, known = await request_guard.first_time(rt, req, team, user)
        except request_guard.Refused as refused:
            refused.log(f"{body.get('type') or 'slash command'} from {team}")
            headers = dict[str, str | Sequence[str]](refused.headers)
            return BoltResponse(status=refused.status, body=refused.body, headers=headers)
        rt.responses.pool(context)
        if team and user:
            channel = _channel(body, context)
            context[CONTEXT_KEY] = ContextBuilder(
                rt, context.client, team, user, channel, pending, known
            )
        await next()
        return None
