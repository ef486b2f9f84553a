"""The one notion of time in storage: an injectable callable, so tests steer expiry
instead of sleeping."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], float]
"""Returns the current time as Unix seconds."""

system_clock: Clock = time.time


def iso_utc(ts: float | None) -> str | None:
    """Unix seconds as ISO 8601 UTC text, the form people read in exports."""
    if ts is None:
        return None
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="seconds")
