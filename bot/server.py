"""Serving the app: HTTP (Bolt's one request URL plus health and OAuth pages) or Socket Mode.

Both build the same Bolt app on the same runtime and run the same workers beside it (the
digest and alert scheduler, the approval sweeper), so a feature tested over one transport
behaves the same over the other.  The processes that run them for good are in
``bot.cli_app``.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator

from aiohttp import web
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.app.async_server import AsyncSlackAppServer
from slack_bolt.async_app import AsyncApp

from bot import health, metrics_http
from bot.app import create_app
from bot.approval_sweeper import ApprovalSweeper, FlowSweep
from bot.callbacks import install_call_feed
from bot.http_door import SERVER_LOG, encoded_body_refusal
from bot.observe import request_middleware
from bot.request_guard import SlackRequestGuard
from bot.runtime import Runtime

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
CALLBACKS_PREFIX = "/callbacks/"


def build_web_app(
    rt: Runtime, app: AsyncApp, readiness: health.Readiness | None = None
) -> web.Application:
    """Bolt's aiohttp server (``/slack/events``, ``/slack/install``, ``/slack/oauth_redirect``)
    behind the request guard, with ``/healthz``, ``/readyz``, ``/metrics`` and the
    call-record receiver ``/callbacks/{token}`` added; the call feed runs while it serves.
    Every request gets a correlation id for its log lines, and each answer on
    ``/slack/events`` is timed (``bot.observe``), guard included."""
    server = AsyncSlackAppServer(port=0, path=EVENTS_PATH, app=app)
    web_app = server.web_app
    secret = rt.settings.slack_signing_secret
    guard = SlackRequestGuard(
        secret.get_secret_value() if secret else None,
        rt.storage.dedup,
        path=EVENTS_PATH,
        held=rt.held_claims,
    )
    web_app.middlewares.insert(0, request_middleware(rt.metrics, EVENTS_PATH))
    web_app.middlewares.insert(1, encoded_body_refusal(EVENTS_PATH, CALLBACKS_PREFIX))
    web_app.middlewares.append(guard.middleware)
    readiness = readiness or health.Readiness(rt.storage)
    health.install(web_app, readiness)
    metrics_http.install(web_app, rt.metrics)

    async def close_runtime(_: web.Application) -> None:
        await rt.close()

    web_app.on_cleanup.append(close_runtime)
    install_call_feed(web_app, rt.storage, rt.call_feed)
    readiness.watch("call_feed", lambda: rt.call_feed.running)
    return web_app


@contextlib.asynccontextmanager
async def workers(
    rt: Runtime, *, scheduler: bool, readiness: health.Readiness | None = None
) -> AsyncIterator[None]:
    """The scheduler (unless ``scheduler`` is False: another process runs it) and the
    approval sweeper, for the block; ``readiness`` watches them."""
    sweeper = ApprovalSweeper(rt.storage, rt.bots, FlowSweep(rt))
    async with contextlib.AsyncExitStack() as stack:
        if scheduler:
            rt.scheduler.start()
            stack.push_async_callback(rt.scheduler.stop)
            if readiness is not None:
                readiness.watch("scheduler", lambda: rt.scheduler.running)
        sweeper.start()
        stack.push_async_callback(sweeper.stop)
        if readiness is not None:
            readiness.watch("approval_sweeper", lambda: sweeper.running)
        yield


@contextlib.asynccontextmanager
async def serving(
    rt: Runtime, *, host: str = "127.0.0.1", port: int = 3000, scheduler: bool = True
) -> AsyncIterator[str]:
    """Serve HTTP until the block exits; yields the base URL (port 0 picks a free one).
    ``scheduler``: also run the digest and alert scheduler in this process."""
    app = create_app(rt)
    readiness = health.Readiness(rt.storage)
    runner = web.AppRunner(build_web_app(rt, app, readiness), access_log=None, logger=SERVER_LOG)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound = runner.addresses[0][1] if runner.addresses else port
    try:
        async with workers(rt, scheduler=scheduler, readiness=readiness):
            yield f"http://{host}:{bound}"
    finally:
        await runner.cleanup()


@contextlib.asynccontextmanager
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
        async with workers(rt, scheduler=scheduler):
            yield handler
    finally:
        await handler.close_async()  # type: ignore[no-untyped-call]
        await rt.close()
