"""Events: App Home opened, and the app losing its tokens (which wipes the workspace's
secrets: a revoked installation must leave no usable API key behind)."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltContext

from bot.delivery import Surface, deliver
from bot.listeners.context import builder
from bot.listeners.tracking import tracking
from bot.metrics import counted
from bot.runtime import Runtime
from bot.slack_ports import WebApiMessenger
from commands.dispatch import home_filled
from commands.kernel.i18n import use_audience
from commands.kernel.reply import PublishHome
from storage import Outcome
from storage.offload import off_loop

log = logging.getLogger(__name__)


def register(app: AsyncApp, rt: Runtime) -> None:
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
