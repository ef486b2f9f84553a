"""Serving the app: HTTP (Bolt's one request URL plus health and OAuth pages) or Socket Mode.

Both build the same Bolt app on the same runtime and run the same workers beside it (the
digest and alert scheduler and the families' jobs, ``bot.jobs``), so a feature tested
over one transport behaves the same over the other.  The processes that run them for
good are in ``bot.cli_app``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

from aiohttp import web
from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler
from slack_bolt.app.async_server import AsyncSlackAppServer
from slack_bolt.async_app import AsyncApp

from bot import health, metrics_http
from bot.app import create_app
from bot.callbacks import install_call_feed
from bot.drain import Drain
from bot.jobs import JobRunner, env_of
from bot.metrics import request_middleware
from bot.request_guard import SERVER_LOG, SlackRequestGuard
from bot.runtime import Runtime
from commands.kernel.jobs import SCHEDULER, SERVING

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
CALLBACKS_PREFIX = "/callbacks/"
HANDLER_GRACE = 5.0
"""Seconds a draining server gives the requests it is still reading (aiohttp's
``shutdown_timeout``): each is only an acknowledgement or a callback's write."""


def build_web_app(
    rt: Runtime, app: AsyncApp, readiness: health.Readiness | None = None
) -> web.Application:
    """Bolt's aiohttp server (``/slack/events``, ``/slack/install``, ``/slack/oauth_redirect``)
    behind the request guard, with ``/healthz``, ``/readyz``, ``/metrics`` and the
    call-record receiver ``/callbacks/{token}`` added; the call feed runs while it serves
    (and hands its leases back when the server shuts down).
    Every request gets a correlation id for its log lines, and each answer on
    ``/slack/events`` is timed (``bot.metrics``), guard included."""
    server = AsyncSlackAppServer(port=0, path=EVENTS_PATH, app=app)
    web_app = server.web_app
    secret = rt.settings.slack_signing_secret
    guard = SlackRequestGuard(
        secret.get_secret_value() if secret else None, path=EVENTS_PATH, callbacks=CALLBACKS_PREFIX
    )
    web_app.middlewares.insert(0, request_middleware(rt.metrics, EVENTS_PATH))
    web_app.middlewares.append(guard.middleware)
    readiness = readiness or health.Readiness(rt.storage)
    health.install(web_app, readiness)
    metrics_http.install(web_app, rt.metrics)
    install_call_feed(web_app, rt.storage, rt.call_feed, rt.registry.on_record)
    readiness.watch("call_feed", lambda: rt.call_feed.running)
    return web_app


@contextlib.asynccontextmanager
async def workers(
    rt: Runtime,
    *,
    scheduler: bool,
    readiness: health.Readiness | None = None,
    drain: Drain | None = None,
) -> AsyncIterator[None]:
    """The scheduler and the families' jobs that run with it (unless ``scheduler`` is
    False: another process runs them) and the families' jobs of every serving process
    (``bot.jobs``), for the block; ``readiness`` watches them.  At the end the scheduler
    finishes its tick within what is left of ``drain``'s budget."""
    places = (SERVING, SCHEDULER) if scheduler else (SERVING,)
    jobs = JobRunner(rt.registry, env_of(rt), where=places)
    async with contextlib.AsyncExitStack() as stack:
        if scheduler:
            rt.scheduler.start()
            stack.push_async_callback(_within, drain, rt.scheduler.stop, "scheduler stopped")
        jobs.start()
        stack.push_async_callback(jobs.stop)
        if readiness is not None:
            for probe, alive in job_checks(rt, jobs, scheduler=scheduler).items():
                readiness.watch(probe, alive)
        yield


def job_checks(rt: Runtime, jobs: JobRunner, *, scheduler: bool) -> dict[str, Callable[[], bool]]:
    """The readiness checks of the workers: each probe of ``jobs``; ``scheduler`` alive
    while the scheduler and every job reporting under it are."""
    checks: dict[str, Callable[[], bool]] = {
        probe: functools.partial(jobs.running, probe) for probe in jobs.probes
    }
    if scheduler:
        with_jobs = checks.get("scheduler")
        checks["scheduler"] = lambda: rt.scheduler.running and (with_jobs is None or with_jobs())
    return checks


