"""Every Prometheus metric of callops, defined once, on a registry of the process's own.

``Metrics`` is made by the runtime (one per process; a test that runs two apps in one
Python process gets two, which do not see each other's counts) and served at ``/metrics``
by ``bot.metrics_http``.  Labels are bounded by construction: command names come from the
catalog, interaction names are the ids the families declare, call-center endpoints are
route templates (``/v3/campaign/{id}``, never a path with an id), Slack methods are Web
API method names.  Nothing here knows a team, a person or a value someone typed.

What the database knows (the callback queue, approvals by state) is read at scrape time by
``DatabaseCollector``, so every replica reports the same shared figures; rendering the
page therefore blocks on the database and runs off the event loop.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

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
