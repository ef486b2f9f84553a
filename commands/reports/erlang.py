"""Erlang C: how many agents an inbound queue needs for its service-level target.

The textbook model (Erlang, 1917; any call-center staffing text): calls arrive at
random (Poisson) at ``calls`` per hour, each is handled in ``aht`` seconds on average
(exponentially distributed), callers wait in an unlimited queue and nobody hangs up.
With ``A = calls × aht / 3600`` erlangs of traffic and ``N`` agents (``N > A``):

* the probability that a call waits, ``C(N, A)``, is Erlang B's
  ``B(N, A)`` (computed by its stable recursion ``B(k) = A·B(k−1) / (k + A·B(k−1))``)
  turned into ``C = N·B / (N − A·(1 − B))``;
* the service level, the share of calls answered within ``t`` seconds, is
  ``1 − C(N, A) · exp(−(N − A) · t / aht)``;
* the average speed of answer is ``C(N, A) · aht / (N − A)``.

It ignores abandonment (callers who hang up make the queue shorter, so it asks for a
little more than needed) and shrinkage (breaks, training): the figure is agents *on
the phones*, and the reply says so.
"""

from __future__ import annotations

import math

MAX_AGENTS = 2000
"""More agents than any call center asks for in one hour: the search stops there."""


def traffic(calls_per_hour: float, aht_seconds: float) -> float:
    """Offered traffic in erlangs: the agents busy on average."""
    return max(0.0, calls_per_hour) * max(0.0, aht_seconds) / 3600.0


def erlang_c(agents: int, erlangs: float) -> float:
    """The probability that a call waits; 1 when the agents cannot keep up (N ≤ A)."""
    if erlangs <= 0:
        return 0.0
    if agents <= erlangs:
        return 1.0
    blocked = 1.0
    for k in range(1, agents + 1):
        blocked = erlangs * blocked / (k + erlangs * blocked)
    return agents * blocked / (agents - erlangs * (1 - blocked))


def service_level(agents: int, erlangs: float, aht_seconds: float, seconds: float) -> float:
    """The share (0–1) of calls answered within ``seconds``."""
    if erlangs <= 0:
        return 1.0
    if agents <= erlangs or aht_seconds <= 0:
        return 0.0
    waits = erlang_c(agents, erlangs)
    return 1.0 - waits * math.exp(-(agents - erlangs) * seconds / aht_seconds)


def average_speed_of_answer(agents: int, erlangs: float, aht_seconds: float) -> float:
    """Seconds a caller waits on average (infinite when the agents cannot keep up)."""
    if erlangs <= 0:
        return 0.0
    if agents <= erlangs:
        return math.inf
    return erlang_c(agents, erlangs) * aht_seconds / (agents - erlangs)


def agents_needed(
    calls_per_hour: float, aht_seconds: float, *, target: float = 0.8, seconds: float = 20
) -> int:
    """The fewest agents answering ``target`` (0–1) of the calls within ``seconds``;
    0 without calls."""
    erlangs = traffic(calls_per_hour, aht_seconds)
    if erlangs <= 0:
        return 0
    agents = max(1, math.floor(erlangs) + 1)
    while agents < MAX_AGENTS and service_level(agents, erlangs, aht_seconds, seconds) < target:
        agents += 1
    return agents
