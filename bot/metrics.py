"""Every Prometheus metric of callops, defined once, on a registry of the process's own,
and the places where requests are counted.

``Metrics`` is made by the runtime (one per process; a test that runs two apps in one
Python process gets two, which do not see each other's counts) and served at ``/metrics``
by ``bot.metrics_http``.  Labels are bounded by construction: command names come from the
catalog, interaction names are the ids the families declare, call-center endpoints are
route templates (``/v3/campaign/{id}``, never a path with an id), Slack methods are Web
API method names.  Nothing here knows a team, a person or a value someone typed.

What the database knows (the callback queue, approvals by state) is read at scrape time by
``DatabaseCollector``, so every replica reports the same shared figures; rendering the
page therefore blocks on the database and runs off the event loop.

Where requests are counted:

- ``work_name``: the name of what a Slack request asks for, bounded: a catalog command
  name, or the id a family declared for the button, form, shortcut or step (a numbered
  or suffixed action id counts as its family's id), or the event's type; never the text
  someone typed.  ``counted``: around the dispatcher's result in a listener, one count
  by name and outcome (``failed`` when the listener raised).
- ``request_middleware``: every HTTP request gets a correlation id for its log lines
  (``bot.logs``); each answer on ``/slack/events`` is timed into ``callops_ack_seconds``
  by kind.
- The outgoing requests, each through the hook its library offers, so neither library
  nor ``callcenter`` knows about Prometheus.  Slack: slack_sdk shows every answer (and
  every failure to get one) to the client's retry handlers, in order, until one asks
  for a retry; ``SlackCallCounter`` goes first, counts and never asks, and Bolt's
  per-request clients copy the handler list of the app's client, so requests made
  inside listeners are counted too.  Call center: ``CountingTransport`` wraps the httpx
  transport ``ServiceClients`` gives each ``CallCenter``; every attempt (retries and
  token fetches included) is one request.
"""

from __future__ import annotations

import contextlib
import logging
import re
import time
from collections.abc import Awaitable, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import httpx
from aiohttp import web
from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from slack_sdk.http_retry.async_handler import AsyncRetryHandler
from slack_sdk.http_retry.builtin_async_handlers import AsyncRateLimitErrorRetryHandler
from slack_sdk.http_retry.request import HttpRequest
from slack_sdk.http_retry.response import HttpResponse
from slack_sdk.http_retry.state import RetryState

from bot import logs
from commands.dispatch import MAX_COMMAND_CHARS
from commands.kernel.grammar import UsageError, tokenize
from commands.kernel.reply import Also, FieldErrors, Outcome, Reply, StepFailed
from commands.registry import Registry

ACK_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 3.0, 5.0)
"""Seconds; Slack gives up on an answer after 3."""
REQUEST_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

ACK_KINDS = ("command", "interaction", "event", "other")
"""What ``/slack/events`` received: a slash command, a click/form/shortcut, an event
(or anything else Slack sends, like ``url_verification``)."""

_SEGMENT_WORD = re.compile(r"^[a-z]+(?:-[a-z]+)*$")
_VERSION = re.compile(r"^v[0-9]+$")
_SLACK_METHOD = re.compile(r"^[a-z]+(?:\.[A-Za-z0-9]+)+$")


def route_template(path: str) -> str:
    """The call-center endpoint of a request path, as a bounded label: ``/v3/campaign/
    5f0c…`` -> ``/v3/campaign/{id}``.  The service's paths are lower-case words
    (``/v3/monitor-stats/campaign/autodialer``); any other segment is an identifier."""
    parts = [p for p in path.split("?", 1)[0].split("/") if p]
    start = next((i for i, p in enumerate(parts) if _VERSION.match(p)), None)
    if start is None:  # not the service's API (a base URL's own prefix is skipped)
        return "other"
    words = [p if _SEGMENT_WORD.match(p) else "{id}" for p in parts[start + 1 :]]
    return "/" + "/".join([parts[start], *words])


def slack_method(url: str) -> str:
    """The Web API method of a request URL (``…/api/chat.postMessage``); a file upload
    goes to a URL of Slack's choosing, named ``upload``."""
    tail = url.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    return tail if _SLACK_METHOD.match(tail) else "upload"


@dataclass(frozen=True)
class DatabaseFigures:
    """What the database says at one scrape (every process of the app shares it)."""

    queue_depth: int
    """Call-feed posts waiting in the callback queue, all workspaces."""
    queue_oldest_age: float
    """Seconds the oldest waiting post has waited; 0 when none waits."""
    approvals: dict[str, int]
    """Approval requests by state, all workspaces; every state present (0 when none)."""


