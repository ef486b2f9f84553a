"""The stand-in's notion of "now": real time plus an offset a test can move.

Slack's short-lived things (trigger ids valid 3 s, response URLs valid 30 minutes) are
checked against this clock, so a test can expire them by advancing it instead of sleeping.
Request signatures are deliberately NOT taken from it: the app under test checks them
against the real wall clock, exactly as it would with Slack.
"""

from __future__ import annotations

import threading
import time


class Clock:
    def __init__(self) -> None:
        self._offset = 0.0
        self._lock = threading.Lock()

    def now(self) -> float:
        with self._lock:
            return time.time() + self._offset

    def advance(self, seconds: float) -> None:
        """Move the stand-in's time forward (or back with a negative value)."""
        with self._lock:
            self._offset += seconds

    def reset(self) -> None:
        with self._lock:
            self._offset = 0.0

    @property
    def offset(self) -> float:
        with self._lock:
            return self._offset
