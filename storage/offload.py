"""Keeping the event loop free of the database: `off_loop`, and the guard that finds a call
that forgot it.

Every store call is blocking I/O: a round trip to PostgreSQL, or a wait for SQLite's write
lock while another process (a second replica, a backup, an admin's ``sqlite3``) holds it.
On the event loop that wait would stall every other request of the process: each user's
``/callops`` acknowledgement, ``/healthz``, the callback receiver. So async code runs store
calls with ``await off_loop(store.method, ...)``, on a pool of threads of its own: a slow
database then delays the requests that need it, and only those. The few calls an
acknowledgement waits on (the replay claim of ``bot.request_guard``) run on threads kept
for them (`off_loop_quick`), so slow calls filling the pool never delay an ack. An engine
opens at most one connection per thread (`CONNECTIONS`), so a thread never waits for a
pooled connection that no thread will give back.

The guard is how "never on the loop" stays true as the code grows: `Database` asks
`check_not_on_loop` before each transaction. A store called from a thread that is running
an event loop is logged once per call site (``CALLOPS_LOOP_GUARD=warn``, the default) or
raises `BlockingOnLoopError` (``strict``: the tests run so, so a forgotten ``off_loop``
fails the test that reached it). Test code itself may set up rows from an async test
without ``off_loop``, directly or through a plain helper of the app: only the loop it
blocks is its own. A coroutine of the app that reaches a store is never exempt.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import logging
import os
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from types import FrameType
from typing import Literal, ParamSpec, TypeVar

log = logging.getLogger(__name__)

P = ParamSpec("P")
T = TypeVar("T")

DB_THREADS = 16
"""Threads that run store calls (`off_loop`)."""
QUICK_THREADS = 4
"""Threads of their own for the few calls an acknowledgement waits on (`off_loop_quick`):
while another process holds the write lock, store calls may fill every one of the
`DB_THREADS` for seconds each, and an ack must not queue behind them."""
CONNECTIONS = DB_THREADS + QUICK_THREADS
"""Connections an engine may open (pool plus overflow): one per thread, so a thread never
waits for a connection that another thread holds while it waits for a lock."""

GuardMode = Literal["off", "warn", "strict"]
_MODES: tuple[GuardMode, ...] = ("off", "warn", "strict")

_warned: set[tuple[str, int]] = set()
_skip_prefixes = ("storage.", "sqlalchemy.", "contextlib", "functools")


class BlockingOnLoopError(RuntimeError):
    """A store was called on the event loop's thread (``CALLOPS_LOOP_GUARD=strict``)."""


_asked = os.environ.get("CALLOPS_LOOP_GUARD", "warn").strip().lower()
_mode: GuardMode = next((mode for mode in _MODES if mode == _asked), "warn")


def set_loop_guard(mode: GuardMode) -> GuardMode:
    """Set the guard's mode for this process; returns the previous one."""
    global _mode
    previous, _mode = _mode, mode
    return previous


@functools.cache
def _pool(threads: int, name: str) -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=threads, thread_name_prefix=name)


async def off_loop(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """``fn(*args, **kwargs)`` on a database thread, with this task's context variables
    (the log's correlation id goes along); the loop serves other requests meanwhile."""
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(_pool(DB_THREADS, "callops-db"), call)


async def off_loop_quick(fn: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
    """`off_loop` on threads kept for what an acknowledgement waits on. ``fn`` must be
    quick whatever the database does: run it under a short ``storage.patience``."""
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    pool = _pool(QUICK_THREADS, "callops-db-quick")
    return await asyncio.get_running_loop().run_in_executor(pool, call)


def _on_loop_thread() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _is_test(module: str) -> bool:
    return module == "tests" or module.startswith(("tests.", "test_", "conftest"))


_ASYNC_FLAGS = inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE


def _caller() -> tuple[str, int, bool]:
    """Who called into storage: the module and line of the first frame outside it, and
    whether the call is the test's own (exempt).

    The stack is walked outwards from the store call until the first coroutine: a test
    that calls a plain helper of the app (which reads the database) from its async body
    blocks only its own loop, but a coroutine of the app that reaches a store, directly
    or through plain helpers, blocks the app's loop whoever awaited it.
    """
    frame: FrameType | None = sys._getframe(2)
    first: tuple[str, int] | None = None
    while frame is not None:
        module = str(frame.f_globals.get("__name__", ""))
        if not module.startswith(_skip_prefixes) and module != "storage":
            if first is None:
                first = (module, frame.f_lineno)
            if _is_test(module):
                return first[0], first[1], True
            if frame.f_code.co_flags & _ASYNC_FLAGS:
                break
        frame = frame.f_back
    if first is None:
        return "?", 0, False
    return first[0], first[1], False


def check_not_on_loop() -> None:
    """Called by `Database` before each transaction: see the module's docstring."""
    if _mode == "off" or not _on_loop_thread():
        return
    module, line, exempt = _caller()
    if exempt:
        return
    where = f"{module}:{line}"
    if _mode == "strict":
        raise BlockingOnLoopError(
            f"storage called on the event loop from {where}; use `await off_loop(...)`"
        )
    if (module, line) not in _warned:
        _warned.add((module, line))
        log.warning("storage called on the event loop from %s; it blocks every request", where)
