"""The running app checks anomaly alerts in a job of its own, each minute, apart from the
digests' tick (a day's first learning of the usual levels never holds up a digest)."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.digest_scheduler import ANOMALY_JOB, TICK_JOB
from bot.runtime import Runtime


async def test_the_scheduler_runs_the_anomaly_check_as_its_own_job(app: Runtime) -> None:
    assert app.scheduler.running
    assert app.scheduler.has_job(TICK_JOB) and app.scheduler.has_job(ANOMALY_JOB)
    assert app.scheduler.anomalies is not None
    report = await app.scheduler.anomalies.tick(datetime.now(UTC))
    assert (report.teams, report.opened) == (0, 0), "no anomaly alert, nothing checked"
