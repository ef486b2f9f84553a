"""Replay claims the database was too busy to take, held in the process: a replay of one
is refused while it is held, a claim the work path made lets it go, one the work path
gave up on waits to be written, and Slack's 5 minutes later it is forgotten."""

from __future__ import annotations

from bot.request_guard import KEEP_SECONDS, HeldClaims


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_held_signature_refuses_its_replays_until_the_database_has_it() -> None:
    clock = Clock()
    held = HeldClaims(clock=clock)
    assert held.hold("v0=a")
    assert not held.hold("v0=a") and held.holds("v0=a")  # an exact replay
    assert held.to_write() == [] and held.pending("v0=a")  # its work path claims it itself
    held.gave_up("v0=a")
    assert held.to_write() == ["v0=a"] and held.holds("v0=a") and not held.pending("v0=a")
    held.written(["v0=a"])
    assert not held.holds("v0=a") and held.to_write() == []


def test_a_claim_made_by_the_work_path_lets_it_go_and_old_ones_are_forgotten() -> None:
    clock = Clock()
    held = HeldClaims(clock=clock)
    held.hold("v0=b")
    held.claimed("v0=b")
    assert not held.holds("v0=b")
    held.hold("v0=c")
    held.gave_up("v0=c")
    clock.now += KEEP_SECONDS + 1  # Slack's window is over: a replay is stale anyway
    assert not held.holds("v0=c") and held.to_write() == []
