"""Listener work a stopping process waits for.

Bolt acknowledges a request, then runs its listener on in an ``asyncio`` task it keeps
no reference to; the HTTP answer (the acknowledgement) is long gone by the time the
listener posts its reply through ``response_url`` or updates a card.  A process that
stopped when its HTTP server had answered everything would cut those replies off: the
person saw the click or the command accepted and never hears back.  ``tracked`` wraps a
listener so that its task is held in ``Runtime.background`` from its first line on, and
the drain (``bot.server``) waits for it like any task of the app's own.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast

from bot.background import BackgroundTasks

Listener = TypeVar("Listener", bound=Callable[..., Awaitable[Any]])


def tracked(background: BackgroundTasks, listener: Listener) -> Listener:
    """``listener``, its task held in ``background`` while it runs.  Bolt reads the
    arguments a listener wants through ``functools.wraps`` (``inspect.unwrap``) and
    passes them by name, so the wrapper takes them as they come."""

    @functools.wraps(listener)
    async def run(**kwargs: Any) -> Any:
        background.adopt(asyncio.current_task())
        return await listener(**kwargs)

    return cast(Listener, run)


def tracking(background: BackgroundTasks) -> Callable[[Listener], Listener]:
    """``tracked`` as a decorator, under Bolt's own (``@app.event(...)``)."""

    def wrap(listener: Listener) -> Listener:
        return tracked(background, listener)

    return wrap
