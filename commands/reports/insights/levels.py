"""The usual levels of a day, learned once: the four weeks before a day do not change
during it, so they are kept an hour per account, campaign and day."""

from __future__ import annotations

import asyncio
import time as clock_time
from datetime import date

from callcenter import CallCenter
from commands.reports.insights.model import INSIGHTS_TZ
from commands.reports.usual import UsualLevels, learn_usual, usual_window

CACHE_SECONDS = 3600
CACHE_ENTRIES = 32

LevelsKey = tuple[str, str, date, int]
"""Account (service and API key), campaign, day, records in the four weeks."""
_CACHE: dict[tuple[str, str, date], tuple[float, int, UsualLevels]] = {}
"""The latest levels learned per account, campaign and day: when, from how many records."""
_LEARNING: dict[LevelsKey, asyncio.Task[UsualLevels]] = {}
"""Learning under way: a second asker waits for the same walk, and a caller that gives up
does not stop it, so the next one finds it done."""
NO_LEVELS = UsualLevels({})
"""Nothing learned: every band is None."""


async def usual_levels(cc: CallCenter, day: date, campaign: str = "") -> tuple[UsualLevels, int]:
    """The usual levels for ``day`` (of one campaign or the call center) and the records
    they were learned from.  Kept an hour per account, campaign and day while the
    record count of the four weeks stays the same (one cheap request checks it): four
    weeks of records are read once, not on every ask."""
    low, high = usual_window(day, INSIGHTS_TZ).service_bounds()
    first = await cc.cdrs.list(
        limit=1, offset=0, start_date=low, end_date=high, campaign_uuid=campaign or None
    )
    kept = _CACHE.get((cc.account_key, campaign, day))
    if kept is not None and kept[1] == first.total and _fresh(kept[0]):
        return kept[2], first.total
    key = (cc.account_key, campaign, day, first.total)
    task = _LEARNING.get(key)
    if task is None or task.get_loop() is not asyncio.get_running_loop():
        task = asyncio.get_running_loop().create_task(
            learn_usual(cc, day, INSIGHTS_TZ, campaign=campaign, campaigns=False)
        )
        _LEARNING[key] = task
        task.add_done_callback(lambda done: _learned(key, done))
    return await asyncio.shield(task), first.total


def kept_usual_levels(
    cc: CallCenter, day: date, campaign: str = ""
) -> tuple[UsualLevels, int] | None:
    """The levels already learned for ``day``, without asking the service (the Home tab,
    which must stay quick: it never walks four weeks itself)."""
    kept = _CACHE.get((cc.account_key, campaign, day))
    return (kept[2], kept[1]) if kept is not None and _fresh(kept[0]) else None


def _fresh(at: float) -> bool:
    return clock_time.monotonic() - at < CACHE_SECONDS


def forget_usual_levels() -> None:
    """Drops every kept level (tests start afresh, as with ``reports.shared``)."""
    _CACHE.clear()
    _LEARNING.clear()


def _learned(key: LevelsKey, task: asyncio.Task[UsualLevels]) -> None:
    """Keeps what a walk learned (a failed one is forgotten: the next asker tries again)."""
    if _LEARNING.get(key) is task:
        del _LEARNING[key]
    if task.cancelled() or task.exception() is not None:
        return
    account, campaign, day, total = key
    if len(_CACHE) >= CACHE_ENTRIES:
        del _CACHE[min(_CACHE, key=lambda k: _CACHE[k][0])]
    _CACHE[account, campaign, day] = (clock_time.monotonic(), total, task.result())
