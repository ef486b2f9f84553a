"""Answers held back on purpose: the call takes effect, its answer waits.

Slack sometimes does what was asked and answers late, or the answer is lost on the way
(the app's process dies while it waits).  ``hold("chat.postMessage")`` makes the next
call of that method do its work (the message is in the channel) and then keep its
answer until ``release()`` (or ``seconds``) — the moment in which a client that dies
cannot know whether its message was posted.
"""

from __future__ import annotations

import asyncio
import threading


class Hold:
    """One scripted hold: ``times`` calls of ``method`` are held, each until released
    (or for ``seconds`` when given)."""

    def __init__(
        self, method: str, times: int, seconds: float | None, *, cut: bool = False
    ) -> None:
        self.method = method
        self.times = times
        self.seconds = seconds
        self.cut = cut
        """The answer is lost on the way: the connection closes without one."""
        self.held = 0
        """Calls that reached the hold so far (their effect is done)."""
        self._lock = threading.Lock()
        self._released = False
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []

    def release(self) -> None:
        """Let every held answer (and every later one) go."""
        with self._lock:
            self._released = True
            waiters, self._waiters = self._waiters, []
        for loop, event in waiters:
            if not loop.is_closed():
                loop.call_soon_threadsafe(event.set)

    async def wait(self) -> None:
        """Called by the server with the answer ready: wait until released."""
        event = asyncio.Event()
        with self._lock:
            self.held += 1
            if self._released:
                return
            self._waiters.append((asyncio.get_running_loop(), event))
        if self.seconds is None:
            await event.wait()
            return
        try:
            await asyncio.wait_for(event.wait(), self.seconds)
        except TimeoutError:
            return


class Holds:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: list[Hold] = []
        self._made: list[Hold] = []

    def add(
        self, method: str, *, times: int = 1, seconds: float | None = None, cut: bool = False
    ) -> Hold:
        hold = Hold(method, times, seconds, cut=cut)
        with self._lock:
            self._pending.append(hold)
            self._made.append(hold)
        return hold

    def take(self, method: str) -> Hold | None:
        """The hold this call of ``method`` must wait on, used up once per call."""
        with self._lock:
            for hold in self._pending:
                if hold.method == method:
                    hold.times -= 1
                    if hold.times <= 0:
                        self._pending.remove(hold)
                    return hold
        return None

    def clear(self) -> None:
        """Forget scripted holds and let every held answer go."""
        with self._lock:
            made, self._made, self._pending = self._made, [], []
        for hold in made:
            hold.release()
