"""Slack-looking identifiers, unique for the life of one stand-in.

Ids are readable and ordered (``C0000004``) so failing tests are easy to follow; trigger
ids and hashes carry randomness because the app must treat them as opaque.
"""

from __future__ import annotations

import secrets
import threading
from collections import defaultdict


class IdFactory:
    def __init__(self) -> None:
        self._counters: defaultdict[str, int] = defaultdict(int)
        self._last_ts_micros = 0
        self._lock = threading.Lock()

    def next(self, prefix: str) -> str:
        """``C0000001``, ``V0000002``...: prefix letter(s) then a zero-padded counter."""
        with self._lock:
            self._counters[prefix] += 1
            return f"{prefix}{self._counters[prefix]:07d}"

    def ts(self, now: float) -> str:
        """A message timestamp: ``seconds.micros``, strictly increasing like Slack's."""
        with self._lock:
            micros = max(int(now * 1_000_000), self._last_ts_micros + 1)
            self._last_ts_micros = micros
        return f"{micros // 1_000_000}.{micros % 1_000_000:06d}"

    def trigger_id(self, now: float) -> str:
        return f"{int(now)}.{secrets.randbelow(10**12)}.{secrets.token_hex(16)}"

    def view_hash(self, now: float) -> str:
        return f"{now:.6f}.{secrets.token_hex(4)}"

    def event_id(self) -> str:
        return "Ev" + secrets.token_hex(5).upper()

    def opaque(self, nbytes: int = 12) -> str:
        return secrets.token_urlsafe(nbytes)

    def short_block_id(self) -> str:
        """Slack fills a missing block_id/action_id with a short random string; so do we."""
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
        return "".join(secrets.choice(alphabet) for _ in range(5))
