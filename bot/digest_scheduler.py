"""The digest scheduler: every minute, post the digests that fell due; the alerts' and
the anomalies' checks (``commands/digests/alert_watch.py``, ``anomaly_watch.py``) and the
calling rules' watch (``commands/rules/watch_jobs.py``) are their families' jobs.

APScheduler's ``AsyncIOScheduler`` runs one job in the app's event loop, once a minute
(``coalesce=True``, a misfire grace time, one instance at a time), and that job calls
``run_due(now)``.  Tests call it directly with any ``now``: the clock is a parameter,
so a DST change or a restart is a value, not a wait.

Which slot is due is decided from storage and the schedule alone, never from memory:

* a digest's slot is the latest fire time of its ``CronTrigger`` (in the digest's time
  zone) at or before ``now``; missed slots before it are coalesced into it;
* it is due if it is later than the digest's last change (so a new or resumed digest does
  not post a slot from before it existed), not older than ``misfire_grace``, and not yet
  claimed;
* it runs only after ``claim_slot`` succeeded, an atomic insert in SQLite, so a restarted
  process, or a second scheduler started by mistake, never posts the same slot again.

A slot claimed by a process that died before it recorded the post (``kill -9`` between
the claim and ``finish_slot``) is neither lost nor posted twice: once the claim is older
than a digest could take, one scheduler takes it over (``reclaim_slot``), looks for the
digest's message metadata in the channel, and records the post it finds, or posts it
(the latest slot only: a slot a later one replaced is recorded as interrupted).

The table of digests is rebuilt from storage at start, on every tick (another process may
have changed it) and at once when a command here adds, removes, pauses or resumes one.

Fan-out: all due digests of all workspaces run concurrently, at most ``concurrency`` at a
time, each within ``digest_timeout``.  A workspace whose service fails gets one notice
(``DigestPoster.tell_failure``) and holds up nobody else.

It needs the database and the poster, nothing else: what a schedule means (its trigger,
its slots) and whether a failure holds up the whole workspace, it asks the poster, which
asks the digests family's declaration (``Registry.digests``); it names no family.
Whoever serves calls ``start`` and ``stop`` (``bot.server``, or ``callops scheduler`` in
``bot.cli_app``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger

from bot import logs
from bot.digest_post import DigestPoster
from commands.kernel.context import DigestPostError
from storage import DigestSchedule, Storage
from storage.errors import StorageBusyError
from storage.feed_pruning import PRUNE_EVERY, Pruned
from storage.offload import off_loop

log = logging.getLogger(__name__)

DEFAULT_CONCURRENCY = 50
DEFAULT_MISFIRE_GRACE = timedelta(hours=6)
"""A slot missed by up to this much (a restart, a long deploy) is still posted, once."""
DEFAULT_DIGEST_TIMEOUT = 120.0
CLAIM_MARGIN = 60.0
"""Seconds past the digest timeout after which an unfinished claim has no live process."""
TICK_JOB = "callops-tick"
PRUNE_JOB = "callops-prune"


@dataclass
class TickReport:
    """What one ``run_due`` did; the benchmark and the tests read it."""

    due: int = 0
    posted: int = 0
    failed: int = 0
    taken: int = 0
    """Slots another scheduler claimed first."""
    recovered: int = 0
    """Slots a stopped process left claimed and unfinished, settled in this tick."""
    peak_concurrency: int = 0
    outcomes: dict[str, str] = field(default_factory=dict)
    """Digest id -> ``posted``, ``failed: <why>`` or ``taken``."""


class DigestScheduler:
    def __init__(
        self,
        storage: Storage,
        poster: DigestPoster,
        *,
        concurrency: int = DEFAULT_CONCURRENCY,
        misfire_grace: timedelta = DEFAULT_MISFIRE_GRACE,
        digest_timeout: float = DEFAULT_DIGEST_TIMEOUT,
        clock: Callable[[], datetime] | None = None,
    ) -> None:
        self._storage = storage
        self.poster = poster
        self._limit = asyncio.Semaphore(concurrency)
        self._grace = misfire_grace
        self._timeout = digest_timeout
        self._clock = clock or (lambda: datetime.now(UTC))
        self._table: dict[str, tuple[DigestSchedule, CronTrigger]] = {}
        self._triggers: dict[tuple[str, str], CronTrigger] = {}
        self._candidates: dict[tuple[str, str, str, float, str | None], datetime | None] = {}
        self._aps: AsyncIOScheduler | None = None
        self._ticks: set[asyncio.Task[Any]] = set()
        self._inflight = 0
        self._peak = 0

    # --- lifecycle ----------------------------------------------------------------------

    def start(self) -> None:
        """Run in the current event loop: a tick now (to catch a slot missed while down;
        it reads the digests), then one at the start of every minute."""
        scheduler = AsyncIOScheduler(timezone=UTC)
        scheduler.add_job(
            self._tick,
            CronTrigger(second=0, timezone=UTC),
            id=TICK_JOB,
            coalesce=True,
            misfire_grace_time=50,
            max_instances=1,
            next_run_time=self._clock(),
        )
        scheduler.add_job(
            self.prune,
            IntervalTrigger(seconds=PRUNE_EVERY, timezone=UTC),
            id=PRUNE_JOB,
            coalesce=True,
            max_instances=1,
        )
        scheduler.start()
        self._aps = scheduler
        log.info("scheduler started")

    async def stop(self) -> None:
        if self._aps is not None:
            self._aps.shutdown(wait=False)
            self._aps = None
        if self._ticks:
            _, pending = await asyncio.wait(set(self._ticks), timeout=10)
            for task in pending:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.gather(*pending, return_exceptions=True)

    @property
    def running(self) -> bool:
        return self._aps is not None and bool(self._aps.running)

    def has_job(self, job_id: str) -> bool:
        """Whether the running scheduler has this job (the tick, the prune)."""
        return self._aps is not None and self._aps.get_job(job_id) is not None

    async def prune(self) -> Pruned | None:
        """Forget what the call feed keeps per call record once it is no longer needed
        (``storage.feed_pruning``); one scheduler runs it, every ``PRUNE_EVERY``."""
        try:
            pruned = await off_loop(self._storage.feed_pruning.prune)
        except StorageBusyError:
            log.warning("prune: the database is busy; the next run catches up")
            return None
        except Exception:
            log.exception("prune failed")
            return None
        if pruned.total:
            log.info(
                "pruned %d callback ids, %d event ids, %d folds, %d thread roots",
                pruned.callback_ids,
                pruned.event_ids,
                pruned.folds,
                pruned.threads,
            )
        return pruned

    async def _tick(self) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._ticks.add(task)
        try:
            logs.begin(name="scheduler")  # this tick's log lines, one correlation id
            now = self._clock()
            report = await self.run_due(now)
            if report.due or report.recovered:
                # One line per tick that had work: an operator who started a second
                # scheduler by mistake sees its slots "taken by another scheduler".
                log.info(
                    "scheduler tick %s: %d due, %d posted, %d failed, "
                    "%d taken by another scheduler, %d recovered",
                    now.strftime("%H:%M"),
                    report.due,
                    report.posted,
                    report.failed,
                    report.taken,
                    report.recovered,
                )
        except StorageBusyError:
            # Another process holds the write lock; the next tick catches up (slots are
            # claimed in the database, so nothing runs twice).
            log.warning("scheduler tick: the database is busy; the next tick catches up")
        except Exception:
            log.exception("scheduler tick failed")
        except asyncio.CancelledError:
            # ``stop`` gave the tick its grace and cut it: a stop, not a failure (the
            # slots it held are claimed in the database and taken up after the restart).
            log.info("scheduler tick cut short by the stop")
        finally:
            if task is not None:
                self._ticks.discard(task)

    # --- the table of digests -----------------------------------------------------------

    async def reload(self) -> None:
        """Rebuild the digest table from storage (every team, paused ones left out; none
        in an app without digests)."""
        if not self.poster.schedules:
            self._set_table([])
            return
        self._set_table(await off_loop(self._storage.digests.active))

    def _set_table(self, digests: list[DigestSchedule]) -> None:
        table: dict[str, tuple[DigestSchedule, CronTrigger]] = {}
        for digest in digests:
            trigger = self._trigger(digest)
            if trigger is not None:
                table[digest.id] = (digest, trigger)
        self._table = table
        live = {
            (d.id, d.schedule, d.timezone, d.updated_at, d.last_slot) for d, _ in table.values()
        }
        self._candidates = {k: v for k, v in self._candidates.items() if k in live}

    def _trigger(self, digest: DigestSchedule) -> CronTrigger | None:
        key = (digest.schedule, digest.timezone)
        trigger = self._triggers.get(key)
        if trigger is None:
            try:
                trigger = self.poster.trigger(digest)
            except ValueError as exc:
                log.warning("digest %s has an unreadable schedule: %s", digest.id, exc)
                return None
            self._triggers[key] = trigger
        return trigger

    def _first_candidate(self, digest: DigestSchedule, trigger: CronTrigger) -> datetime | None:
        """The earliest slot ``digest`` may still post: the first fire time after both its
        last change and its last claimed slot.  Cached, so a tick where nothing is due costs
        one comparison per digest, not a walk over fire times."""
        key = (digest.id, digest.schedule, digest.timezone, digest.updated_at, digest.last_slot)
        if key in self._candidates:
            return self._candidates[key]
        after = datetime.fromtimestamp(digest.updated_at, UTC)
        if digest.last_slot is not None:
            claimed = datetime.strptime(digest.last_slot, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
            after = max(after, claimed + timedelta(seconds=1))
        zone = ZoneInfo(digest.timezone)
        found: datetime | None = trigger.get_next_fire_time(None, after.astimezone(zone))
        self._candidates[key] = found
        return found

    def due(self, now: datetime) -> list[tuple[DigestSchedule, datetime]]:
        """The digests with a slot to post at ``now``, each with that slot."""
        found: list[tuple[DigestSchedule, datetime]] = []
        for digest, trigger in self._table.values():
            candidate = self._first_candidate(digest, trigger)
            if candidate is None or candidate > now:
                continue
            slot = self.poster.latest_slot(trigger, now.astimezone(ZoneInfo(digest.timezone)))
            if slot is None or slot.timestamp() < digest.updated_at:
                continue
            if now - slot > self._grace:
                continue
            if digest.last_slot is not None and digest.last_slot >= self.poster.slot_key(slot):
                continue
            found.append((digest, slot))
        return found

    # --- digests ------------------------------------------------------------------------

    async def run_due(self, now: datetime | None = None) -> TickReport:
        """Post every digest due at ``now`` (default: the clock), concurrently and bounded."""
        moment = now or self._clock()
        await self.reload()
        recovered = await self.recover_claims(moment)
        due = self.due(moment)
        report = TickReport(due=len(due), recovered=recovered)
        self._peak = 0
        results = await asyncio.gather(*(self._run_slot(d, slot) for d, slot in due))
        for (digest, _), outcome in zip(due, results, strict=True):
            report.outcomes[digest.id] = outcome
            if outcome == "posted":
                report.posted += 1
            elif outcome == "taken":
                report.taken += 1
            else:
                report.failed += 1
        report.peak_concurrency = self._peak
        return report

    async def _run_slot(self, digest: DigestSchedule, slot: datetime) -> str:
        async with self._limit:
            self._inflight += 1
            self._peak = max(self._peak, self._inflight)
            try:
                return await self._post_slot(digest, slot)
            finally:
                self._inflight -= 1

    async def _post_slot(self, digest: DigestSchedule, slot: datetime) -> str:
        storage = self._storage
        key = self.poster.slot_key(slot)
        if not await off_loop(storage.digests.claim_slot, digest.team_id, digest.id, key):
            return "taken"
        return await self._post_claimed(digest, slot, key)

    async def recover_claims(self, now: datetime) -> int:
        """Settle the slots stopped processes left claimed and unfinished; returns how many."""
        storage = self._storage
        cutoff = storage.clock() - (self._timeout + CLAIM_MARGIN)
        settled = 0
        for team_id, run in await off_loop(storage.digests.unfinished, claimed_before=cutoff):
            digest = await off_loop(storage.digests.get, team_id, run.digest_id)
            if digest is None or not await off_loop(
                storage.digests.reclaim_slot, team_id, run.digest_id, run.slot, cutoff
            ):
                continue  # removed meanwhile, or another scheduler took it over
            settled += 1
            try:
                found = await self.poster.find_posted(
                    team_id, digest.channel, digest.id, run.slot, since=run.claimed_at
                )
            except DigestPostError as exc:
                log.warning("digest %s: cannot look for slot %s (%s)", digest.id, run.slot, exc)
                found = None
            if found is not None:
                await off_loop(
                    storage.digests.finish_slot,
                    team_id,
                    digest.id,
                    run.slot,
                    outcome="posted",
                    detail=f"{found} (found)",
                )
                log.info("digest %s slot %s was posted before a restart", digest.id, run.slot)
                continue
            slot = datetime.strptime(run.slot, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
            latest = digest.last_slot is None or digest.last_slot <= run.slot
            if not latest or now - slot > self._grace:
                await off_loop(
                    storage.digests.finish_slot,
                    team_id,
                    digest.id,
                    run.slot,
                    outcome="failed",
                    detail="interrupted by a restart; a later slot replaced it",
                )
                continue
            await self._post_claimed(digest, slot, run.slot)
        return settled

    async def _post_claimed(self, digest: DigestSchedule, slot: datetime, key: str) -> str:
        logs.begin(team=digest.team_id, name="digest")  # one slot is one job
        try:
            async with asyncio.timeout(self._timeout):
                posted = await self.poster.post(digest, slot)
        except Exception as exc:
            return await self._slot_failed(digest, key, exc)
        await off_loop(self.poster.tell_recovery, digest.team_id)
        charted = posted.chart_uploaded or posted.chart_inline
        detail = posted.ts if charted else f"{posted.ts} (no chart)"
        await off_loop(
            self._storage.digests.finish_slot,
            digest.team_id,
            digest.id,
            key,
            outcome="posted",
            detail=detail,
        )
        return "posted"

    async def _slot_failed(self, digest: DigestSchedule, key: str, exc: BaseException) -> str:
        storage = self._storage
        if await self.poster.held_up(digest.team_id, digest.channel, exc):
            why = type(exc).__name__
        elif isinstance(exc, DigestPostError):
            why = str(exc)
            log.warning("digest %s (team %s): %s", digest.id, digest.team_id, why)
        elif isinstance(exc, TimeoutError):
            why = f"took longer than {self._timeout:.0f}s"
            log.warning("digest %s (team %s) timed out", digest.id, digest.team_id)
        else:
            why = type(exc).__name__
            log.error("digest %s (team %s) failed", digest.id, digest.team_id, exc_info=exc)
        await off_loop(
            storage.digests.finish_slot,
            digest.team_id,
            digest.id,
            key,
            outcome="failed",
            detail=why,
        )
        return f"failed: {why}"
