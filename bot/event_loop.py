"""The event loop every long-running callops process runs on: uvloop's.

A slash command is mostly network work on the event loop: the request read and
answered, a call to the call-center service, the answer posted to ``response_url``, and
the hand-offs to and from the database threads.  asyncio's own loop does each of those
steps in Python (the selector, the transports, the callbacks' queue); uvloop does them in
C on libuv, and the same process needs less CPU per command (``benchmarks/ack.py``).
Nothing in callops depends on which loop runs it: the tests drive the app on asyncio's
own loop, and ``callops serve`` under test on this one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

import uvloop

T = TypeVar("T")


def run(work: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(work)`` on a new uvloop event loop."""
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(work)
