"""Serving the app: HTTP (Bolt's one request URL plus health and OAuth pages) or Socket Mode.

Both entry points build the same runtime and the same Bolt app, so a feature tested over
one transport behaves the same over the other.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp import web
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.app.async_server import AsyncSlackAppServer
from slack_bolt.async_app import AsyncApp

from bot.app import create_app
from bot.approval_sweeper import approval_sweeper
from bot.callbacks import install_call_feed
from bot.runtime import Runtime
from bot.scheduler import scheduling
from bot.settings import Settings
from storage import SecretBox, Storage

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"


def open_runtime(settings: Settings, *, demo: bool = False) -> Runtime:
    """Storage and clients for this process; refuses to run without a secret key unless
    in demo mode (storage.secrets says why)."""
    box = SecretBox.from_settings(settings.secret_keys, demo=demo)
    storage = Storage.open(settings.callops_db, box, default_timezone=settings.callops_timezone)
    return Runtime.build(settings, storage)


def build_web_app(rt: Runtime, app: AsyncApp) -> web.Application:
    """Bolt's aiohttp server (``/slack/events``, ``/slack/install``, ``/slack/oauth_redirect``)
    with ``/healthz`` and the call-record receiver ``/callbacks/{token}`` added."""
    server = AsyncSlackAppServer(port=0, path=EVENTS_PATH, app=app)
    web_app = server.web_app

    async def healthz(request: web.Request) -> web.Response:
        try:
            # Off the event loop: a slow database must not hold up every other request.
            await asyncio.to_thread(rt.storage.ping)
        except Exception as exc:  # the point of a health check is to say so, not crash
            log.warning("health check failed: %s", exc)
            return web.json_response({"ok": False, "database": "unavailable"}, status=503)
        return web.json_response({"ok": True})

    async def close_runtime(_: web.Application) -> None:
        await rt.close()

    web_app.router.add_get("/healthz", healthz)
    web_app.on_cleanup.append(close_runtime)
    install_call_feed(web_app, rt, app)
    return web_app


@asynccontextmanager
async def serving(
    rt: Runtime, *, host: str = "127.0.0.1", port: int = 3000, scheduler: bool = True
) -> AsyncIterator[str]:
    """Serve HTTP until the block exits; yields the base URL (port 0 picks a free one).
    ``scheduler``: also run the digest and alert scheduler in this process."""
    app = create_app(rt)
    runner = web.AppRunner(build_web_app(rt, app), access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound = runner.addresses[0][1] if runner.addresses else port
    try:
        async with scheduling(rt, enabled=scheduler), approval_sweeper(rt, app):
            yield f"http://{host}:{bound}"
    finally:
        await runner.cleanup()


@asynccontextmanager
async def socket_mode(
    rt: Runtime, *, scheduler: bool = True
) -> AsyncIterator[AsyncSocketModeHandler]:
    """Connect over Socket Mode until the block exits."""
    if rt.settings.slack_app_token is None:
        raise SystemExit("callops socket needs SLACK_APP_TOKEN (an xapp- app-level token).")
    app = create_app(rt)
    handler = AsyncSocketModeHandler(app, rt.settings.slack_app_token.get_secret_value())
    await handler.connect_async()  # type: ignore[no-untyped-call]
    try:
        async with scheduling(rt, enabled=scheduler), approval_sweeper(rt, app):
            yield handler
    finally:
        await handler.close_async()  # type: ignore[no-untyped-call]
        await rt.close()


async def serve_forever(
    settings: Settings, host: str, port: int, *, scheduler: bool = True
) -> None:
    rt = open_runtime(settings)
    async with serving(rt, host=host, port=port, scheduler=scheduler) as url:
        log.info("callops listening on %s%s", url, EVENTS_PATH)
        print(f"callops: Slack request URL {url}{EVENTS_PATH}, health {url}/healthz", flush=True)
        await asyncio.Event().wait()


async def socket_forever(settings: Settings, *, scheduler: bool = True) -> None:
    rt = open_runtime(settings)
    async with socket_mode(rt, scheduler=scheduler):
        print("callops: connected to Slack over Socket Mode", flush=True)
        await asyncio.Event().wait()
