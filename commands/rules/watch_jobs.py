"""Once a minute, for each workspace with a rules channel or enforcing the hours: pause
or start campaigns as the calling hours close and open, read the service's new call
records, judge the ones noted (by callback or listing) and post each breach once.

The family's jobs (``JOBS``, in ``Family.jobs``) run where the scheduler runs, one
process in a deployment: the minute's work (``tick``) and, every 15 seconds, the quick
pass over the records callbacks noted (``judge_noted``).  Tests call them directly with
any ``now``, on as many runtimes as they like: everything done once is claimed in the
database first (a minute's reading of the records, a record's judging, a pause or start),
so replicas never do it twice.

What counts as a breach, the messages and the enforcing are in ``watch.py`` and
``enforce.py``; this module only drives them and posts, through the process's paced
outbox (``JobEnv.outbox``).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from callcenter import CallCenter
from callcenter.errors import CallCenterError
from callcenter.models import Campaign
from commands.kernel.audiences import for_channel
from commands.kernel.context import NotConnectedError
from commands.kernel.i18n import Audience, use_audience
from commands.kernel.jobs import (
    ALERT_BURST,
    MINUTE,
    SCHEDULER,
    SCHEDULER_PROBE,
    Job,
    JobEnv,
    SlackRefused,
)
from commands.kernel.periods import to_service
from commands.kernel.reply import Reply
from commands.kernel.resolve import all_campaigns
from commands.rules.enforce import announcement, enforce_hours
from commands.rules.watch import Breach, breach_message, breaches_summary, judge, noted
from storage.calling_rules import CallingRules
from storage.offload import off_loop
from storage.rule_watch import NotedRecord, WatchSettings

log = logging.getLogger(__name__)

READ_BACK = timedelta(minutes=5)
"""How far before the last reading the listing is read again (a record may be written a
little after its call ended)."""
FIRST_READ = timedelta(minutes=15)
"""How far back the first reading of a newly watched workspace goes."""
CONCURRENCY = 20
POSTS_PER_PASS = 5
"""Breaches of one workspace posted one by one in a pass; the rest go in one message."""
JUDGE_SECONDS = 15.0
"""How often the call records callbacks brought are judged against the calling rules."""
BREACH_EVENT = "callops_rule_breach"
"""The message metadata ``event_type`` of a breach post; its payload names ``record_id``."""


@dataclass
class WatchReport:
    """What one tick did; the tests read it."""

    teams: int = 0
    listed: int = 0
    judged: int = 0
    posted: int = 0
    """Breaches posted one by one."""
    summarized: int = 0
    """Breaches beyond ``POSTS_PER_PASS`` in one pass, said together in one message."""
    switched: list[str] = field(default_factory=list)
    """``pause <campaign uuid>`` / ``start <campaign uuid>``, as done by this process."""


class RuleWatch:
    """The calling rules' watch of every workspace with a rules channel or enforcing;
    posts through the process's paced outbox."""

    def __init__(
        self,
        env: JobEnv,
        *,
        clock: Callable[[], datetime] | None = None,
        limit: asyncio.Semaphore | None = None,
    ) -> None:
        """``limit``: the bound on teams worked at once, shared with the other pass."""
        self._env = env
        self._storage = env.storage
        self._clock = clock or (lambda: datetime.now(UTC))
        self._limit = limit or asyncio.Semaphore(CONCURRENCY)

    async def tick(self, now: datetime | None = None) -> WatchReport:
        """The minute's work at ``now`` (default: the clock) for every watched workspace,
        concurrently and bounded: enforce the hours, read the records, judge, post."""
        moment = now or self._clock()
        report = WatchReport()
        watched = await off_loop(self._storage.rule_watch.watched)
        report.teams = len(watched)
        await asyncio.gather(*(self._bounded(s, moment, report) for s in watched))
        return report

    async def judge_noted(self) -> WatchReport:
        """Judge the records callbacks noted since the last pass (run every few seconds,
        so a callback's breach is posted well within the minute); the listing and the
        enforcing stay with ``tick``."""
        report = WatchReport()
        watched = [s for s in await off_loop(self._storage.rule_watch.watched) if s.channel]
        report.teams = len(watched)
        await asyncio.gather(*(self._bounded(s, None, report) for s in watched))
        return report

    async def _bounded(
        self, settings: WatchSettings, now: datetime | None, report: WatchReport
    ) -> None:
        """One team's work (its minute, or with no ``now`` only its noted records); a
        team whose service fails holds up nobody else."""
        async with self._limit:
            try:
                if now is None:
                    await self._judge_only(settings, report)
                else:
                    await self._team(settings, now, report)
            except (CallCenterError, NotConnectedError) as exc:
                log.warning("rule watch of team %s: %s", settings.team_id, type(exc).__name__)
            except Exception:
                log.exception("rule watch of team %s failed", settings.team_id)

    async def _judge_only(self, settings: WatchSettings, report: WatchReport) -> None:
        storage, team = self._storage, settings.team_id
        if settings.channel is None or not await off_loop(storage.rule_watch.has_new, team):
            return
        cc = await self._env.service(team)
        rules = await off_loop(storage.calling_rules.rules, team)
        workspace = await off_loop(storage.workspaces.get, team)
        campaigns = await all_campaigns(cc)
        await self._judge(
            cc, settings.channel, team, rules, campaigns, for_channel(workspace), report
        )

    async def _team(self, settings: WatchSettings, now: datetime, report: WatchReport) -> None:
        storage, team = self._storage, settings.team_id
        cc = await self._env.service(team)
        rules = await off_loop(storage.calling_rules.rules, team)
        workspace = await off_loop(storage.workspaces.get, team)
        readers = for_channel(workspace)
        campaigns = await all_campaigns(cc)
        if settings.enforce:
            for switch in await enforce_hours(cc, storage, team, rules, campaigns, now):
                report.switched.append(f"{switch.action} {switch.campaign.campaign_uuid}")
                if settings.channel:
                    with use_audience(readers):
                        message = announcement(switch)
                    await self._post(team, settings.channel, message)
        if settings.channel:
            report.listed += await self._read_listing(cc, settings, now)
            await self._judge(cc, settings.channel, team, rules, campaigns, readers, report)
            await off_loop(storage.rule_watch.prune, team)

    async def _read_listing(self, cc: CallCenter, settings: WatchSettings, now: datetime) -> int:
        """Note the outbound records that ended since the last reading (once a minute for
        all replicas); how many were new."""
        storage, team = self._storage, settings.team_id
        minute = now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M")
        if not await off_loop(storage.rule_watch.claim_slot, team, "", "list", minute):
            return 0
        since = (
            datetime.fromtimestamp(settings.listed_until, UTC) - READ_BACK
            if settings.listed_until is not None
            else now - FIRST_READ
        )
        found = []
        async for record in cc.cdrs.iterate(
            direction="outbound", start_date_ended=to_service(since), page_size=200
        ):
            fact = noted(record)
            if fact is not None:
                found.append(fact)
        added = await off_loop(storage.rule_watch.note, team, found)
        await off_loop(storage.rule_watch.listed, team, now.timestamp())
        return int(added)

    async def _judge(
        self,
        cc: CallCenter,
        channel: str,
        team: str,
        rules: CallingRules,
        campaigns: list[Campaign],
        readers: Audience,
        report: WatchReport,
    ) -> None:
        storage = self._storage
        by_uuid = {c.campaign_uuid: c for c in campaigns}
        breaches: list[Breach] = []
        for record in await off_loop(storage.rule_watch.claim_new, team):
            report.judged += 1
            breach = await judge(cc, storage, team, record, by_uuid, rules)
            if breach is None:
                await off_loop(storage.rule_watch.settle, team, record.record_id, ())
            else:
                breaches.append(breach)
        for breach in breaches[:POSTS_PER_PASS]:
            record = breach.record
            ts = None
            if record.claimed_before is not None:  # its claimer stopped: did it post?
                ts = await self._find_posted(team, channel, record)
            if ts is None:
                with use_audience(readers):
                    message = breach_message(breach)
                ts = await self._post(team, channel, message, record.record_id)
                if ts is not None:
                    report.posted += 1
            await off_loop(
                storage.rule_watch.settle, team, record.record_id, breach.rules, posted_ts=ts
            )
        rest = breaches[POSTS_PER_PASS:]
        if rest:
            # A campaign dialing out of hours makes hundreds: one message says the rest.
            with use_audience(readers):
                message = breaches_summary(rest)
            ts = await self._post(team, channel, message)
            report.summarized += len(rest)
            for breach in rest:
                await off_loop(
                    storage.rule_watch.settle,
                    team,
                    breach.record.record_id,
                    breach.rules,
                    posted_ts=ts,
                )

    async def _post(
        self, team: str, channel: str, message: Reply, record_id: str | None = None
    ) -> str | None:
        """Post in the rules channel; a breach's post names its record in its metadata,
        so a process taking over an unfinished claim can find it instead of posting it
        again."""
        metadata = (
            {"event_type": BREACH_EVENT, "event_payload": {"record_id": record_id}}
            if record_id
            else None
        )
        try:
            return await self._env.outbox.post(
                team, channel, message, metadata=metadata, burst=ALERT_BURST
            )
        except SlackRefused as exc:
            log.warning("rule watch of team %s: could not post (%s)", team, exc.error)
            return None

    async def _find_posted(self, team: str, channel: str, record: NotedRecord) -> str | None:
        """The ts of the breach post of ``record`` if a stopped process made it."""
        outbox = self._env.outbox
        if record.claimed_before is None or not await outbox.reachable(team):
            return None
        try:
            async for message in outbox.history(team, channel, since=record.claimed_before):
                meta = message["metadata"]
                payload = meta.get("event_payload") or {}
                if meta.get("event_type") == BREACH_EVENT and (
                    payload.get("record_id") == record.record_id
                ):
                    return str(message["ts"])
        except SlackRefused as exc:
            log.warning("rule watch of team %s: cannot read the channel (%s)", team, exc.error)
        return None


_LIMITS: weakref.WeakKeyDictionary[JobEnv, asyncio.Semaphore] = weakref.WeakKeyDictionary()
"""One bound per process's ports: the minute's work and the quick pass together work on
at most ``CONCURRENCY`` teams at once."""


def _watch(env: JobEnv) -> RuleWatch:
    limit = _LIMITS.get(env)
    if limit is None:
        limit = _LIMITS[env] = asyncio.Semaphore(CONCURRENCY)
    return RuleWatch(env, limit=limit)


async def watch_minute(env: JobEnv) -> WatchReport:
    """The minute's work at the clock's now."""
    return await _watch(env).tick()


async def judge_noted(env: JobEnv) -> WatchReport:
    """The quick pass over the records callbacks noted."""
    return await _watch(env).judge_noted()


JOBS = (
    Job(name="rules.watch", run=watch_minute, every=MINUTE, probe=SCHEDULER_PROBE, where=SCHEDULER),
    Job(
        name="rules.judge",
        run=judge_noted,
        every=JUDGE_SECONDS,
        probe=SCHEDULER_PROBE,
        where=SCHEDULER,
    ),
)
