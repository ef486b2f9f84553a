"""Slack's per-channel pace, kept before a 429 is ever needed."""

from __future__ import annotations

from bot.posting import ChannelPace


class Ticking:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 3))
        self.now += seconds


async def test_a_burst_goes_at_once_then_one_post_a_second() -> None:
    clock = Ticking()
    pace = ChannelPace(1.0)
    pace.use_clock(clock, clock.sleep)
    for _ in range(5):
        await pace.take(("T1", "C1"), burst=3)
    assert clock.slept == [1.0, 1.0]


async def test_other_channels_do_not_wait_and_a_quiet_channel_refills() -> None:
    clock = Ticking()
    pace = ChannelPace(1.0)
    pace.use_clock(clock, clock.sleep)
    await pace.take(("T1", "C1"))
    await pace.take(("T1", "C2"))
    await pace.take(("T1", "C1"))
    assert clock.slept == [1.0]
    clock.now += 5
    await pace.take(("T1", "C1"))
    await pace.take(("T1", "C2"))
    assert clock.slept == [1.0]


async def test_a_429_holds_the_channel_for_its_retry_after() -> None:
    clock = Ticking()
    pace = ChannelPace(1.0)
    pace.use_clock(clock, clock.sleep)
    await pace.take(("T1", "C1"))
    pace.hold(("T1", "C1"), 30.0)
    assert pace.free_at(("T1", "C1")) == 130.0
    await pace.take(("T1", "C1"), burst=3)
    assert clock.slept == [30.0]
