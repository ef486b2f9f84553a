"""Slack's HTTP 429, on demand.

Two sources: injected failures (``inject("chat.postMessage", times=3, retry_after=1)``: the
next three calls answer 429) and, when switched on, Slack's per-channel posting pace (about
one message per second per channel, short bursts tolerated), checked with a token bucket on
the stand-in's clock.  With ``updates`` the edits of messages (``chat.update``) draw on the
same bucket: an app that folds many posts into edits of one message must keep to the
channel's pace with both together.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from emulators.slack.clock import Clock


@dataclass
class _Bucket:
    tokens: float
    updated: float


class RateLimits:
    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._injected: dict[str, list[int]] = {}
        self.pace_enabled = False
        self.per_second = 1.0
        self.burst = 3
        self.paces_updates = False
        self._buckets: dict[str, _Bucket] = {}

    def inject(self, method: str, *, times: int = 1, retry_after: int = 1) -> None:
        with self._lock:
            self._injected.setdefault(method, []).extend([retry_after] * times)

    def take_injected(self, method: str) -> int | None:
        """Retry-After seconds if this call must be refused, else None."""
        with self._lock:
            queue = self._injected.get(method)
            if queue:
                return queue.pop(0)
        return None

    def set_pace(
        self, enabled: bool, *, per_second: float = 1.0, burst: int = 3, updates: bool = False
    ) -> None:
        with self._lock:
            self.pace_enabled = enabled
            self.paces_updates = enabled and updates
            self.per_second = per_second
            self.burst = burst
            self._buckets.clear()

    def take_channel_slot(self, channel_id: str) -> int | None:
        """Retry-After seconds when posting to ``channel_id`` now would exceed the pace."""
        with self._lock:
            if not self.pace_enabled:
                return None
            now = self._clock.now()
            bucket = self._buckets.setdefault(channel_id, _Bucket(float(self.burst), now))
            bucket.tokens = min(
                float(self.burst), bucket.tokens + (now - bucket.updated) * self.per_second
            )
            bucket.updated = now
            if bucket.tokens >= 1.0:
                bucket.tokens -= 1.0
                return None
            missing = 1.0 - bucket.tokens
            return max(1, int(missing / self.per_second + 0.999))

    def clear(self) -> None:
        with self._lock:
            self._injected.clear()
            self._buckets.clear()
            self.pace_enabled = False
            self.paces_updates = False
