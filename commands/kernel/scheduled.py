"""What the digests family gives the digest scheduler and poster of ``bot/`` as a value
(``Family.digests``), so ``bot/`` names no family.

``bot/`` keeps the minute's loop, the claim of each slot in the database, the pace, the
metadata a post is found again by and the metrics; the family says what a schedule
means (its trigger, its slots), what a slot's or a ``digest run``'s post says (built
against the workspace's service), and which failures hold up a whole workspace and how
that is told.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from apscheduler.triggers.cron import CronTrigger

from callcenter import CallCenter
from commands.kernel.jobs import JobOutbox
from commands.kernel.reply import Reply
from storage import DigestSchedule, Storage, Workspace


class Chart(Protocol):
    """A post's chart: drawn by Slack in the message (``native``), or a PNG uploaded
    after it."""

    @property
    def png(self) -> bytes | None: ...

    @property
    def filename(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def native(self) -> bool: ...


class Composed(Protocol):
    """One digest ready to post: the message, and its chart."""

    @property
    def reply(self) -> Reply: ...

    @property
    def chart(self) -> Chart | None: ...


class RequestNow(Protocol):
    def __call__(
        self,
        digest: DigestSchedule,
        now: datetime,
        *,
        up_to_now: bool = False,
        asked_by: str | None = None,
    ) -> object:
        """What ``digest run`` posts as of ``now`` (its latest complete period, or up to
        ``now``); written in the audience in use."""
        ...


class Compose(Protocol):
    async def __call__(
        self,
        cc: CallCenter,
        storage: Storage,
        workspace: Workspace | None,
        digest: DigestSchedule,
        request: object,
    ) -> Composed:
        """The post ``request`` (of ``for_slot`` or ``for_now``) describes, read from the
        service; written in the audience in use."""
        ...


@dataclass(frozen=True, kw_only=True)
class Digests:
    trigger: Callable[[DigestSchedule], CronTrigger]
    """When a digest fires, in its zone; ``ValueError`` for a schedule it cannot read."""
    latest_slot: Callable[[CronTrigger, datetime], datetime | None]
    """The last fire time at or before a moment."""
    slot_key: Callable[[datetime], str]
    """How a slot is recorded in the database and in its post's metadata."""
    for_slot: Callable[[DigestSchedule, datetime], object]
    """What a scheduled slot posts (its period)."""
    for_now: RequestNow
    compose: Compose
    held_up: Callable[[BaseException], bool]
    """Whether a failure recurs for every post of the workspace (tell people once)."""
    tell_failure: Callable[[Storage, JobOutbox, str, str, BaseException], Awaitable[bool]]
    """Post the workspace's one notice of such a failure, unless it is open already."""
    tell_recovery: Callable[[Storage, str], bool]
    """The service works again: the next failure is told afresh (blocking)."""
