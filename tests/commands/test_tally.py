"""The streaming fold counts a record as ``Counts.of_record`` does, drops repeats a
few pages apart, and a shared count is counted once."""

from __future__ import annotations

import asyncio
import itertools
from zoneinfo import ZoneInfo

import pytest

from callcenter.models import Cdr
from commands.reports.shared import SharedCounts
from commands.reports.tally import CallTally, Counts, Repeats

STATUSES = ("answered", "BUSY_LINE", "busy", "no-answered", "drop", "phone-block", "weird", "")
DIRECTIONS = ("inbound", "outbound", "local")
APPS = ("autocall", "ivr", "manual", "")


def records() -> list[Cdr]:
    out = []
    for i, (status, direction, app) in enumerate(itertools.product(STATUSES, DIRECTIONS, APPS)):
        out.append(
            Cdr(
                id=f"r{i}",
                status=status,
                direction=direction,
                app=app,
                billsec=i % 7 * 10,
                duration=i % 5 * 20,
                campaign_uuid="c1" if i % 2 else "",
                time_started=f"2026-11-27 {i % 24:02d}:{i % 60:02d}:05",
            )
        )
    return out


def test_the_fold_counts_each_record_as_the_statistics_do() -> None:
    given = records()
    tally = CallTally(ZoneInfo("Asia/Ho_Chi_Minh"))
    tally.add_page(given)
    expected = sum((Counts.of_record(r) for r in given), Counts())
    assert tally.total.counts() == expected
    assert tally.records == len(given)
    assert sum(tally.hour_counts().values(), Counts()) == expected
    assert tally.campaign_counts()["c1"] == sum(
        (Counts.of_record(r) for r in given if r.campaign_uuid), Counts()
    )
    # Hours are the workspace's: 00:xx UTC is 07:00 in Vietnam.
    assert min(tally.hour_counts()).hour == 7


def test_a_record_shown_again_on_a_later_page_is_counted_once() -> None:
    given = records()
    tally = CallTally(ZoneInfo("UTC"))
    repeats = Repeats(keep=20)
    tally.add_page(repeats.fresh(given[:50]))
    tally.add_page(repeats.fresh(given[45:]))
    assert tally.records == len(given)
    # Only the last few pages are remembered: memory stays bounded.
    tally.add_page(repeats.fresh(given[:5]))
    assert tally.records == len(given) + 5


async def test_askers_at_once_share_one_count_and_a_failure_is_not_kept() -> None:
    shared: SharedCounts[int] = SharedCounts(ttl=60.0)
    runs = 0

    async def count() -> int:
        nonlocal runs
        runs += 1
        await asyncio.sleep(0.01)
        return 42

    assert list(await asyncio.gather(shared.get("k", count), shared.get("k", count))) == [42, 42]
    assert await shared.get("k", count) == 42
    assert runs == 1

    async def failing() -> int:
        raise RuntimeError("service down")

    with pytest.raises(RuntimeError):
        await shared.get("f", failing)
    assert await shared.get("f", count) == 42


async def test_a_count_nobody_waits_for_any_more_stops() -> None:
    shared: SharedCounts[int] = SharedCounts(ttl=60.0)
    started = asyncio.Event()
    stopped = asyncio.Event()

    async def slow() -> int:
        started.set()
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            stopped.set()
            raise
        return 1

    asker = asyncio.ensure_future(shared.get("k", slow))
    await started.wait()
    asker.cancel()
    await asyncio.wait_for(stopped.wait(), 5)