class DatabaseCollector(Collector):
    """Gauges read from the database when scraped (blocking: see the module docstring)."""

    def __init__(self, read: Callable[[], DatabaseFigures]) -> None:
        self._read = read

    def describe(self) -> Iterable[GaugeMetricFamily]:
        return self._families(None)

    def collect(self) -> Iterator[GaugeMetricFamily]:
        yield from self._families(self._read())

    @staticmethod
    def _families(figures: DatabaseFigures | None) -> Iterator[GaugeMetricFamily]:
        depth = GaugeMetricFamily(
            "callops_callback_queue_depth",
            "Call-feed posts waiting in the callback queue (all workspaces, now).",
        )
        age = GaugeMetricFamily(
            "callops_callback_queue_oldest_age_seconds",
            "Seconds the oldest waiting call-feed post has waited (0 when none waits).",
        )
        approvals = GaugeMetricFamily(
            "callops_approvals",
            "Approval requests by state (all workspaces, now).",
            labels=["state"],
        )
        if figures is not None:
            depth.add_metric([], figures.queue_depth)
            age.add_metric([], figures.queue_oldest_age)
            for state, count in sorted(figures.approvals.items()):
                approvals.add_metric([state], count)
        yield depth
        yield age
        yield approvals


class Metrics:
    """The process's metrics; each instrument is an attribute, named ``callops_*``."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.commands = Counter(
            "callops_commands",
            "Slash commands run, by catalog command name and outcome.",
            ["command", "outcome"],
            registry=r,
        )
        self.interactions = Counter(
            "callops_interactions",
            "Clicks, form submissions, shortcuts, workflow steps and events handled, by "
            "kind, declared id and outcome.",
            ["kind", "name", "outcome"],
            registry=r,
        )
        self.ack_seconds = Histogram(
            "callops_ack_seconds",
            "Seconds from a request reaching /slack/events to its answer, by kind.",
            ["kind"],
            buckets=ACK_BUCKETS,
            registry=r,
        )
        self.callcenter_requests = Counter(
            "callops_callcenter_requests",
            "HTTP requests to the call-center service (each attempt), by method, endpoint "
            "template and outcome (HTTP status class, or error).",
            ["method", "endpoint", "outcome"],
            registry=r,
        )
        self.callcenter_seconds = Histogram(
            "callops_callcenter_request_seconds",
            "Seconds per HTTP request to the call-center service, by method and endpoint.",
            ["method", "endpoint"],
            buckets=REQUEST_BUCKETS,
            registry=r,
        )
        self.slack_calls = Counter(
            "callops_slack_api_calls",
            "Slack Web API requests (each attempt), by method and outcome (ok, error, "
            "ratelimited, failed: no answer).",
            ["method", "outcome"],
            registry=r,
        )
        self.slack_ratelimited = Counter(
            "callops_slack_api_ratelimited",
            "Slack Web API answers of HTTP 429 (rate limited), by method.",
            ["method"],
            registry=r,
        )
        self.digests = Counter(
            "callops_digests",
            "Digests put in their channel or not, by trigger (scheduled, manual) and "
            "outcome (posted, failed).",
            ["trigger", "outcome"],
            registry=r,
        )

    def watch_database(self, read: Callable[[], DatabaseFigures]) -> None:
        """Serve the database's gauges, read by ``read`` at each scrape."""
        self.registry.register(DatabaseCollector(read))

    def render(self) -> bytes:
        """The exposition text of every metric. Blocking when the database is watched:
        call it off the event loop."""
        return generate_latest(self.registry)

    def count_callcenter(self, method: str, path: str, outcome: str, seconds: float) -> None:
        endpoint = route_template(path)
        self.callcenter_requests.labels(method, endpoint, outcome).inc()
        self.callcenter_seconds.labels(method, endpoint).observe(seconds)


class Stopwatch:
    """Seconds since it was made, on the monotonic clock."""

    def __init__(self) -> None:
        self._start = time.perf_counter()

    def seconds(self) -> float:
        return time.perf_counter() - self._start


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


log = logging.getLogger(__name__)

UNKNOWN = "unknown"

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def command_name(text: str, registry: Registry) -> str:
    """The catalog name of a typed command (``help`` when empty, ``unknown`` when no
    command matches or the text does not parse)."""
    if not text.strip():
        return "help"
    if len(text) > MAX_COMMAND_CHARS:
        found = registry.catalog.match(text.split()[:3])
    else:
        try:
            found = registry.catalog.match(tokenize(text))
        except UsageError:
            return UNKNOWN
    return found[0].name if found else UNKNOWN


def click_name(action_id: str, registry: Registry) -> str:
    route = registry.interactions.click(action_id)
    return route.action_id if route else UNKNOWN


