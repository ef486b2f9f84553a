"""The anomaly check: once a minute, in one process, this hour's KPIs of every campaign
and mobile network against their usual bands (``commands.digests.anomalies``).

Each minute, per workspace with anomaly alerts:

1. the minute is claimed in the database (``AnomalyStore.claim_check``): of several
   replicas ticking together, and of a tick replayed for the same minute, one checks;
2. the usual levels of today's weekday are learned from the same weekday of the last
   four weeks (``learn_weekday``: ``commands.reports.usual``'s learner and bands), once
   per workspace and local day in this process (they are the same all day);
3. this hour's records so far are folded into KPIs per campaign and network
   (``KpiTally``), one pass;
4. each alert's readings open an episode (one post, its chart in the thread), update it
   in place (``chat.update``), or close it when back in the band (the post says so, and a
   short reply in its thread).  Each of those is claimed in the database too.  An
   episode whose scope has had too few calls to judge for ``QUIET`` (the campaign
   stopped, the night came) is closed as quiet, its post saying so.

A snoozed alert is not checked; its open episodes are closed as snoozed (the post says
so), so that a KPI still out when the snooze ends is told once more, in a new post.

The check is the digests family's job ``digests.anomalies`` (``JOB``), run once a minute
where the scheduler runs, apart from the digests' tick (a day's first learning of the
usual levels never holds up a digest).  It posts through the process's paced outbox
(``JobEnv.outbox``).  The clock is a parameter (``tick(now)``): tests drive it with the
emulator's frozen clock, never the wall's.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections import defaultdict
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from callcenter import CallCenter, errors
from commands.digests import anomalies as rules
from commands.digests.on_hold import tell_failure, tell_recovery, workspace_failure
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
from commands.kernel.periods import Window
from commands.kernel.reply import Reply
from commands.kernel.resolve import all_campaigns
from commands.kernel.text import escape
from commands.reports.chart_blocks import chart_mode, chart_parts
from commands.reports.kpis import KpiTally
from commands.reports.tally import IN_FLIGHT, fold_records
from commands.reports.usual import (
    USUAL_WEEKS,
    Scope,
    UsualLearner,
    UsualLevels,
    campaign_scope,
)
from storage import Alert, Storage, Workspace
from storage.anomalies import Episode
from storage.errors import StorageBusyError
from storage.offload import off_loop

log = logging.getLogger(__name__)

Learn = Callable[[CallCenter, date, ZoneInfo], Awaitable[UsualLevels]]


async def learn_weekday(cc: CallCenter, today: date, tz: ZoneInfo) -> UsualLevels:
    """The usual levels of ``today``'s weekday: the same learner as ``learn_usual`` fed
    only the same weekday of each of the last ``USUAL_WEEKS`` weeks, the only days its
    bands for that weekday are made of, so a seventh of the records is read."""
    learner = UsualLearner(tz)
    gate = asyncio.Semaphore(IN_FLIGHT)
    for weeks in range(1, USUAL_WEEKS + 1):
        day = today - timedelta(weeks=weeks)
        start = datetime.combine(day, time(0, 0), tzinfo=tz)
        low, high = Window(start, start + timedelta(days=1)).service_bounds()
        await fold_records(cc, learner, start_date=low, end_date=high, gate=gate)
    return learner.levels()


@dataclass
class AnomalyReport:
    """What one ``tick`` did; the tests read it."""

    teams: int = 0
    taken: int = 0
    """Workspaces whose minute another process (or an earlier run) had claimed."""
    readings: int = 0
    opened: int = 0
    updated: int = 0
    recovered: int = 0
    snoozed: int = 0
    quiet: int = 0
    """Episodes closed because their scope had too few calls to judge for a while."""
    failed_teams: int = 0


class AnomalyWatch:
    """The anomaly alerts' check on a process's ports; keeps the usual levels it
    learned for the day."""

    def __init__(
        self,
        env: JobEnv,
        *,
        learn: Learn = learn_weekday,
        concurrency: int = 8,
    ) -> None:
        self._env = env
        self._storage: Storage = env.storage
        self._learn = learn
        self._limit = asyncio.Semaphore(concurrency)
        self._levels: dict[str, tuple[date, UsualLevels]] = {}
        """Per workspace, the usual levels of its local day (learned once a day)."""

    async def tick(self, now: datetime) -> AnomalyReport:
        """Check every workspace's anomaly alerts at ``now``."""
        by_team: dict[str, list[Alert]] = defaultdict(list)
        for alert in await off_loop(self._storage.alerts.all):
            if rules.is_anomaly(alert):
                by_team[alert.team_id].append(alert)
        report = AnomalyReport()

        async def bounded(team: str, alerts: list[Alert]) -> None:
            # One workspace's failure holds up nobody else's check.
            async with self._limit:
                try:
                    await self._check_team(team, alerts, now, report)
                except StorageBusyError:
                    report.failed_teams += 1
                    log.warning("anomaly check of team %s: the database is busy", team)
                except Exception:
                    report.failed_teams += 1
                    log.exception("anomaly check of team %s failed", team)

        await asyncio.gather(*(bounded(t, a) for t, a in by_team.items()))
        return report

    async def _check_team(
        self, team: str, alerts: Sequence[Alert], now: datetime, report: AnomalyReport
    ) -> None:
        storage = self._storage
        slot = rules.slot_key(now)
        if not await off_loop(storage.anomalies.claim_check, team, slot):
            report.taken += 1
            return
        report.teams += 1
        tz, workspace, channels = await off_loop(self._team_facts, team)
        stamp = now.timestamp()
        awake = [a for a in alerts if not (a.snoozed_until and a.snoozed_until > stamp)]
        for alert in alerts:
            if alert not in awake:
                readers = for_channel(workspace, alert.language, channels.get(alert.channel))
                report.snoozed += await self._close_snoozed(alert, tz, now, readers)
        if not awake:
            return
        local = now.astimezone(tz)
        hour = local.replace(minute=0, second=0, microsecond=0)
        try:
            cc = await self._env.service(team)
            levels = await self._levels_of(team, cc, local.date(), tz)
            tally = KpiTally(tz)
            low, high = Window(hour, local).service_bounds()
            await fold_records(cc, tally, start_date=low, end_date=high)
            names: dict[Scope, str] = {
                campaign_scope(c.campaign_uuid): c.campaign_name for c in await all_campaigns(cc)
            }
        except (errors.CallCenterError, NotConnectedError) as exc:
            report.failed_teams += 1
            if workspace_failure(exc):
                await tell_failure(storage, self._env.outbox, team, awake[0].channel, exc)
            else:
                log.warning("anomaly check of team %s: %s", team, exc)
            return
        await off_loop(tell_recovery, storage, team)
        campaigns, networks = tally.campaign_counts(), tally.network_counts()
        for alert in awake:
            readers = for_channel(workspace, alert.language, channels.get(alert.channel))
            scopes = rules.scopes_of(alert, campaigns, networks)
            readings = rules.read_scopes(
                alert.metric, scopes, names, levels, local.weekday(), local.hour
            )
            report.readings += len(readings)
            episodes = {
                (e.scope_kind, e.scope_key): e
                for e in await off_loop(storage.anomalies.open_of, team, alert.id)
                if e.kpi == alert.metric
            }
            read = {(r.scope.kind, r.scope.key) for r in readings}
            for key, lasting in episodes.items():
                if key not in read and now - rules.slot_time(lasting.checked_slot) > rules.QUIET:
                    report.quiet += await self._close_quiet(alert, lasting, tz, now, readers)
            for reading in readings:
                episode = episodes.get((reading.scope.kind, reading.scope.key))
                context = _Check(alert, reading, tz, now, hour, slot, readers, workspace)
                if episode is None:
                    if reading.outside and await self._open(context, cc, levels):
                        report.opened += 1
                elif reading.inside:
                    if await self._recover(context, episode):
                        report.recovered += 1
                elif await self._update(context, episode):
                    report.updated += 1

    def _team_facts(self, team: str) -> tuple[ZoneInfo, Workspace | None, dict[str, str]]:
        workspace = self._storage.workspaces.get(team)
        return self._env.zone(workspace), workspace, self._storage.channel_languages.all(team)

    async def _levels_of(self, team: str, cc: CallCenter, today: date, tz: ZoneInfo) -> UsualLevels:
        kept = self._levels.get(team)
        if kept is not None and kept[0] == today:
            return kept[1]
        levels = await self._learn(cc, today, tz)
        self._levels[team] = (today, levels)
        return levels

    # --- one episode --------------------------------------------------------------------

    async def _open(self, check: _Check, cc: CallCenter, levels: UsualLevels) -> bool:
        storage = self._storage
        alert, reading = check.alert, check.reading
        episode = await off_loop(
            lambda: storage.anomalies.open(
                alert.team_id,
                alert.id,
                scope_kind=reading.scope.kind,
                scope_key=reading.scope.key,
                scope_name=reading.name,
                kpi=reading.kpi,
                value=reading.value,
                usual=reading.band.value,
                low=reading.band.low,
                high=reading.band.high,
                calls=reading.calls,
                slot=check.slot,
                at=check.now.timestamp(),
            )
        )
        if episode is None:
            return False  # another process opened it
        with use_audience(check.readers):
            message = rules.episode_reply(alert, episode, check.tz, check.now, check.hour)
        try:
            ts = await self._post(alert.team_id, alert.channel, message)
        except SlackRefused as exc:
            # Not told is not opened: the next minute tries again.
            await off_loop(storage.anomalies.forget, alert.team_id, episode.id)
            log.warning("anomaly alert %s (team %s): %s", alert.id, alert.team_id, exc.error)
            return False
        await off_loop(
            lambda: storage.anomalies.attach(
                alert.team_id, episode.id, channel=alert.channel, ts=ts
            )
        )
        await self._chart(check, cc, levels, replace(episode, channel=alert.channel), ts)
        return True

    async def _chart(
        self, check: _Check, cc: CallCenter, levels: UsualLevels, episode: Episode, ts: str
    ) -> None:
        """Today's hours of the KPI against its band, in the episode's thread; a chart
        that cannot be drawn or uploaded leaves the post standing."""
        alert = check.alert
        try:
            hours = rules.ScopeHours(check.tz)
            low, high = Window(check.hour.replace(hour=0), check.now).service_bounds()
            if episode.scope_kind == "campaign":
                await fold_records(
                    cc, hours, start_date=low, end_date=high, campaign_uuid=episode.scope_key
                )
            else:
                await fold_records(cc, hours, start_date=low, end_date=high)
            with use_audience(check.readers):
                spec = rules.chart_spec(
                    episode,
                    hours.of(check.reading.scope),
                    levels,
                    check.hour.weekday(),
                    check.hour.hour,
                )
                if spec is None:
                    return
                parts = await chart_parts(spec, chart_mode(check.workspace))
            if parts.png is None:  # Slack draws it: the chart is a reply in the thread
                await self._post(
                    alert.team_id,
                    alert.channel,
                    Reply(text=escape(parts.title), blocks=parts.blocks, ephemeral=False),
                    thread_ts=ts,
                )
                return
            await self._env.outbox.upload(
                alert.team_id, alert.channel, content=parts.png, filename=parts.filename,
                title=parts.title, thread_ts=ts,
            )  # fmt: skip
        except (errors.CallCenterError, SlackRefused) as exc:
            log.warning("anomaly chart of alert %s (team %s): %s", alert.id, alert.team_id, exc)

    async def _touch(self, check: _Check, episode: Episode) -> Episode | None:
        """The episode with this minute's reading noted (None if it is closed)."""
        reading = check.reading
        return await off_loop(
            lambda: self._storage.anomalies.touch(
                episode.team_id,
                episode.id,
                slot=check.slot,
                value=reading.value,
                usual=reading.band.value,
                low=reading.band.low,
                high=reading.band.high,
                calls=reading.calls,
            )
        )

    async def _update(self, check: _Check, episode: Episode) -> bool:
        touched = await self._touch(check, episode)
        if touched is None or touched.message_ts is None:
            return False
        with use_audience(check.readers):
            message = rules.episode_reply(check.alert, touched, check.tz, check.now, check.hour)
        return await self._rewrite(touched, message)

    async def _recover(self, check: _Check, episode: Episode) -> bool:
        storage = self._storage
        await self._touch(check, episode)
        closed = await off_loop(storage.anomalies.close, episode.team_id, episode.id, "recovered")
        if closed is None:
            return False
        with use_audience(check.readers):
            message = rules.closed_reply(check.alert, closed, check.tz, check.now)
            note = rules.recovered_note(closed)
        await self._rewrite(closed, message)
        if closed.message_ts:
            try:
                await self._post(
                    closed.team_id,
                    closed.channel or check.alert.channel,
                    note,
                    thread_ts=closed.message_ts,
                )
            except SlackRefused as exc:
                log.warning("anomaly recovery of alert %s: %s", check.alert.id, exc.error)
        return True

    async def _close_snoozed(
        self, alert: Alert, tz: ZoneInfo, now: datetime, readers: Audience
    ) -> int:
        closed_count = 0
        for episode in await off_loop(self._storage.anomalies.open_of, alert.team_id, alert.id):
            closed = await off_loop(
                self._storage.anomalies.close, alert.team_id, episode.id, "snoozed"
            )
            if closed is None:
                continue
            closed_count += 1
            with use_audience(readers):
                message = rules.closed_reply(alert, closed, tz, now)
            await self._rewrite(closed, message)
        return closed_count

    async def _close_quiet(
        self, alert: Alert, episode: Episode, tz: ZoneInfo, now: datetime, readers: Audience
    ) -> int:
        closed = await off_loop(self._storage.anomalies.close, alert.team_id, episode.id, "quiet")
        if closed is None:
            return 0
        with use_audience(readers):
            message = rules.closed_reply(alert, closed, tz, now)
        await self._rewrite(closed, message)
        return 1

    async def _rewrite(self, episode: Episode, message: Reply) -> bool:
        """``chat.update`` of the episode's post; a refusal is logged, not retried."""
        if not episode.channel or not episode.message_ts:
            return False
        try:
            await self._env.outbox.update(
                episode.team_id, episode.channel, episode.message_ts, message
            )
        except SlackRefused as exc:
            log.warning("anomaly post %s: %s", episode.id, exc.error)
            return False
        return True

    async def _post(
        self, team: str, channel: str, message: Reply, *, thread_ts: str | None = None
    ) -> str:
        """Post as the bot at the channel's pace; raises ``SlackRefused``."""
        return await self._env.outbox.post(
            team, channel, message, thread_ts=thread_ts, burst=ALERT_BURST
        )


@dataclass(frozen=True)
class _Check:
    """One reading being acted on, with what its posts are written for."""

    alert: Alert
    reading: rules.Reading
    tz: ZoneInfo
    now: datetime
    hour: datetime
    slot: str
    readers: Audience
    workspace: Workspace | None


_WATCHES: weakref.WeakKeyDictionary[JobEnv, AnomalyWatch] = weakref.WeakKeyDictionary()
"""One watch per process's ports, so the usual levels are learned once a day there."""


def watch_of(env: JobEnv) -> AnomalyWatch:
    """The anomaly watch of the process whose ports ``env`` are."""
    watch = _WATCHES.get(env)
    if watch is None:
        watch = _WATCHES[env] = AnomalyWatch(env)
    return watch


async def check_minute(env: JobEnv) -> AnomalyReport:
    """This minute's check, at the clock's now (the minute is claimed per workspace, so
    a round that runs twice in a minute, or on two replicas, checks once)."""
    return await watch_of(env).tick(datetime.now(UTC))


JOB = Job(
    name="digests.anomalies",
    run=check_minute,
    every=MINUTE,
    probe=SCHEDULER_PROBE,
    where=SCHEDULER,
    alone=True,  # a day's first learning of the bands holds up no other job
)
