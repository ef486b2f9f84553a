"""The process's log lines: text (the default) or JSON lines (``CALLOPS_LOG_FORMAT=json``),
each knowing which request it belongs to, and neither ever showing a secret.

Which request: three context variables, set where work starts (``begin``: per HTTP
request by ``bot.metrics``'s middleware, per Slack request by the listeners' context
middleware, per scheduler tick and digest slot, per call-feed post) and read by
``ContextFilter`` into every record.  asyncio copies them into the tasks a request
spawns (the command run after its ack) and ``storage.off_loop`` into the database
threads, so the ack's line and the background work's lines carry the same
``correlation_id``.

Never a secret: ``RedactingFilter`` sits on the handler, so it sees every record of every
logger (slack_sdk, Bolt, aiohttp, SQLAlchemy included) and rewrites the message and the
traceback before any formatter runs: Slack tokens (``xox…``, ``xapp-…``), Fernet keys
and tokens, bearer tokens, ``api_key`` values, passwords in URLs
(``postgresql://user:…@host``), and the literal values of the secrets this process was
given (``remember_secret``).
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import secrets
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Literal, TextIO

LogFormat = Literal["text", "json"]

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"
REDACTED = "[redacted]"

correlation_id: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "callops_correlation_id", default=None
)
team_id: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "callops_team_id", default=None
)
command: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "callops_command", default=None
)
"""A catalog command name or a declared interaction id: a name, never what was typed."""


def new_correlation_id() -> str:
    return secrets.token_hex(8)


def begin(*, team: str | None = None, name: str | None = None, keep_id: bool = False) -> str:
    """Start a unit of work in this context (a request, a job): a new correlation id
    (unless ``keep_id`` and one is set), and its team and command name when known.
    Returns the correlation id."""
    current = correlation_id.get()
    if current is None or not keep_id:
        current = new_correlation_id()
        correlation_id.set(current)
    if team is not None:
        team_id.set(team)
    if name is not None:
        command.set(name)
    return current


def describe(team: str | None = None, name: str | None = None) -> None:
    """Name the team and the command of the work under way (same correlation id)."""
    if team is not None:
        team_id.set(team)
    if name is not None:
        command.set(name)


# --- never a secret -------------------------------------------------------------------

_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    # Slack: bot/user/app/config/refresh tokens (xoxb-…, xoxe.xoxp-…, xoxe-1-…, xapp-…).
    (re.compile(r"\bx(?:ox[a-z]?[.-]|app-)[A-Za-z0-9.\-]+"), REDACTED),
    # Passwords in URLs: scheme://user:password@host.
    (re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^:/@\s]*:)[^@\s/]+@"), r"\1" + REDACTED + "@"),
    # Bearer tokens (call-center tokens in a header someone logged).
    (re.compile(r"(\bBearer\s+)[A-Za-z0-9._~+/=\-]+", re.IGNORECASE), r"\1" + REDACTED),
    # api_key / client_secret / password / token fields, as JSON, a query string or repr.
    (
        re.compile(
            r"""((?:api_key|apikey|client_secret|password|signing_secret|secret_key|"""
            r"""refresh_token|access_token|bot_token)["']?\s*[:=]\s*["']?)[^"'\s,}&)]+""",
            re.IGNORECASE,
        ),
        r"\1" + REDACTED,
    ),
    # Fernet tokens (ciphertext of a secret) and Fernet keys (32 bytes, url-safe base64).
    (re.compile(r"\bgAAAAA[A-Za-z0-9_\-=]{20,}"), REDACTED),
    (re.compile(r"(?<![A-Za-z0-9_\-])[A-Za-z0-9_\-]{43}="), REDACTED),
)

# --- never a customer's number ---------------------------------------------------------

_CUSTOMER_NUMBERS: tuple[re.Pattern[str], ...] = (
    # A Vietnamese mobile number however it is written: 0912345678, 84912345678,
    # +84 912 345 678, 0912.345.678 (personal data under Law 91/2025/QH15).
    re.compile(r"(?<![\d])((?:\+?84[ .\-]?|0)[35789]\d{2})[ .\-]?\d{3}[ .\-]?(\d{3})(?!\d)"),
)


def mask_customer_numbers(text: str) -> str:
    """``text`` with every customer's mobile number masked (``0912***678``): what a log
    line may say of one (the company's hotlines are landlines and stay whole)."""
    for pattern in _CUSTOMER_NUMBERS:
        text = pattern.sub(r"\1***\2", text)
    return text


_known: set[str] = set()
MIN_SECRET_CHARS = 6
"""Shorter values are not replaced literally (they would blank ordinary words)."""


def remember_secret(value: str | None) -> None:
    """Replace this exact value in every later log line (a workspace's API key, the
    signing secret: values no pattern recognises).  Process-wide, like logging itself."""
    if value and len(value) >= MIN_SECRET_CHARS:
        _known.add(value)


def redact(text: str) -> str:
    for value in _known:
        if value in text:
            text = text.replace(value, REDACTED)
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return mask_customer_numbers(text)


_PAYLOAD_LOGGERS = ("slack_sdk", "slack_bolt", "slack.")
_PAYLOAD_STARTS = (", params:", ", headers:", ", body:", " body:", " payload:")


def _without_payload(record: logging.LogRecord, message: str) -> str:
    """Slack's libraries write whole requests and answers at DEBUG (a card's text, a
    customer's name in it): such a line keeps what it is about and leaves the payload
    out.  Nothing of ours logs a payload."""
    if record.levelno > logging.DEBUG or not record.name.startswith(_PAYLOAD_LOGGERS):
        return message
    cut = min((i for i in (message.find(s) for s in _PAYLOAD_STARTS) if i >= 0), default=-1)
    if cut < 0 and "{" in message:
        cut = message.index("{")
    return message if cut < 0 else message[:cut] + " [payload left out]"


class RedactingFilter(logging.Filter):
    """Rewrites each record's message and traceback with ``redact`` (never drops one)."""

    _formatter = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "_callops_redacted", False):
            return True
        try:
            message = record.getMessage()
        except Exception:  # a record whose args do not fit its format: keep its text
            message = str(record.msg)
        record.msg = redact(_without_payload(record, message))
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = self._formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text)
        if record.stack_info:
            record.stack_info = redact(record.stack_info)
        record._callops_redacted = True
        return True


