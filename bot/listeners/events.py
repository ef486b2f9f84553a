"""Events: App Home opened, and the app losing its tokens (which wipes the workspace's
secrets: a revoked installation must leave no usable API key behind)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltContext
from slack_bolt.response import BoltResponse

from bot.delivery import Surface, deliver
from bot.listeners.context import builder
from bot.messenger import WebApiMessenger
from bot.runtime import Runtime
from commands.kernel.reply import PublishHome
from storage import Outcome

log = logging.getLogger(__name__)


def register(app: AsyncApp, rt: Runtime) -> None:
    @app.middleware
    async def drop_redelivered_events(
        body: dict[str, Any], next: Callable[[], Awaitable[None]]
    ) -> BoltResponse | None:
        """Slack redelivers an event it thinks was not acknowledged; act on each id once."""
        event_id = body.get("event_id")
        team = body.get("team_id")
        is_event = body.get("type") == "event_callback" and event_id and team
        if is_event and not rt.storage.dedup.mark_event(str(team), str(event_id)):
            log.info("event %s already handled; ignoring the retry", event_id)
            return BoltResponse(status=200, body="")
        await next()
        return None

    @app.event("app_home_opened")
    async def home_opened(event: dict[str, Any], context: AsyncBoltContext) -> None:
        if event.get("tab", "home") != "home":
            return
        ctx = await builder(context).build()
        messenger = ctx.messenger or WebApiMessenger(builder(context).client)
        await deliver(PublishHome(), Surface(messenger=messenger, respond=None), ctx)

    async def wipe(team: str, reason: str) -> None:
        db = rt.storage.db
        # Zero the deleted cells instead of leaving them in freed space.
        db.execute("PRAGMA secure_delete = ON")
        rt.storage.workspaces.disconnect(team)
        rt.storage.installations.delete(enterprise_id=None, team_id=team)
        rt.storage.callback_tokens.revoke(team)
        # Older copies of those pages stay in the write-ahead log until it is checkpointed
        # and emptied. A reader in another process can keep that from finishing now; the
        # operator then needs to know the old ciphertext may still be on disk.
        busy = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy and busy[0]:
            log.warning("could not empty the write-ahead log after wiping %s; retry later", team)
        await rt.clients.forget(team)
        rt.storage.audit.append(
            team, None, "workspace.wipe", {"reason": reason}, outcome=Outcome.OK
        )
        log.info("wiped the secrets of workspace %s (%s)", team, reason)

    @app.event("app_uninstalled")
    async def uninstalled(body: dict[str, Any]) -> None:
        await wipe(body["team_id"], "app_uninstalled")

    @app.event("tokens_revoked")
    async def revoked(event: dict[str, Any], body: dict[str, Any]) -> None:
        if (event.get("tokens") or {}).get("bot"):
            await wipe(body["team_id"], "tokens_revoked")
        else:
            # callops asks for no user scopes, so only the bot token matters.
            log.info("user tokens revoked in %s; nothing to wipe", body["team_id"])
