"""Everything the app sent to the stand-in, in order, with secrets redacted.

Tests read it to assert what the app did ("posted once", "no invalid blocks sent");
``problems`` holds the Block Kit and limit failures found in that request, so one
assertion covers every message and view the app produced; ``markup`` holds each ``<`` in
its mrkdwn that starts none of Slack's control sequences (``mrkdwn.py``), which Slack
accepts but shows wrongly.
"""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass, field
from typing import Any

from emulators.slack.bus import EventBus
from emulators.slack.mrkdwn import AUDIT, check_markup

SECRET_KEYS = frozenset({"token", "client_secret", "code", "refresh_token", "app_token"})
REDACTED = "[redacted]"


def redact(value: Any) -> Any:
    """A deep copy of ``value`` with every secret-looking key and token string masked."""
    if isinstance(value, dict):
        return {
            k: (REDACTED if k in SECRET_KEYS or k.endswith("_token") else redact(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [redact(v) for v in value]
    if isinstance(value, str) and value.startswith(("xoxb-", "xoxp-", "xapp-", "xoxe")):
        return REDACTED
    return copy.deepcopy(value)


@dataclass(frozen=True)
class JournalEntry:
    seq: int
    at: float
    kind: str  # "api", "response_url", "upload", "download", "oauth"
    method: str  # e.g. "chat.postMessage", or the response_url id
    team_id: str | None
    params: dict[str, Any]
    status: int
    response: dict[str, Any]
    problems: list[str] = field(default_factory=list)
    markup: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.response.get("ok", 200 <= self.status < 300))

    @property
    def error(self) -> str | None:
        err = self.response.get("error")
        return str(err) if err is not None else None


class Journal:
    def __init__(self, bus: EventBus) -> None:
        self._entries: list[JournalEntry] = []
        self._lock = threading.Lock()
        self._bus = bus

    def record(
        self,
        *,
        at: float,
        kind: str,
        method: str,
        team_id: str | None,
        params: dict[str, Any],
        status: int,
        response: dict[str, Any],
        problems: list[str] | None = None,
    ) -> JournalEntry:
        scanned, markup = check_markup(kind, method, params)
        AUDIT.add(f"{kind} {method}", scanned, markup)
        with self._lock:
            entry = JournalEntry(
                seq=len(self._entries) + 1,
                at=at,
                kind=kind,
                method=method,
                team_id=team_id,
                params=redact(params),
                status=status,
                response=redact(response),
                problems=list(problems or []),
                markup=markup,
            )
            self._entries.append(entry)
        self._bus.publish("api.call", team_id, entry=entry)
        return entry

    def entries(self, method: str | None = None, kind: str | None = None) -> list[JournalEntry]:
        with self._lock:
            items = list(self._entries)
        return [
            e
            for e in items
            if (method is None or e.method == method) and (kind is None or e.kind == kind)
        ]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
