"""Where the outgoing requests are counted: the Slack Web API clients and the call-center
clients, each through the hook its library offers, so neither library nor ``callcenter``
knows about Prometheus.

- Slack: slack_sdk shows every answer (and every failure to get one) to the client's retry
  handlers, in order, until one asks for a retry.  ``SlackCallCounter`` goes first, counts
  and never asks; Bolt's per-request clients copy the handler list of the app's client,
  so requests made inside listeners are counted too.
- Call center: ``CountingTransport`` wraps the httpx transport ``ServiceClients`` gives each
  ``CallCenter``; every attempt (retries and token fetches included) is one request.
"""

from __future__ import annotations

from typing import Any

import httpx
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import AsyncRateLimitErrorRetryHandler
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState

from bot.metrics import Metrics, Stopwatch, slack_method


class SlackCallCounter(AsyncRetryHandler):
    """Counts each Web API attempt by method and outcome; never retries anything."""

    def __init__(self, metrics: Metrics) -> None:
        super().__init__(max_retry_count=0)
        self._metrics = metrics

    async def can_retry_async(
        self,
        *,
        state: RetryState,
        request: HttpRequest,
        response: HttpResponse | None = None,
        error: Exception | None = None,
    ) -> bool:
        method = slack_method(request.url)
        if response is None:
            outcome = "failed"
        elif response.status_code == 429:
            outcome = "ratelimited"
            self._metrics.slack_ratelimited.labels(method).inc()
        else:
            body: Any = response.body
            ok = response.status_code < 400 and (not isinstance(body, dict) or body.get("ok", True))
            outcome = "ok" if ok else "error"
        self._metrics.slack_calls.labels(method, outcome).inc()
        return False


def slack_retry_handlers(metrics: Metrics | None) -> list[AsyncRetryHandler]:
    """The retry handlers of every Web API client of the app: the counter first (it must
    see each answer before a retry handler takes it), then Slack's 429s retried after
    ``Retry-After``."""
    counting: list[AsyncRetryHandler] = [SlackCallCounter(metrics)] if metrics else []
    return [*counting, AsyncRateLimitErrorRetryHandler(max_retry_count=3)]


def status_class(status: int) -> str:
    return f"{status // 100}xx"


class CountingTransport(httpx.AsyncBaseTransport):
    """An httpx transport that counts and times each request it passes on."""

    def __init__(self, inner: httpx.AsyncBaseTransport, metrics: Metrics) -> None:
        self._inner = inner
        self._metrics = metrics

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        watch = Stopwatch()
        method = request.method
        path = request.url.path
        try:
            response = await self._inner.handle_async_request(request)
        except Exception:
            self._metrics.count_callcenter(method, path, "error", watch.seconds())
            raise
        self._metrics.count_callcenter(
            method, path, status_class(response.status_code), watch.seconds()
        )
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()
