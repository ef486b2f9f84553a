"""How call records called back are told in channels: what the notifications family
gives the receiver and the poster of the call feed (``bot/callbacks.py``,
``bot/call_feed.py``) as a value, so ``bot/`` names no family.

The family declares one ``Feed`` (``Family.feed``): which of a team's routes a record
goes to and as what, and the cards it is shown as.  ``bot/`` keeps the queue, the pace,
the folding of a busy channel's records into one message and the at-most-once posting.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import Block

from callcenter.models import Cdr
from storage import NotificationRoute


class Card(Protocol):
    """A message that is not an answer: its fallback text (escaped) and its blocks."""

    @property
    def text(self) -> str: ...

    @property
    def blocks(self) -> list[Block]: ...


class Channels(Protocol):
    def __call__(self, routes: Sequence[NotificationRoute], cdr: Cdr) -> list[str]:
        """The channels of ``routes`` that ``cdr`` goes to."""
        ...


class Kinds(Protocol):
    def __call__(self, routes: Sequence[NotificationRoute], cdr: Cdr) -> dict[str, str]:
        """Per channel ``cdr`` goes to, how it is shown there (as the queue stores it)."""
        ...


class CardOf(Protocol):
    def __call__(self, cdr: Cdr, *, tz: ZoneInfo, campaign_name: str | None = None) -> Card: ...


class FoldOf(Protocol):
    def __call__(
        self,
        records: Sequence[Cdr],
        *,
        tz: ZoneInfo,
        names: Mapping[str, str],
        notable: Collection[str] = frozenset(),
    ) -> Card:
        """The folded message listing ``records`` (oldest first; ``notable`` marked)."""
        ...


class DayOf(Protocol):
    def __call__(self, cdr: Cdr, tz: ZoneInfo, received: datetime) -> str:
        """The local day a record's thread belongs to."""
        ...


class SubjectOf(Protocol):
    def __call__(self, cdr: Cdr) -> str | None:
        """What makes records "the same conversation" (one thread a day), if anything."""
        ...


@dataclass(frozen=True, kw_only=True)
class Feed:
    channels: Channels
    kinds: Kinds
    card: CardOf
    """A record's card of its own."""
    outcome: CardOf
    """The reply that tells how a pushed call ended, in its push's thread."""
    fold: FoldOf
    day: DayOf
    subject: SubjectOf
    fold_rows: int
    """Records one folded message lists at most."""
    metadata_budget: int
    """Characters of a folded message's metadata its record ids may take."""
