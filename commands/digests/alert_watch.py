"""The threshold alerts' check: once a minute, where the scheduler runs, every
workspace's alerts against its autodialer statistics (``commands.reports.figures``).

An alert fires once when its line is crossed (``mark_fired`` claims it in the database,
so of several replicas one posts) and recovers once when the figure is back, the
recovery told in the thread of the post that fired it.  A post Slack refused is not a
firing: the alert is re-armed and the next minute tries again.  A snoozed alert is not
checked.  A workspace whose service fails gets the one notice of ``on_hold`` and holds
up nobody else.  Anomaly alerts are ``anomaly_watch``'s.

It is the digests family's job ``digests.alerts`` (``JOB``), posting through the
process's paced outbox (``JobEnv.outbox``); tests call ``AlertWatch(env).tick(now)``
with any ``now``.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from callcenter import errors
from commands.digests import alerts as alert_rules
from commands.digests.anomalies import is_anomaly
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
from commands.kernel.reply import Reply
from commands.reports.figures import DialerFigures, dialer_figures
from storage import Alert, Workspace
from storage.offload import off_loop

log = logging.getLogger(__name__)

CONCURRENCY = 50
"""Workspaces checked at once."""


@dataclass
class AlertReport:
    """What one ``tick`` did; the tests read it."""

    checked: int = 0
    fired: int = 0
    recovered: int = 0
    failed_teams: int = 0


class AlertWatch:
    """The threshold alerts' check on a process's ports."""

    def __init__(self, env: JobEnv, *, concurrency: int = CONCURRENCY) -> None:
        self._env = env
        self._storage = env.storage
        self._limit = asyncio.Semaphore(concurrency)

    async def tick(self, now: datetime | None = None) -> AlertReport:
        """Check every workspace's alerts at ``now`` (default: the clock)."""
        moment = now or datetime.now(UTC)
        by_team: dict[str, list[Alert]] = defaultdict(list)
        for alert in await off_loop(self._storage.alerts.all):
            if not is_anomaly(alert):  # those are the anomaly watch's
                by_team[alert.team_id].append(alert)
        report = AlertReport()
        await asyncio.gather(
            *(self._bounded(team, alerts, moment, report) for team, alerts in by_team.items())
        )
        return report

    async def _bounded(
        self, team_id: str, alerts: Sequence[Alert], now: datetime, report: AlertReport
    ) -> None:
        async with self._limit:
            await self._check_team(team_id, alerts, now, report)

    async def _check_team(
        self, team_id: str, alerts: Sequence[Alert], now: datetime, report: AlertReport
    ) -> None:
        storage = self._storage
        stamp = now.timestamp()
        awake = [a for a in alerts if not (a.snoozed_until and a.snoozed_until > stamp)]
        if not awake:
            return
        windows = sorted({a.window_minutes for a in awake})
        tz, workspace = await off_loop(self._zone_and_workspace, team_id)
        channels = await off_loop(storage.channel_languages.all, team_id)
        try:
            cc = await self._env.service(team_id)
            fetched = await asyncio.gather(*(dialer_figures(cc, w, at=now, tz=tz) for w in windows))
        except (errors.CallCenterError, NotConnectedError) as exc:
            report.failed_teams += 1
            if workspace_failure(exc):
                await tell_failure(storage, self._env.outbox, team_id, awake[0].channel, exc)
            else:
                log.warning("alerts of team %s: %s", team_id, exc)
            return
        await off_loop(tell_recovery, storage, team_id)
        stats = dict(zip(windows, fetched, strict=True))
        for alert in awake:
            for item in alert_rules.watched(alert, stats[alert.window_minutes]):
                value = alert_rules.value_of(alert, item)
                if value is None:
                    continue
                report.checked += 1
                # The channel's readers: the alert's own language, else the channel's,
                # else the workspace's.
                readers = for_channel(workspace, alert.language, channels.get(alert.channel))
                if alert_rules.is_crossed(alert, value):
                    if await self._fire(alert, item, value, tz, now, readers):
                        report.fired += 1
                elif await self._recover(alert, item, value, readers):
                    report.recovered += 1

    def _zone_and_workspace(self, team_id: str) -> tuple[ZoneInfo, Workspace | None]:
        workspace = self._storage.workspaces.get(team_id)
        return self._env.zone(workspace), workspace

    async def _fire(
        self,
        alert: Alert,
        item: DialerFigures,
        value: float,
        tz: ZoneInfo,
        now: datetime,
        readers: Audience,
    ) -> bool:
        storage = self._storage
        subject = item.campaign_uuid
        if not await off_loop(storage.alerts.mark_fired, alert.team_id, alert.id, subject, value):
            return False
        with use_audience(readers):
            message = alert_rules.fired_message(alert, item, value, tz, now)
        try:
            ts = await self._post(alert.team_id, alert.channel, message)
        except SlackRefused as exc:
            # Not told is not fired: re-arm so the next minute tries again.
            await off_loop(storage.alerts.recover, alert.team_id, alert.id, subject)
            log.warning("alert %s (team %s): %s", alert.id, alert.team_id, exc.error)
            return False
        await off_loop(
            storage.alerts.attach_message,
            alert.team_id,
            alert.id,
            subject,
            channel=alert.channel,
            ts=ts,
        )
        return True

    async def _recover(
        self, alert: Alert, item: DialerFigures, value: float, readers: Audience
    ) -> bool:
        fired = await off_loop(
            self._storage.alerts.recover, alert.team_id, alert.id, item.campaign_uuid
        )
        if fired is None:
            return False
        with use_audience(readers):
            message = alert_rules.recovered_message(alert, item, value)
        try:
            await self._post(
                alert.team_id, fired.channel or alert.channel, message, thread_ts=fired.message_ts
            )
        except SlackRefused as exc:
            log.warning("alert %s (team %s) recovery: %s", alert.id, alert.team_id, exc.error)
        return True

    async def _post(
        self, team: str, channel: str, message: Reply, *, thread_ts: str | None = None
    ) -> str:
        """Post as the bot at the channel's pace; raises ``SlackRefused``."""
        return await self._env.outbox.post(
            team, channel, message, thread_ts=thread_ts, burst=ALERT_BURST
        )


async def check_minute(env: JobEnv) -> AlertReport:
    """This minute's check, at the clock's now."""
    return await AlertWatch(env).tick()


JOB = Job(
    name="digests.alerts",
    run=check_minute,
    every=MINUTE,
    probe=SCHEDULER_PROBE,
    where=SCHEDULER,
    alone=True,  # a slow service holds up no other job
)
