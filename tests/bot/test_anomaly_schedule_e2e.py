"""The running app checks anomaly alerts in a job of its own, each minute, apart from the
digests' tick (a day's first learning of the usual levels never holds up a digest): the
digests family's ``digests.anomalies``, run where the scheduler runs."""

from __future__ import annotations

from bot.digest_scheduler import TICK_JOB
from bot.jobs import JobRunner, env_of
from bot.runtime import Runtime
from commands.digests.anomaly_watch import AnomalyReport
from commands.kernel.jobs import SCHEDULER


async def test_the_scheduler_runs_the_anomaly_check_as_its_own_job(app: Runtime) -> None:
    assert app.scheduler.running and app.scheduler.has_job(TICK_JOB)
    runner = JobRunner(app.registry, env_of(app), where=(SCHEDULER,))
    assert "digests.anomalies" in [job.name for job in runner.jobs]
    assert runner.job("digests.anomalies").probe == "scheduler"
    report = await runner.run_once("digests.anomalies")
    assert isinstance(report, AnomalyReport)
    assert (report.teams, report.opened) == (0, 0), "no anomaly alert, nothing checked"
