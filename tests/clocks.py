"""A clock the test moves by hand, for code that takes its clock as a callable (storage,
the service client): expiry, leases and backoff are tested without waiting."""

from __future__ import annotations

T0 = 1_700_000_000.0
"""Where a stepped clock starts unless told (November 2023)."""


class SteppedClock:
    """A wall clock (Unix seconds) that moves only when the test says."""

    def __init__(self, now: float = T0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