class ContextFilter(logging.Filter):
    """Puts the work's correlation id, team and command on each record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.correlation_id = correlation_id.get()
        record.team = team_id.get()
        record.command = command.get()
        return True


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time (UTC, ISO 8601), level, logger, message, team,
    command, correlation_id, and exception (the traceback's text) when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "team": getattr(record, "team", None),
            "command": getattr(record, "command", None),
            "correlation_id": getattr(record, "correlation_id", None),
        }
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = record.stack_info
        return json.dumps(entry, ensure_ascii=False, default=str)


def handler(stream: TextIO, fmt: LogFormat) -> logging.Handler:
    """A handler writing ``fmt`` lines to ``stream``, redacting and with the context."""
    out = logging.StreamHandler(stream)
    out.setFormatter(JsonFormatter() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    out.addFilter(RedactingFilter())
    out.addFilter(ContextFilter())
    return out


def configure(
    fmt: LogFormat, secrets_: Iterable[str | None] = (), *, stream: TextIO | None = None
) -> logging.Handler | None:
    """The process's logging: one handler on the root logger at INFO, the given secret
    values remembered.  Like ``logging.basicConfig``, it leaves a root logger that already
    has handlers alone (a host that set up logging itself, or pytest's capture) and then
    returns None; else the handler."""
    for value in secrets_:
        remember_secret(value)
    root = logging.getLogger()
    if root.handlers:
        return None
    out = handler(stream or sys.stderr, fmt)
    root.addHandler(out)
    root.setLevel(logging.INFO)
    # httpx logs every request it sends at INFO; for the call-center client that is a
    # line per command (formatted, redacted, written) repeating what /metrics counts by
    # endpoint and outcome.
    # Its warnings and errors still come through.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    # slack_sdk's clients decide whether to build their debug lines (the whole body of each
    # request and answer) from their logger's own level, not the effective one: left unset
    # (0, "below DEBUG") they build them on every call, for logging to drop.  Given the
    # level they inherit anyway, they log exactly what they did, without that work.
    for name in SLACK_SDK_CLIENT_LOGGERS:
        logging.getLogger(name).setLevel(root.level)
    return out


SLACK_SDK_CLIENT_LOGGERS = ("slack_sdk.webhook.async_client", "slack_sdk.web.async_base_client")
"""The loggers of the Web API and ``response_url`` clients callops uses."""
