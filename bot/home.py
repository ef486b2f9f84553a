"""Publishing App Home: the wallboard for connected workspaces, a welcome otherwise."""

from __future__ import annotations

import logging
from typing import Protocol

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from commands.kernel.context import CommandContext
from commands.reports.wallboard import not_connected_home, wallboard

log = logging.getLogger(__name__)


class Contexts(Protocol):
    """Where a request's command context comes from (``bot.runtime.Runtime``)."""

    async def context(
        self,
        client: AsyncWebClient,
        *,
        team_id: str,
        user_id: str,
        channel_id: str | None,
        offset: int = 0,
    ) -> CommandContext: ...


async def publish_home(rt: Contexts, client: AsyncWebClient, *, team_id: str, user_id: str) -> None:
    ctx = await rt.context(client, team_id=team_id, user_id=user_id, channel_id=None)
    view = await wallboard(ctx) if ctx.cc is not None else not_connected_home(ctx.role)
    try:
        await client.views_publish(user_id=user_id, view=view)
    except SlackApiError as exc:
        log.warning("views.publish failed for %s: %s", user_id, exc.response.get("error"))
