"""Replay claims the door left to the background while the database was busy, held in
the process: a replay of one is refused while it is held, its work path finds it by
the request's signature, and Slack's 5 minutes later it is forgotten."""

from __future__ import annotations

import asyncio

from bot.request_guard import KEEP_SECONDS, HeldClaims


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def claimed(result: bool | None) -> bool | None:
    return result


async def test_a_held_claim_is_found_by_its_signature_until_slack_s_window_is_over() -> None:
    clock = Clock()
    held = HeldClaims(clock=clock)
    claiming = asyncio.ensure_future(claimed(True))
    held.hold("v0=a", claiming)
    assert held.holds("v0=a") and held.get("v0=a") is claiming
    assert not held.holds("v0=b") and held.get("v0=b") is None
    assert await claiming is True
    assert held.holds("v0=a")  # made: its replays are refused here still, and in the database
    clock.now += KEEP_SECONDS + 1  # Slack's window is over: a replay is stale anyway
    assert not held.holds("v0=a")
    held.hold("v0=c", asyncio.ensure_future(claimed(None)))
    assert held.get("v0=a") is None and held.holds("v0=c")
    await asyncio.sleep(0)
