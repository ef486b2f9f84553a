"""The poster of the call feed: queued call records become cards in Slack, at Slack's pace.

The receiver only queues (it must answer the service at once); this worker posts. Slack
allows about one message per second per channel, so the records waiting for a channel go
out together, in the channel's folded message (``Feed.fold``, the registry's ``feed``):
posted once, then edited with each second's new records while it is the channel's latest
feed message, young and not full.  A channel's delay so stays within a few seconds however
fast records come; a record alone in a quiet channel still gets its card, and a notable
one a reply on the folded message or a card of its own, as its route says.  Channels go
on in parallel, one Slack call a second each, posts and edits together. A row leaves
the queue only after Slack accepted the post; a 429 that the client's retry handler could
not absorb, a network error or a Slack outage postpones the row and holds its channel's
later cards behind it, so order is kept and nothing is lost.

A post whose answer never came back (the process died while Slack's answer was on its
way, or the connection broke) may or may not be in the channel.  Each card carries
Slack message metadata naming its record, and each folded message every record it lists
(``bot.feed_metadata``), so before posting a row that was taken before (its lease ran
out, or an attempt failed) the poster looks for that metadata in the channel's recent
history (or the thread's) and, if it is there, counts the row as posted: at most once,
and never lost.  A folded message found so is edited no more (what it shows may be more
than the database says); the records after it start a new one.  The lease is renewed while a post is
under way, so a slow post is not taken over by another process.

Time is injectable (``use_clock``): tests and benchmarks run the per-channel pace on the
Slack stand-in's clock and move it forward instead of waiting a second per card.

It posts as the bot through the process's ``SlackOutbox`` (its pace per channel, its
history search) with a client from ``BotClients`` (the team's installation, else the
single bot token), names campaigns through the team's service client and shows times in
the team's zone; the HTTP server starts and stops it beside the receiver
(``bot.callbacks``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime
from typing import NoReturn
from zoneinfo import ZoneInfo

import aiohttp
from pydantic import ValidationError
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot import logs
from bot.feed_metadata import FeedPayload, card_metadata, fold_metadata, read_payload
from bot.posting import BotClients, ChannelPace, SlackOutbox, rate_limited
from bot.service_clients import ServiceClients
from callcenter.errors import CallCenterError
from callcenter.models import Cdr
from commands.kernel.audiences import for_channel
from commands.kernel.feed import Card, Feed
from commands.kernel.i18n import Audience, use_audience
from commands.kernel.resolve import all_campaigns
from storage import OpenFold, QueuedRecord, Storage
from storage.errors import StorageBusyError, StorageError
from storage.offload import off_loop

log = logging.getLogger(__name__)

Clock = Callable[[], float]
Sleep = Callable[[float], Awaitable[None]]

OUTCOME_WAIT = 120.0
"""Seconds an autocall's outcome waits for the push that placed it to be recorded."""
OUTCOME_RECHECK = 1.0
MAX_BACKOFF = 300.0
CAMPAIGN_NAMES_TTL = 300.0
CAMPAIGN_NAMES_RETRY = 60.0
CAMPAIGN_LOOKUP_TIMEOUT = 5.0
IDLE_POLL = 5.0
"""Seconds an idle poster waits before it looks at the queue again unwoken: rows another
replica queued and never took (it was stopped, draining, or died) are taken within that,
for the price of one small query."""
STOP_GRACE = 5.0
LEASE_SECONDS = 20.0
"""How long a row taken for posting is another process's to leave alone; the poster
renews it every ``LEASE_SECONDS / 4`` while the post is under way."""
FOLD_MAX_AGE = 60.0
"""Seconds a folded message takes more records for after it was posted: past that, an
edit would change a message people have scrolled past."""
FOLD_GONE = frozenset({"message_not_found", "cant_update_message", "edit_window_closed"})
"""Slack's answers to an edit of a folded message that can never be made."""
LEASE_RECHECK = 1.0
NOTE_ROOM = 5
"""Notable records a channel may have waiting and still give each a message of its own
(a reply on the folded message, or a card): at one message a second the last of them
shows within a few seconds.  Past that the channel is past its pace, and its notable
records go into the folded message, marked as notable, so that every record still shows
within the feed's bound however many are notable (an autocall campaign where customers
press keys makes every record notable)."""
NOTABLE_KEY = "_callops_notable"
"""Set on a record a folded message lists as notable (kept with the fold's records)."""
MAINTENANCE_EVERY = 3600.0
THREAD_RETENTION = 3 * 86400.0
DEDUP_RETENTION = 7 * 86400.0