def submission_name(callback_id: str, registry: Registry) -> str:
    return callback_id if registry.interactions.submission(callback_id) else UNKNOWN


def shortcut_name(callback_id: str, registry: Registry) -> str:
    return callback_id if registry.interactions.shortcut(callback_id) else UNKNOWN


def step_name(callback_id: str, registry: Registry) -> str:
    return callback_id if registry.interactions.step(callback_id) else UNKNOWN


def work_name(body: Mapping[str, Any], registry: Registry) -> str | None:
    """What a Slack request (as Bolt parsed it) asks for, for the log lines' ``command``."""
    if "command" in body:
        return command_name(str(body.get("text") or ""), registry)
    kind = body.get("type")
    if kind == "block_actions":
        actions = body.get("actions") or [{}]
        return click_name(str(actions[0].get("action_id") or ""), registry)
    if kind in ("view_submission", "view_closed"):
        view = body.get("view") or {}
        return submission_name(str(view.get("callback_id") or ""), registry)
    if kind in ("shortcut", "message_action"):
        return shortcut_name(str(body.get("callback_id") or ""), registry)
    if kind == "event_callback":
        event = body.get("event") or {}
        if event.get("type") == "function_executed":
            function = event.get("function") or {}
            return step_name(str(function.get("callback_id") or ""), registry)
        return _event_name(str(event.get("type") or ""))
    return None


_EVENT_TYPE = re.compile(r"^[a-z_]{1,40}$")


def _event_name(kind: str) -> str:
    return kind if _EVENT_TYPE.match(kind) else UNKNOWN


def outcome_label(outcome: Outcome) -> str:
    """``ok``; a reply's kind (``error``: bad input or a refusal, ``service_error``: the
    call-center service failed, ``failed``: a bug, logged with its ref); ``invalid`` for
    a form's field errors; ``error`` for a failed workflow step."""
    if isinstance(outcome, Also):
        return outcome_label(outcome.answer)
    if isinstance(outcome, Reply):
        return outcome.kind
    if isinstance(outcome, FieldErrors):
        return "invalid"
    if isinstance(outcome, StepFailed):
        return "error"
    return "ok"


@dataclass
class Tally:
    outcome: str = "ok"

    def record(self, outcome: Outcome) -> None:
        self.outcome = outcome_label(outcome)


@contextlib.contextmanager
def counted(metrics: Metrics, kind: str, name: str) -> Iterator[Tally]:
    """Count one interaction of ``kind`` (click, submission, shortcut, step, event) by
    ``name``: the outcome the block records, or ``failed`` if it raised."""
    tally = Tally()
    try:
        yield tally
    except Exception:
        metrics.interactions.labels(kind, name, "failed").inc()
        raise
    metrics.interactions.labels(kind, name, tally.outcome).inc()
    log.info("%s %s: %s", kind, name, tally.outcome)


# --- the HTTP side ----------------------------------------------------------------------


def ack_kind(body: bytes) -> str:
    """What a request to ``/slack/events`` was, from its (already read) body.  Plain
    substring tests: a regular expression with ``(?:^|&)`` would be tried at every offset
    of a form, on every request."""
    if body.startswith(b"{"):
        return "event" if b"event_callback" in body else "other"
    if _has_field(body, b"payload="):
        return "interaction"
    if _has_field(body, b"command="):
        return "command"
    return "other"


def _has_field(form: bytes, start: bytes) -> bool:
    """Whether a URL-encoded form has a field beginning with ``start`` (its name and the
    ``=``; a value never holds a raw ``&`` or ``=``)."""
    return form.startswith(start) or b"&" + start in form


def request_middleware(metrics: Metrics, events_path: str) -> Any:
    """The outermost middleware: a correlation id per request (reset afterwards: aiohttp
    serves a keep-alive connection's requests in one task), and the ack timer.  An answer
    refused by the request guard (4xx, 5xx) is no ack and is not timed."""

    @web.middleware
    async def observe(request: web.Request, handler: Handler) -> web.StreamResponse:
        tokens = (
            logs.correlation_id.set(logs.new_correlation_id()),
            logs.team_id.set(None),
            logs.command.set(None),
        )
        try:
            if request.path != events_path or request.method != "POST":
                return await handler(request)
            watch = Stopwatch()
            response = await handler(request)
            if response.status < 400:
                kind = ack_kind(await request.read())
                seconds = watch.seconds()
                metrics.ack_seconds.labels(kind).observe(seconds)
                log.debug("%s answered %d in %.3fs", kind, response.status, seconds)
            return response
        finally:
            logs.command.reset(tokens[2])
            logs.team_id.reset(tokens[1])
            logs.correlation_id.reset(tokens[0])

    return observe
