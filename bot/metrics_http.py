"""``GET /metrics``: the process's metrics in Prometheus' text format.

On ``callops serve`` it is a route of the app's own web server, beside ``/healthz``; the
scheduler process (``callops scheduler --metrics-port``), which serves nothing else, gets
a small server of its own.  Rendering reads the database's gauges (``bot.metrics``), so
it runs on a database thread (``storage.off_loop``): the event loop never waits for it.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST

from bot.metrics import Metrics
from bot.request_guard import SERVER_LOG
from storage import off_loop

METRICS_PATH = "/metrics"


def install(web_app: web.Application, metrics: Metrics) -> None:
    async def scrape(_: web.Request) -> web.Response:
        body = await off_loop(metrics.render)
        response = web.Response(body=body)
        response.headers["Content-Type"] = CONTENT_TYPE_LATEST
        return response

    web_app.router.add_get(METRICS_PATH, scrape)


@contextlib.asynccontextmanager
async def serving(metrics: Metrics, host: str, port: int) -> AsyncIterator[str]:
    """Serve only ``/metrics`` until the block exits; yields its URL (port 0: any free)."""
    web_app = web.Application()
    install(web_app, metrics)
    runner = web.AppRunner(web_app, access_log=None, logger=SERVER_LOG)
    await runner.setup()
    site = web.TCPSite(runner, host, port)
    await site.start()
    bound = runner.addresses[0][1] if runner.addresses else port
    try:
        yield f"http://{host}:{bound}{METRICS_PATH}"
    finally:
        await runner.cleanup()
