"""Fault injection: added latency, random 500s, and scripted one-shot failures.

A scripted failure either replaces the request (the service never saw it), or lets
the request take effect and then answers with the failure (``after``), closes the
connection without answering (``drop``) or holds its real answer back (``hold_ms``):
the cases where a client must not blindly repeat a write.  The random-failure generator
is seeded, so a run is repeatable.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any


@dataclass
class ScriptedFault:
    status: int = 500
    method: str = "*"
    path: str = "*"
    body: Any = None
    times: int = 1
    delay_ms: int = 0
    retry_after: float | None = None
    after: bool = False
    drop: bool = False
    hold_ms: int = 0
    """Let the request take effect, then keep its real answer this long (a slow network,
    or the moment in which a client that dies cannot know what happened)."""

    @property
    def replaces(self) -> bool:
        """Answered instead of the request (the service never saw it)."""
        return not (self.after or self.drop or self.hold_ms)

    def matches(self, method: str, path: str) -> bool:
        return (self.method == "*" or self.method.upper() == method) and fnmatchcase(
            path, self.path
        )

    def response_body(self) -> Any:
        if self.body is not None:
            return self.body
        return {"error": "too many requests" if self.status == 429 else "injected failure"}


class Faults:
    def __init__(self, latency_ms: int, error_rate: float, seed: int) -> None:
        self._defaults = (latency_ms, error_rate, seed)
        self.latency_ms = latency_ms
        self.error_rate = error_rate
        self.rules: list[ScriptedFault] = []
        self._rng = random.Random(seed)

    def reset(self) -> None:
        latency_ms, error_rate, seed = self._defaults
        self.latency_ms = latency_ms
        self.error_rate = error_rate
        self.rules = []
        self._rng = random.Random(seed)

    def take(self, method: str, path: str) -> ScriptedFault | None:
        """The first scripted failure for this request, used up once per match."""
        for rule in self.rules:
            if rule.matches(method, path):
                rule.times -= 1
                if rule.times <= 0:
                    self.rules.remove(rule)
                return rule
        return None

    def roll(self) -> bool:
        return self.error_rate > 0 and self._rng.random() < self.error_rate

    def describe(self) -> dict[str, Any]:
        return {
            "latency_ms": self.latency_ms,
            "error_rate": self.error_rate,
            "next": [vars(rule).copy() for rule in self.rules],
        }
