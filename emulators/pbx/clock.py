"""The emulator's clock: real time plus an offset, or frozen.

Everything with a time in the emulator (token expiry, call progress, record times,
report windows) reads this clock, so a test can jump hours ahead in a millisecond
(``advance``) or stop time altogether (``freeze``) and still see a consistent world.
"""

from __future__ import annotations

import time


class EmulatorClock:
    def __init__(self) -> None:
        self._offset = 0.0
        self._frozen_at: float | None = None

    def now(self) -> float:
        if self._frozen_at is not None:
            return self._frozen_at
        return time.time() + self._offset

    @property
    def frozen(self) -> bool:
        return self._frozen_at is not None

    def advance(self, seconds: float) -> float:
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        if self._frozen_at is not None:
            self._frozen_at += seconds
        else:
            self._offset += seconds
        return self.now()

    def freeze(self, at: float | None = None) -> float:
        """Stop time at ``at`` (default: now); never earlier than the current time."""
        current = self.now()
        self._frozen_at = current if at is None else max(at, current)
        return self._frozen_at

    def unfreeze(self) -> float:
        """Let time run again from where it stood, so nothing jumps backwards."""
        if self._frozen_at is not None:
            self._offset = self._frozen_at - time.time()
            self._frozen_at = None
        return self.now()

    def reset(self) -> None:
        self._offset = 0.0
        self._frozen_at = None
