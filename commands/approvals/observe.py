"""Reading back what an approved action did, for a run that was cut off.

When the process running an approved action dies (``kill -9``, a crash, a lost host) the
request stays ``executing`` and nobody knows whether the service got the call.  Recovery
(``commands.approvals.recovery``) never runs it again: it asks the service.  Where the
service can be read for the effect (a campaign's status, its callback URL) the action's
``ActionSpec`` has an *observer* (``observe=``) next to its executor; it reads the service,
and says whether the effect is in place.  Kinds without one (an autocall push, a
transfer, a lead insert: nothing to look them up by) end as "unknown: check before
retrying".

An observer only reads: it must never send anything that changes the service.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from callcenter import CallCenter


@dataclass(frozen=True)
class Observation:
    """What the service shows now about one request's effect."""

    done: bool
    """True: the effect is in place; False: it is not (asking again is safe)."""
    text: str
    """One or two lines of escaped mrkdwn for the card."""
    data: dict[str, Any] = field(default_factory=dict)


Observer = Callable[[Mapping[str, Any], CallCenter], Awaitable[Observation]]
