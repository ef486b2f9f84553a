"""The process's fire-and-forget tasks, owned by one object so shutdown can find them.

A slash command is answered at once and run afterwards in a task (Slack's 3 seconds);
asyncio keeps only a weak reference to a task, so something must hold it until it ends,
and ``Runtime.close`` must be able to let the ones under way finish before the clients
they use are closed.  Long-running workers (the scheduler, the call feed, the approval
sweeper) are not kept here: each has its own ``start``/``stop``, called by whoever serves.
Nor is the work of a listener, but Bolt runs it in a task that nothing holds either, so
the listeners register it here (``adopt``, ``bot.listeners.tracked``): a stopping process
waits for every answer it owes (``bot.server`` drains it).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger(__name__)

CLOSE_GRACE = 5.0
"""Seconds ``close`` lets tasks under way finish before cancelling them."""


class BackgroundTasks:
    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(
        self, work: Coroutine[Any, Any, Any], *, name: str | None = None
    ) -> asyncio.Task[Any]:
        """Run ``work`` in the current event loop, held here until it ends."""
        task = asyncio.get_running_loop().create_task(work, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def adopt(self, task: asyncio.Task[Any] | None) -> None:
        """Hold a task someone else started (Bolt runs each listener in a task of its own
        once it has acknowledged, and keeps no reference to it), so that a stopping
        process waits for it as for its own."""
        if task is not None and not task.done():
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def _running(self) -> set[asyncio.Task[Any]]:
        """The tasks not done yet (a finished one leaves the set a moment later)."""
        return {task for task in self._tasks if not task.done()}

    def __len__(self) -> int:
        return len(self._tasks)

    async def close(self, grace: float = CLOSE_GRACE) -> None:
        """Let the tasks under way finish for up to ``grace`` seconds, those they start
        meanwhile included (a command's look-up, a click that arrived over a socket
        still open), then cancel the rest."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + grace
        while (running := self._running()) and (left := deadline - loop.time()) > 0:
            await asyncio.wait(running, timeout=left)
        pending = self._running()
        if pending:
            log.warning("cancelling %d background task(s) still running at shutdown", len(pending))
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
