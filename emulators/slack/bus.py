"""In-process feed of what happens in the stand-in's Slack.

Tests wait on it instead of sleeping, and the browser console of the demo (issue 8) will
subscribe to it to render live updates. Kinds published:

``message.posted``, ``message.updated``, ``message.deleted``, ``ephemeral.posted``,
``ephemeral.updated``, ``ephemeral.deleted``, ``view.opened``, ``view.pushed``,
``view.updated``, ``view.closed``, ``home.published``, ``file.shared``, ``api.call``
(every journal entry), ``delivery`` (every request the driver sent to the app).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Subscriber = Callable[["StandInEvent"], None]


@dataclass(frozen=True)
class StandInEvent:
    kind: str
    team_id: str | None
    data: dict[str, Any] = field(default_factory=dict)
    seq: int = 0


class EventBus:
    """Synchronous fan-out; subscribers must be quick and must not raise.

    Subscribers are called on whichever thread changed the state (the stand-in's loop);
    a subscriber living on another loop hops over with ``loop.call_soon_threadsafe``.
    """

    def __init__(self) -> None:
        self._subscribers: dict[int, Subscriber] = {}
        self._ids = itertools.count(1)
        self._seq = itertools.count(1)
        self._lock = threading.Lock()

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Register ``callback``; returns the function that unregisters it."""
        with self._lock:
            key = next(self._ids)
            self._subscribers[key] = callback

        def unsubscribe() -> None:
            with self._lock:
                self._subscribers.pop(key, None)

        return unsubscribe

    def publish(self, kind: str, team_id: str | None, **data: Any) -> None:
        with self._lock:
            event = StandInEvent(kind=kind, team_id=team_id, data=data, seq=next(self._seq))
            subscribers = list(self._subscribers.values())
        for callback in subscribers:
            callback(event)
