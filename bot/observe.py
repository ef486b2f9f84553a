"""What the listeners and the server count and tell the logs about each request.

- ``work_name``: the name of what a Slack request asks for, bounded: a catalog command
  name, or the id a family declared for the button, form, shortcut or step (a numbered
  or suffixed action id counts as its family's id), or the event's type; never the text
  someone typed.
- ``counted``: around the dispatcher's result in a listener, one count by name and
  outcome (``failed`` when the listener raised).
- ``request_middleware``: every HTTP request gets a correlation id for its log lines;
  each answer on ``/slack/events`` is timed into ``callops_ack_seconds`` by kind.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from bot import logs
from bot.metrics import Metrics, Stopwatch
from commands.dispatch import MAX_COMMAND_CHARS
from commands.kernel.grammar import UsageError, tokenize
from commands.kernel.reply import Also, FieldErrors, Outcome, Reply, StepFailed
from commands.registry import Registry

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