async def _within(drain: Drain | None, step: Callable[[], Awaitable[None]], done: str) -> None:
    """``step``, cut off when ``drain``'s budget runs out; marked on its timeline."""
    if drain is None:
        await step()
        return
    try:
        async with asyncio.timeout(drain.left()):
            await step()
    except TimeoutError:
        log.warning("drain: out of time before %s", done)
    drain.mark(done)


@contextlib.asynccontextmanager
async def serving(
    rt: Runtime,
    *,
    host: str = "127.0.0.1",
    port: int = 3000,
    scheduler: bool = True,
    drain: Drain | None = None,
) -> AsyncIterator[str]:
    """Serve HTTP until the block exits; yields the base URL (port 0 picks a free one).
    ``scheduler``: also run the digest and alert scheduler in this process.

    The block's end, or ``drain`` beginning (a signal), drains the process in the order
    ``bot.drain`` gives: unready at once, no new connection, the feed's leases handed
    back, every request read and every answer owed finished, within the budget
    (``CALLOPS_DRAIN_SECONDS``)."""
    drain = drain or Drain(rt.settings.callops_drain_seconds)
    app = create_app(rt)
    readiness = health.Readiness(rt.storage)
    drain.on_begin(readiness.drain)
    drain.on_begin(rt.stop_starting)
    runner = web.AppRunner(
        build_web_app(rt, app, readiness),
        access_log=None,
        logger=SERVER_LOG,
        shutdown_timeout=min(HANDLER_GRACE, drain.seconds / 2),
    )
    async with contextlib.AsyncExitStack() as stack:
        # Undone last to first: unready, then the listener closed and the requests read,
        # then the workers, then the answers still owed and the connections.
        stack.push_async_callback(_closing, rt, drain)
        await stack.enter_async_context(
            workers(rt, scheduler=scheduler, readiness=readiness, drain=drain)
        )
        await runner.setup()
        stack.push_async_callback(_within, drain, runner.cleanup, "no request left to read")
        site = web.TCPSite(runner, host, port)
        await site.start()
        bound = runner.addresses[0][1] if runner.addresses else port
        stack.callback(drain.begin, "the end of serving")
        yield f"http://{host}:{bound}"


async def _closing(rt: Runtime, drain: Drain) -> None:
    """The last step: the answers still owed (within the budget), then the connections."""
    await rt.close(grace=drain.left())
    drain.mark("every answer sent, connections closed")


@contextlib.asynccontextmanager
async def socket_mode(
    rt: Runtime, *, scheduler: bool = True, drain: Drain | None = None
) -> AsyncIterator[AsyncSocketModeHandler]:
    """Connect over Socket Mode until the block exits (or ``drain`` begins and the block
    ends): no approved action starts any more, the workers stop, and the connection
    closes only once the work it brought is answered (within the budget)."""
    if rt.settings.slack_app_token is None:
        raise SystemExit("callops socket needs SLACK_APP_TOKEN (an xapp- app-level token).")
    drain = drain or Drain(rt.settings.callops_drain_seconds)
    drain.on_begin(rt.stop_starting)
    app = create_app(rt)
    handler = AsyncSocketModeHandler(app, rt.settings.slack_app_token.get_secret_value())
    await handler.connect_async()  # type: ignore[no-untyped-call]
    try:
        async with workers(rt, scheduler=scheduler, drain=drain):
            try:
                yield handler
            finally:
                drain.begin("the end of the connection")
        await rt.background.close(drain.left())
        drain.mark("every answer sent")
    finally:
        await handler.close_async()  # type: ignore[no-untyped-call]
        await rt.close(grace=drain.left())
        drain.mark("connection closed")
