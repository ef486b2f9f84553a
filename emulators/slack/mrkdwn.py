"""What Slack would make of a ``<`` in mrkdwn: its own control sequences, or a stray one.

Slack reads ``<...>`` in mrkdwn as a control sequence: a mention (``<@U123>``,
``<#C123|name>``), a special (``<!here>``, ``<!subteam^S1>``, ``<!date^...|fallback>``) or
a link (``<https://...|label>``, ``<mailto:...>``).  Anything else between angle brackets
(``<command>`` in a help text, ``<script>`` in a lead's name) is swallowed or mangled, so
an app must write ``&lt;`` for a ``<`` it means as text.  Slack accepts such a message
(it is no Block Kit error), which is why these findings are kept apart from ``problems``:
``JournalEntry.markup`` lists them, and ``AUDIT`` tallies them for the whole process so a
test suite can check every message, ephemeral, reply, modal and App Home view it caused.

Scanned: the ``text`` of every ``mrkdwn`` text object anywhere in blocks and views, the
top-level ``text`` of a message (chat methods unless ``mrkdwn`` is false, ``response_url``
bodies and acknowledgement bodies, which Slack posts as messages) and a file's
``initial_comment``.  ``plain_text`` objects are shown as written and are not scanned.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

CONTROL = re.compile(
    r"<(?:"
    r"[@#][A-Z0-9]+"  # a user, or a channel
    r"|!(?:here|channel|everyone)"
    r"|!subteam\^[A-Z0-9]+"
    r"|!date\^[^|<>]+"
    r"|(?:https?://|mailto:)[^\s|<>]+"
    r")(?:\|[^<>]*)?>"
)
"""One of Slack's own control sequences, with an optional ``|label``."""

MESSAGE_METHODS = frozenset(
    {"chat.postMessage", "chat.postEphemeral", "chat.update", "chat.scheduleMessage"}
)
SNIPPET = 40


def stray_controls(text: str) -> list[str]:
    """Each ``<`` that starts none of Slack's control sequences, shown in its context."""
    found: list[str] = []
    for at in (m.start() for m in re.finditer("<", text)):
        if CONTROL.match(text, at):
            continue
        start = max(0, at - SNIPPET // 2)
        found.append(text[start : at + SNIPPET].replace("\n", "⏎"))
    return found


def _decoded(value: Any) -> Any:
    """Form-encoded calls carry blocks and views as JSON text."""
    if isinstance(value, str) and value[:1] in "[{":
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _mrkdwn_objects(value: Any, pointer: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        if value.get("type") == "mrkdwn" and isinstance(value.get("text"), str):
            yield pointer + "/text", value["text"]
        for key, inner in value.items():
            yield from _mrkdwn_objects(inner, f"{pointer}/{key}")
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _mrkdwn_objects(inner, f"{pointer}/{index}")


def _message(body: Any, pointer: str) -> Iterator[tuple[str, str]]:
    """A message body: its top-level text (unless ``mrkdwn`` is off) and its blocks."""
    if not isinstance(body, dict):
        return
    text = body.get("text")
    if isinstance(text, str) and body.get("mrkdwn") not in (False, "false", "0"):
        yield pointer + "/text", text
    for key in ("blocks", "attachments", "view"):
        if key in body:
            yield from _mrkdwn_objects(_decoded(body[key]), f"{pointer}/{key}")


def mrkdwn_texts(kind: str, method: str, params: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """Every mrkdwn text one journalled request carries, with a JSON pointer to it."""
    if kind == "api":
        if method in MESSAGE_METHODS:
            yield from _message(params, "")
        elif method.startswith("views."):
            yield from _mrkdwn_objects(_decoded(params.get("view")), "/view")
        elif method.startswith("files.") and isinstance(params.get("initial_comment"), str):
            yield "/initial_comment", params["initial_comment"]
    elif kind == "response_url":
        yield from _message(params, "")
    elif kind == "ack":
        yield from _message(_decoded(params.get("body")), "")


def check_markup(kind: str, method: str, params: dict[str, Any]) -> tuple[int, list[str]]:
    """How many mrkdwn texts a request carries, and each stray ``<`` among them."""
    scanned = 0
    findings: list[str] = []
    for pointer, text in mrkdwn_texts(kind, method, params):
        scanned += 1
        findings.extend(
            f"'<' starts no Slack control sequence in …{snippet}… [json-pointer:{pointer}]"
            for snippet in stray_controls(text)
        )
    return scanned, findings


@dataclass
class MarkupAudit:
    """Every stray ``<`` any stand-in in this process was sent, and how much was looked at.

    Tests take a ``mark()`` before and read ``since(mark)`` after; ``scanned`` shows the
    scan saw something at all.  Findings are kept in full (a demo that runs for days sends
    none, or the app has a bug to fix)."""

    scanned: int = 0
    findings: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, where: str, scanned: int, findings: list[str]) -> None:
        with self._lock:
            self.scanned += scanned
            self.findings.extend(f"{where}: {finding}" for finding in findings)

    def mark(self) -> int:
        with self._lock:
            return len(self.findings)

    def since(self, mark: int) -> list[str]:
        with self._lock:
            return self.findings[mark:]


AUDIT = MarkupAudit()
"""The process's audit: the Slack stand-in is in-process wherever it runs."""