PERMANENT_ERRORS = frozenset(
    {
        "channel_not_found",
        "not_in_channel",
        "is_archived",
        "invalid_blocks",
        "invalid_blocks_format",
        "msg_too_long",
        "no_text",
        "invalid_auth",
        "not_authed",
        "account_inactive",
        "token_revoked",
        "missing_scope",
        "restricted_action",
        "team_access_not_granted",
        "ekm_access_denied",
    }
)
"""Slack errors that retrying cannot fix: the card is dropped (and logged) so the cards
behind it in the channel still go out."""


class _Retry(Exception):
    """Post this row again at ``at`` (its channel waits behind it)."""

    def __init__(self, at: float, reason: str) -> None:
        super().__init__(reason)
        self.at = at
        self.reason = reason


class _Drop(Exception):
    """This row cannot be posted, ever: drop it so the channel's next cards go out."""


class CallFeed:
    def __init__(
        self,
        storage: Storage,
        services: ServiceClients,
        bots: BotClients,
        outbox: SlackOutbox,
        zone_of: Callable[[str], ZoneInfo],
        *,
        feed: Feed | None,
        max_in_flight: int = 16,
    ) -> None:
        """``feed``: how records are routed and shown (the family's that declares it,
        ``Registry.feed``; None: every record is told nowhere)."""
        if outbox.pace is None:
            raise ValueError("the call feed posts at Slack's pace: give it a paced outbox")
        self._storage = storage
        self._services = services
        self._bots = bots
        self._outbox = outbox
        self._pace: ChannelPace = outbox.pace
        self._zone_of = zone_of
        self.feed = feed
        self._max_in_flight = max_in_flight
        self._clock: Clock = time.time
        self._sleep: Sleep | None = None
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._busy: set[tuple[str, str]] = set()
        self._tasks: set[asyncio.Task[None]] = set()
        self._runner: asyncio.Task[None] | None = None
        self._names: dict[str, tuple[float, dict[str, str]]] = {}
        self._name_locks: dict[str, asyncio.Lock] = {}
        self._last_maintenance = 0.0
        self._owner = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        self.posted = 0
        """Cards and outcomes Slack accepted since start (for benchmarks and the demo)."""
        self.dropped = 0
        """Rows given up on (permanent Slack errors, undecodable rows)."""
        self.found = 0
        """Rows found already posted by an earlier attempt (not posted again)."""
        self.folds = 0
        """Folded messages posted (each then edited while it takes more records)."""

    @property
    def _cards(self) -> Feed:
        """The declared feed; only a record queued for a channel asks for it, and none
        is when no family declares one (the receiver routes nowhere)."""
        if self.feed is None:
            raise LookupError("no family of this app declares the call feed")
        return self.feed

    # -- life cycle ----------------------------------------------------------------------

    def use_clock(self, clock: Clock, sleep: Sleep | None = None) -> None:
        """Pace on another clock; ``sleep`` moves that clock (None: wait in real time)."""
        self._clock = clock
        self._sleep = sleep
        self._pace.use_clock(clock, sleep)
        self.wake()

    def wake(self) -> None:
        """Something was queued: look at the queue now rather than at the next due time."""
        self._wake.set()

    def start(self) -> None:
        if self._runner is None:
            self._runner = asyncio.get_running_loop().create_task(self._run(), name="call-feed")

    @property
    def running(self) -> bool:
        """The poster's loop is alive (``/readyz`` asks)."""
        return self._runner is not None and not self._runner.done()

    async def stop(self) -> None:
        runner, self._runner = self._runner, None
        if runner is not None:
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner
        if self._tasks:
            # Let posts under way finish (a cancelled post may have reached Slack and would
            # be posted again after a restart); cut them off after a few seconds.
            await asyncio.wait(set(self._tasks), timeout=STOP_GRACE)
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        await off_loop(self._storage.call_feed.release, self._owner)

    async def drained(self, within: float = 30.0) -> None:
        """Wait until the queue is empty (tests, benchmarks, a graceful shutdown)."""
        async with asyncio.timeout(within):
            while True:
                self._idle.clear()
                self.wake()
                await self._idle.wait()
                if not await off_loop(self._storage.call_feed.pending) and not self._tasks:
                    return

    # -- the loop --------------------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            try:
                await self._step()
            except asyncio.CancelledError:
                raise
            except StorageBusyError:
                # Another process holds the write lock: nothing is lost (the rows wait in
                # the queue), so one line, no traceback, and look again shortly.
                log.warning("call feed: the database is busy; trying again shortly")
                await asyncio.sleep(1.0)
            except Exception:
                # The feed must outlive one bad moment (a locked database, say).
                log.exception("call feed: step failed; trying again shortly")
                await asyncio.sleep(1.0)

    async def _step(self) -> None:
        self._wake.clear()
        now = self._clock()
        await self._maintain(now)
        next_due: float | None = None
        store = self._storage.call_feed
        heads = await off_loop(store.heads)
        if not heads and not self._tasks:
            self._idle.set()
        for head in heads:
            lane = (head.team_id, head.lane)
            if lane in self._busy:
                continue
            if await off_loop(store.leased_elsewhere, head, self._owner):
                # Another app process is posting it; look again in a moment.
                next_due = (
                    now + LEASE_RECHECK if next_due is None else min(next_due, now + LEASE_RECHECK)
                )
                continue
            due = max(head.not_before, self._pace.free_at(lane))
            if due <= now and len(self._busy) < self._max_in_flight:
                if not await self._launch(head, lane):
                    # Another process took it a moment ago: look again soon rather than
                    # idle until something wakes this process (nothing here would).
                    recheck = now + LEASE_RECHECK
                    next_due = recheck if next_due is None else min(next_due, recheck)
            elif due > now:
                next_due = due if next_due is None else min(next_due, due)
        if self._tasks:
            timeout = None if next_due is None or self._sleep else max(0.0, next_due - now)
            waiter = asyncio.ensure_future(self._wake.wait())
            try:
                await asyncio.wait(
                    {*self._tasks, waiter}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
                )
            finally:
                waiter.cancel()
        elif next_due is None:
            # Nothing due: wait for the receiver, but look now and then anyway, for rows
            # another process queued (it may have died before posting them).
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), IDLE_POLL)
        elif self._sleep is not None:
            await self._sleep(next_due - now)
        else:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(0.0, next_due - now))

    async def _launch(self, head: QueuedRecord, lane: tuple[str, str]) -> bool:
        """Lease ``head`` and post it in a task of its own; False when another process
        took it first."""
        if not await off_loop(self._storage.call_feed.lease, head.seq, self._owner, LEASE_SECONDS):
            return False
        self._busy.add(lane)
        task = asyncio.get_running_loop().create_task(self._deliver(head, lane))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return True

    async def _deliver(self, head: QueuedRecord, lane: tuple[str, str]) -> None:
        logs.begin(team=head.team_id, name="call_feed")  # this task's own context
        store = self._storage.call_feed
        held = [head.seq]
        renewing = asyncio.get_running_loop().create_task(self._renew(held))
        try:
            if head.kind == "outcome":
                await self._post_outcome(head)
            elif head.post_as in ("fold", "note"):
                await self._post_fold(head, held)
            else:
                await self._post_card(head)
        except asyncio.CancelledError:
            # Cut off mid-post (shutdown): it may have reached Slack, so the next attempt
            # looks for it first (``attempts`` counts this one).
            await off_loop(store.postpone, head.seq, self._clock(), "interrupted")
            raise
        except _Retry as retry:
            await off_loop(store.postpone, head.seq, retry.at, retry.reason)
        except _Drop as drop:
            log.warning(
                "call feed: team %s record %s cannot be posted (%s); dropped",
                head.team_id,
                head.record_id,
                drop,
            )
            await off_loop(store.remove, head.seq)
            self.dropped += 1
        except Exception as exc:
            later = self._later(head)
            log.log(
                logging.WARNING if isinstance(exc, StorageBusyError) else logging.ERROR,
                "call feed: team %s record %s failed (%s); retrying in %.0fs",
                head.team_id,
                head.record_id,
                type(exc).__name__,
                later - self._clock(),
                # A busy database is expected, and said in full by its name.
                exc_info=not isinstance(exc, StorageBusyError),
            )
            # If even that cannot be saved, the lease runs out and the row is tried again.
            with contextlib.suppress(StorageBusyError):
                await off_loop(store.postpone, head.seq, later, type(exc).__name__)
        finally:
            renewing.cancel()
            self._busy.discard(lane)
            self._wake.set()

    async def _renew(self, held: list[int]) -> None:
        """Hold the leases of the rows being posted (``held`` grows when a folded message
        takes the rows behind the first) while the post is under way."""
        while True:
            await asyncio.sleep(LEASE_SECONDS / 4)
            try:
                await off_loop(
                    self._storage.call_feed.renew, list(held), self._owner, LEASE_SECONDS
                )
            except StorageError as exc:
                log.warning("call feed: could not renew the lease of row %d: %s", held[0], exc)

    # -- posting ---------------------------------------------------------------------------

    async def _post_card(self, head: QueuedRecord) -> None:
        store = self._storage.call_feed
        cdr = await off_loop(self._record, head)
        team, channel = head.team_id, head.lane
        tz, readers = await off_loop(self._readers, team, channel)
        name = await self._campaign_name(team, cdr)
        with use_audience(readers):
            card = self._cards.card(cdr, tz=tz, campaign_name=name)
        received = datetime.fromtimestamp(head.received_at, UTC)
        day = self._cards.day(cdr, tz, received)
        subject = self._cards.subject(cdr)
        root = await off_loop(store.thread_root, team, channel, day, subject) if subject else None
        found = await self._already_posted(head, channel, thread_ts=root)
        if found is not None:
            if subject and root is None:
                await off_loop(store.set_thread_root, team, channel, day, subject, found)
            await off_loop(store.remove, head.seq)
            self.found += 1
            return
        try:
            ts = await self._post(head, channel, card, thread_ts=root)
        except SlackApiError as exc:
            if exc.response.get("error") == "thread_not_found" and subject and root:
                # The day's first card was deleted: this one starts the thread afresh.
                await off_loop(store.forget_thread_root, team, channel, day, subject)
                raise _Retry(self._clock(), "thread_not_found") from None
            self._failed(head, channel, exc)
        if subject and root is None and ts:
            await off_loop(store.set_thread_root, team, channel, day, subject, ts)
        # The channel's next card waits a full interval after Slack answered this one,
        # whichever process posts it: Slack counts arrivals, and another replica's post
        # must not arrive sooner than the pace allows however long this one took.  A card
        # in the channel itself (not in a thread) ends the folded message above it.
        await off_loop(
            store.remove,
            head.seq,
            lane_free_at=self._clock() + self._pace.spacing,
            close_fold=root is None,
        )
        self.posted += 1

    # -- folding ---------------------------------------------------------------------------

    def _live(self, fold: OpenFold | None) -> OpenFold | None:
        """The channel's folded message if it still takes records: young and not full."""
        if fold is None or self._clock() - fold.opened_at >= FOLD_MAX_AGE:
            return None
        return fold if len(fold.records) < self._cards.fold_rows else None

    async def _post_fold(self, head: QueuedRecord, held: list[int]) -> None:
        """Post the records waiting for a channel: one alone as its card when the channel
        is quiet, else together in the channel's folded message (edited in place while it
        takes records, a new one otherwise), so a burst costs one Slack call a second."""
        store = self._storage.call_feed
        team, channel = head.team_id, head.lane
        fold = self._live(await off_loop(store.fold, team, channel))
        used = len(json.dumps([r.get("id", "") for r in fold.records])) if fold else 2
        if fold and used + len(json.dumps(head.record_id)) + 2 > self._cards.metadata_budget:
            fold = None  # its metadata could name no more records
            used = 2
        room = self._cards.fold_rows - (len(fold.records) if fold else 0)
        batch = await off_loop(
            store.take_fold,
            head,
            self._owner,
            LEASE_SECONDS,
            room,
            self._cards.metadata_budget - used,
            NOTE_ROOM,
        )
        if not batch:  # a notable record, its channel within its pace: on its own
            await self._post_note(head)
            return
        # ``take_fold`` read the head after this poster leased it; what it was before
        # (taken by a poster that died, or tried already) is what ``head`` says.
        batch = [head, *batch[1:]]
        held[:] = [row.seq for row in batch]
        try:
            if any(row.lease_owner is not None or row.attempts for row in batch):
                batch = await self._not_yet_posted(batch, channel)
                if len(batch) < len(held):
                    # Slack has some of them: the open fold may show more than stored.
                    await off_loop(store.close_fold, team, channel)
                    fold = None
                held[:] = [row.seq for row in batch]
                if not batch:
                    return
            if fold is None and len(batch) == 1:
                await self._post_card(batch[0])
                return
            await self._fold(batch, fold)
        except BaseException:
            # The first row's failure is recorded by ``_deliver``; the rows behind it wait
            # as long and are looked for in the channel before they are posted again.
            later = [seq for seq in held if seq != head.seq]
            if later:
                with contextlib.suppress(StorageError):
                    await off_loop(
                        self._postpone_all, later, self._clock(), "folded with a failure"
                    )
            raise

    def _postpone_all(self, seqs: list[int], at: float, reason: str) -> None:
        for seq in seqs:
            self._storage.call_feed.postpone(seq, at, reason)

    async def _fold(self, batch: list[QueuedRecord], fold: OpenFold | None) -> None:
        store = self._storage.call_feed
        head = batch[0]
        team, channel = head.team_id, head.lane
        try:
            payloads = await off_loop(lambda: [store.payload(row) for row in batch])
            for row, payload in zip(batch, payloads, strict=True):
                if row.post_as == "note":  # past the channel's pace: listed, marked
                    payload[NOTABLE_KEY] = True
            records = [*(fold.records if fold else []), *payloads]
            notable = {str(p.get("id", "")) for p in records if p.get(NOTABLE_KEY)}
            cdrs = [
                Cdr.model_validate({k: v for k, v in p.items() if k != NOTABLE_KEY})
                for p in records
            ]
        except (ValueError, StorageError):  # pydantic's ValidationError included
            # The receiver validated it; only a hand-edited row gets here.
            raise _Drop("a queued row is no call record") from None
        tz, readers = await off_loop(self._readers, team, channel)
        names = await self._campaign_names(team)
        with use_audience(readers):
            card = self._cards.fold(cdrs, tz=tz, names=names, notable=notable)
        metadata = fold_metadata([str(p.get("id", "")) for p in records])
        client = await self._client(team)
        try:
            if fold is not None:
                response = await self._outbox.update(
                    client, channel, fold.root_ts, card, team=team, metadata=metadata
                )
            else:
                response = await self._outbox.post(
                    client, channel, card, team=team, metadata=metadata
                )
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise _Retry(self._later(head), type(exc).__name__) from None
        except SlackApiError as exc:
            if fold is not None and exc.response.get("error") in FOLD_GONE:
                # Deleted, or no longer ours to edit: the records go in a new one.
                await off_loop(store.close_fold, team, channel)
                raise _Retry(self._clock(), str(exc.response.get("error"))) from None
            self._failed(head, channel, exc)
        ts = str(response.get("ts") or (fold.root_ts if fold else ""))
        opened = fold.opened_at if fold is not None else self._clock()
        await off_loop(
            store.folded,
            team,
            channel,
            [row.seq for row in batch],
            OpenFold(root_ts=ts, opened_at=opened, records=records),
            lane_free_at=self._clock() + self._pace.spacing,
        )
        self.posted += len(batch)
        self.folds += fold is None

    async def _post_note(self, head: QueuedRecord) -> None:
        """A notable record: a reply on the channel's folded message while one is open
        (its table does not list it), else a card of its own."""
        store = self._storage.call_feed
        team, channel = head.team_id, head.lane
        fold = await off_loop(store.fold, team, channel)
        if fold is None or self._clock() - fold.opened_at >= FOLD_MAX_AGE:
            await self._post_card(head)
            return
        # An earlier attempt may have gone out as a card of its own (no fold was open
        # then) or as a reply on this fold: both places are looked in.
        for thread in (fold.root_ts, None):
            if await self._already_posted(head, channel, thread_ts=thread) is not None:
                await off_loop(store.remove, head.seq)
                self.found += 1
                return
        cdr = await off_loop(self._record, head)
        tz, readers = await off_loop(self._readers, team, channel)
        name = await self._campaign_name(team, cdr)
        with use_audience(readers):
            card = self._cards.card(cdr, tz=tz, campaign_name=name)
        try:
            await self._post(head, channel, card, thread_ts=fold.root_ts)
        except SlackApiError as exc:
            if exc.response.get("error") == "thread_not_found":
                await off_loop(store.close_fold, team, channel)
                raise _Retry(self._clock(), "thread_not_found") from None
            self._failed(head, channel, exc)
        await off_loop(store.remove, head.seq, lane_free_at=self._clock() + self._pace.spacing)
        self.posted += 1

    async def _not_yet_posted(self, batch: list[QueuedRecord], channel: str) -> list[QueuedRecord]:
        """The rows of ``batch`` whose records the channel does not show yet; the others
        (posted by an attempt whose answer never came back) leave the queue."""
        shown = await self._shown_in_channel(batch[0], channel)
        found = [row for row in batch if row.record_id in shown]
        # A customer's later calls of the day are replies in the thread of their first
        # card, which the channel's own history does not list: a row taken before that
        # the channel does not show is looked for in its thread too.
        for row in batch:
            if row.record_id in shown or (row.lease_owner is None and not row.attempts):
                continue
            root = await self._thread_root(row)
            if root is not None and await self._already_posted(row, channel, thread_ts=root):
                found.append(row)
        for row in found:
            await off_loop(self._storage.call_feed.remove, row.seq)
        if found:
            log.info(
                "call feed: team %s: %d records were already in %s; not again",
                batch[0].team_id,
                len(found),
                channel,
            )
            self.found += len(found)
        return [row for row in batch if row not in found]

    async def _thread_root(self, row: QueuedRecord) -> str | None:
        """The thread this row's card goes in (its customer's first card of the day in
        the channel), if there is one yet."""
        cdr = await off_loop(self._record, row)
        subject = self._cards.subject(cdr)
        if not subject:
            return None
        tz, _readers = await off_loop(self._readers, row.team_id, row.lane)
        day = self._cards.day(cdr, tz, datetime.fromtimestamp(row.received_at, UTC))
        return await off_loop(
            self._storage.call_feed.thread_root, row.team_id, row.lane, day, subject
        )

    async def _post_outcome(self, head: QueuedRecord) -> None:
        store = self._storage.call_feed
        now = self._clock()
        pushed = await off_loop(store.pushed_message, head.team_id, head.record_id)
        if pushed is None:
            waited = time.time() - head.received_at
            if waited < OUTCOME_WAIT and await off_loop(store.push_in_flight, head.team_id):
                raise _Retry(now + OUTCOME_RECHECK, "push not recorded yet")
            # The push may have finished between the two reads (its result and its end are
            # stored together): look once more before deciding it was not pushed from Slack.
            pushed = await off_loop(store.pushed_message, head.team_id, head.record_id)
            if pushed is None:
                await off_loop(store.remove, head.seq)  # nothing to append to
                return
        free = self._pace.free_at((head.team_id, pushed.channel))
        if free > now:
            raise _Retry(free, "channel pace")
        if await self._already_posted(head, pushed.channel, thread_ts=pushed.ts) is not None:
            await off_loop(store.remove, head.seq)
            self.found += 1
            return
        cdr = await off_loop(self._record, head)
        tz, readers = await off_loop(self._readers, head.team_id, None)
        name = await self._campaign_name(head.team_id, cdr)
        with use_audience(readers):
            card = self._cards.outcome(cdr, tz=tz, campaign_name=name)
        try:
            await self._post(head, pushed.channel, card, thread_ts=pushed.ts)
        except SlackApiError as exc:
            self._failed(head, pushed.channel, exc)
        await off_loop(store.remove, head.seq)
        self.posted += 1

    def _readers(self, team_id: str, channel: str | None) -> tuple[ZoneInfo, Audience]:
        """The team's zone and who reads a card in ``channel``: the language a route to
        it was given, else the workspace's (an outcome in the thread of a pushed call:
        the workspace's), numbers masked if the workspace asks (blocking: off the loop)."""
        workspace = self._storage.workspaces.get(team_id)
        language = None
        if channel is not None:
            language = next(
                (
                    route.language
                    for route in self._storage.routes.list(team_id)
                    if route.channel == channel and route.language
                ),
                None,
            )
        own = self._storage.channel_languages.get(team_id, channel)
        return self._zone_of(team_id), for_channel(workspace, language, own)

    async def _post(
        self, head: QueuedRecord, channel: str, card: Card, *, thread_ts: str | None
    ) -> str | None:
        """One post at the channel's pace; transport failures become retries."""
        client = await self._client(head.team_id)
        kind = "outcome" if head.kind == "outcome" else "card"
        try:
            response = await self._outbox.post(
                client, channel, card, team=head.team_id, thread_ts=thread_ts,
                metadata=card_metadata(head.record_id, kind),
            )  # fmt: skip
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise _Retry(self._later(head), type(exc).__name__) from None
        ts = response.get("ts")
        return str(ts) if ts else None

    async def _already_posted(
        self, head: QueuedRecord, channel: str, *, thread_ts: str | None
    ) -> str | None:
        """The ts of this row's post if an earlier attempt made it after all.

        Only rows taken before are looked for (a lease that ran out: its process died
        mid-post; or an attempt that failed or was cut off); a fresh row costs nothing.
        When Slack will not show the history (a missing scope, say) the row is posted: a
        card twice is better than none."""
        if head.lease_owner is None and head.attempts == 0:
            return None
        async for ts, payload in self._history(head, channel, thread_ts=thread_ts):
            if payload.holds(head.record_id, head.kind):
                log.info(
                    "call feed: team %s record %s was already posted; not again",
                    head.team_id,
                    head.record_id,
                )
                return ts
        return None

    async def _shown_in_channel(self, head: QueuedRecord, channel: str) -> set[str]:
        """Every record the feed's recent messages in ``channel`` show (not in threads)."""
        shown: set[str] = set()
        async for _ts, payload in self._history(head, channel, thread_ts=None):
            shown.update(payload.shown())
        return shown

    async def _history(
        self, head: QueuedRecord, channel: str, *, thread_ts: str | None
    ) -> AsyncIterator[tuple[str, FeedPayload]]:
        """The feed's messages in the channel (or the thread) since a little before
        ``head`` was received, newest first, with what their metadata says.  When Slack
        will not show the history (a missing scope, say) it ends early: a record twice is
        better than none."""
        client = await self._client(head.team_id)
        try:
            messages = self._outbox.history(
                client, channel, since=head.received_at, thread_ts=thread_ts
            )
            async for message in messages:
                payload = read_payload(message)
                if payload is not None:
                    yield str(message["ts"]), payload
        except SlackApiError as exc:
            log.info(
                "call feed: cannot look for an earlier post in %s (%s); posting",
                channel,
                exc.response.get("error"),
            )
        except (aiohttp.ClientError, TimeoutError) as exc:
            raise _Retry(self._later(head), type(exc).__name__) from None

    async def _client(self, team_id: str) -> AsyncWebClient:
        client = await self._bots.get(team_id)
        if client is None:
            raise _Drop("the app is not installed in this workspace any more")
        return client

    def _later(self, head: QueuedRecord) -> float:
        """When a row whose attempt failed is tried again: later each time it fails."""
        return self._clock() + min(MAX_BACKOFF, 2.0 ** min(head.attempts, 10))

    def _failed(self, head: QueuedRecord, channel: str, exc: SlackApiError) -> NoReturn:
        """Slack refused the post: wait when it asks us to, drop what cannot succeed."""
        error = str(exc.response.get("error") or "")
        status = exc.response.status_code
        if rate_limited(exc):
            # The outbox holds the channel for Slack's Retry-After (its later cards wait
            # behind this one); the row is tried again when it is free.
            raise _Retry(self._pace.free_at((head.team_id, channel)), "ratelimited") from None
        if error in PERMANENT_ERRORS:
            raise _Drop(f"Slack said {error} for channel {channel}") from None
        raise _Retry(self._later(head), error or f"HTTP {status}") from None

    def _record(self, head: QueuedRecord) -> Cdr:
        try:
            return Cdr.model_validate(self._storage.call_feed.payload(head))
        except (ValidationError, ValueError, StorageError):
            # The receiver validated it; only a hand-edited row gets here.
            raise _Drop("the queued row is no call record") from None

    # -- look-ups --------------------------------------------------------------------------

    async def _campaign_name(self, team_id: str, cdr: Cdr) -> str | None:
        """Campaign names, fetched once per team every few minutes; a service that is down
        costs a card its campaign name, never the card."""
        if not cdr.campaign_uuid:
            return None
        return (await self._campaign_names(team_id)).get(cdr.campaign_uuid)

    async def _campaign_names(self, team_id: str) -> dict[str, str]:
        """Every campaign's name by its id, from the same few-minute cache."""
        now = time.monotonic()
        cached = self._names.get(team_id)
        if cached is None or cached[0] <= now:
            lock = self._name_locks.setdefault(team_id, asyncio.Lock())
            async with lock:
                cached = self._names.get(team_id)
                if cached is None or cached[0] <= now:
                    cached = await self._fetch_names(team_id, now)
                    self._names[team_id] = cached
        return cached[1]

    async def _fetch_names(self, team_id: str, now: float) -> tuple[float, dict[str, str]]:
        try:
            cc = await self._services.get(team_id)
            if cc is None:
                return now + CAMPAIGN_NAMES_RETRY, {}
            async with asyncio.timeout(CAMPAIGN_LOOKUP_TIMEOUT):
                campaigns = await all_campaigns(cc)
        except (CallCenterError, TimeoutError) as exc:
            log.info("call feed: campaign names for %s unavailable (%s)", team_id, exc)
            return now + CAMPAIGN_NAMES_RETRY, {}
        return now + CAMPAIGN_NAMES_TTL, {c.campaign_uuid: c.campaign_name for c in campaigns}

    async def _maintain(self, now: float) -> None:
        if now - self._last_maintenance < MAINTENANCE_EVERY:
            return
        self._last_maintenance = now
        threads, seen = await off_loop(self._prune, time.time())
        if threads or seen:
            log.info("call feed: forgot %d old thread roots and %d old ids", threads, seen)

    def _prune(self, wall: float) -> tuple[int, int]:
        storage = self._storage
        threads = storage.call_feed.prune_threads(wall - THREAD_RETENTION)
        return threads, storage.dedup.prune(wall - DEDUP_RETENTION)
