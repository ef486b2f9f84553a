"""The expiry sweep: every ~30 s, overdue approval requests become expired and their cards
say so, whether or not anyone clicks.

It runs as one asyncio task beside the app (``bot/server.py`` starts it with the HTTP
server and with Socket Mode).  Expiry is one compare-and-set per request in SQLite, so
two processes sweeping the same database expire (and audit) each request once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from bot.app import web_client
from bot.runtime import Runtime
from commands.approvals.flow import ApprovalFlow
from commands.approvals.workflow import expire_due
from storage import Approval

log = logging.getLogger(__name__)

SWEEP_SECONDS = 30.0


async def team_client(rt: Runtime, app: AsyncApp, team_id: str) -> AsyncWebClient | None:
    """The bot's Web API client for a team outside any request: the single-workspace
    token, else the team's installation."""
    if app.client.token:
        return app.client
    store = app.installation_store
    if store is None:
        return None
    bot = await store.async_find_bot(enterprise_id=None, team_id=team_id)
    if bot is None or not bot.bot_token:
        return None
    return web_client(rt.settings.slack_api_url, bot.bot_token)


async def sweep_once(rt: Runtime, app: AsyncApp) -> list[Approval]:
    """Expire every team's overdue requests now; returns them."""
    expired: list[Approval] = []
    for team in rt.storage.approvals.teams_with_pending():
        client = await team_client(rt, app, team)
        if client is None:
            expired.extend(expire_due(rt.storage, team))
            continue
        flow = ApprovalFlow(await rt.system_context(client, team))
        expired.extend(await flow.sweep())
    return expired


async def _sweep_forever(rt: Runtime, app: AsyncApp, every: float) -> None:
    while True:
        await asyncio.sleep(every)
        try:
            await sweep_once(rt, app)
        except Exception:  # one bad sweep must not stop the next ones
            log.exception("approval expiry sweep failed")


@contextlib.asynccontextmanager
async def approval_sweeper(
    rt: Runtime, app: AsyncApp, *, every: float = SWEEP_SECONDS
) -> AsyncIterator[None]:
    task = asyncio.create_task(_sweep_forever(rt, app, every), name="approval-sweeper")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
