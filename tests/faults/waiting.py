"""Waiting on a condition outside the Slack stand-in (the emulator, the database), by
asking again every tenth of a second; never a fixed sleep."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


async def until(probe: Callable[[], T | None], *, within: float, every: float = 0.1) -> T:
    """The first truthy ``probe()`` (run in a thread: it may do blocking I/O)."""
    async with asyncio.timeout(within):
        while True:
            value = await asyncio.to_thread(probe)
            if value:
                return value
            await asyncio.sleep(every)
