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
from bot.listeners.tracking import tracking
from bot.messenger import WebApiMessenger
from bot.observe import counted
from bot.request_guard import QUICK_LOCK_WAIT, RETRY_AFTER
from bot.runtime import Runtime
from commands.dispatch import home_filled
from commands.kernel.i18n import use_audience
from commands.kernel.reply import PublishHome
from storage import Outcome, off_loop_quick, patience
from storage.errors import StorageBusyError
from storage.offload import off_loop

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
        if not is_event:
            await next()
            return None
        try:
            # Before the acknowledgement, so briefly: Slack resends an event refused now.
            first = await off_loop_quick(first_delivery, str(team), str(event_id))
        except StorageBusyError:
            log.info("event %s: the database is busy; refused for Slack to resend", event_id)
            return BoltResponse(status=503, body="", headers={"Retry-After": RETRY_AFTER})
        if not first:
            log.info("event %s already handled; ignoring the retry", event_id)
            return BoltResponse(status=200, body="")
        await next()
        return None

    def first_delivery(team: str, event_id: str) -> bool:
        with patience(QUICK_LOCK_WAIT, tries=1):
            return rt.storage.dedup.mark_event(team, event_id)

    @app.event("app_home_opened")
    @tracking(rt.background)
    async def home_opened(event: dict[str, Any], context: AsyncBoltContext) -> None:
        if event.get("tab", "home") != "home":
            return
        with counted(rt.metrics, "event", "app_home_opened"):
            ctx = await builder(context).build()
            messenger = ctx.messenger or WebApiMessenger(
                builder(context).client, responses=rt.responses
            )
            with use_audience(ctx.audience), rt.registry.using():
                home = await home_filled(PublishHome(), ctx, rt.registry)
                await deliver(home, Surface(messenger=messenger, respond=None), ctx)

    async def wipe(team: str, reason: str) -> None:
        # API key, cached tokens, installations and callback token in one transaction,
        # then the old values cleared from the database's files (off the event loop).
        wiped = await off_loop(rt.storage.wipe_workspace_secrets, team)
        if not wiped.scrubbed:
            # The rows are gone; older copies of the pages (ciphertext) may stay on disk
            # until the database can rewrite them, and the operator should know.
            log.warning("could not clear old copies of %s's secrets from disk; retry later", team)
        await rt.clients.forget(team)
        await off_loop(
            rt.storage.audit.append,
            team,
            None,
            "workspace.wipe",
            {"reason": reason},
            outcome=Outcome.OK,
        )
        log.info("wiped the secrets of workspace %s (%s)", team, reason)

    @app.event("app_uninstalled")
    @tracking(rt.background)
    async def uninstalled(body: dict[str, Any]) -> None:
        with counted(rt.metrics, "event", "app_uninstalled"):
            await wipe(body["team_id"], "app_uninstalled")

    @app.event("tokens_revoked")
    @tracking(rt.background)
    async def revoked(event: dict[str, Any], body: dict[str, Any]) -> None:
        if (event.get("tokens") or {}).get("bot"):
            with counted(rt.metrics, "event", "tokens_revoked"):
                await wipe(body["team_id"], "tokens_revoked")
        else:
            # callops asks for no user scopes, so only the bot token matters.
            log.info("user tokens revoked in %s; nothing to wipe", body["team_id"])
