"""The request journal: every API request the emulator answered, and every callback it
sent, in order, secrets redacted.

Tests read it to prove what reached the service (an approved action exactly once, a
denied one never, a write not retried); the control surface itself is not journaled so
it never pollutes those counts.
"""

from __future__ import annotations

from collections import deque
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl

SECRET_KEYS = frozenset({"api_key", "password", "confirm_password", "token", "refresh_token"})
REDACTED = "***"


def redact(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: REDACTED if k in SECRET_KEYS else redact(v) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(v) for v in value]
    return value


def parse_query(query_string: bytes) -> dict[str, str | list[str]]:
    """Query parameters; a repeated one (``campaign_uuid=a&campaign_uuid=b``) as a list."""
    out: dict[str, str | list[str]] = {}
    for key, value in parse_qsl(query_string.decode("latin-1"), keep_blank_values=True):
        if key in out:
            current = out[key]
            out[key] = [*current, value] if isinstance(current, list) else [current, value]
        else:
            out[key] = value
    return out


class Journal:
    def __init__(self, maxlen: int = 50_000) -> None:
        self._entries: deque[dict[str, Any]] = deque(maxlen=maxlen)
        self._seq = 0

    def record(self, entry: dict[str, Any], at: float) -> None:
        """Append ``entry`` stamped with the emulator-clock time ``at``."""
        self._seq += 1
        entry["seq"] = self._seq
        entry["epoch"] = at
        entry["time"] = datetime.fromtimestamp(at, UTC).isoformat(timespec="milliseconds")
        self._entries.append(entry)

    def entries(
        self, method: str | None = None, path: str | None = None, kind: str | None = None
    ) -> list[dict[str, Any]]:
        wanted_method = method.upper() if method else None
        return [
            e
            for e in self._entries
            if (wanted_method is None or e["method"] == wanted_method)
            and (path is None or e["path"] == path)
            and (kind is None or e["kind"] == kind)
        ]

    def clear(self) -> None:
        self._entries.clear()
