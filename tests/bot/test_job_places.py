"""Which process runs which family job: every serving process runs the approval sweeper,
and only the process with the scheduler runs the alerts' and anomalies' checks, the rule
watch and the privacy chores, as they ran on the scheduler's tick before they were the
families' jobs."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from bot.jobs import JobRunner, env_of
from bot.runtime import Runtime
from bot.settings import Settings
from commands.kernel.jobs import SCHEDULER, SERVING
from commands.rules.watch_jobs import WatchReport


@pytest.fixture
def rt(settings: Settings) -> Iterator[Runtime]:
    """A process's runtime, not serving: only its jobs are looked at."""
    runtime = Runtime.open(settings)
    try:
        yield runtime
    finally:
        runtime.storage.close()


def names(runner: JobRunner) -> list[str]:
    return [job.name for job in runner.jobs]


async def test_a_process_without_the_scheduler_runs_only_the_serving_jobs(rt: Runtime) -> None:
    env = env_of(rt)
    serving = JobRunner(rt.registry, env, where=(SERVING,))
    assert names(serving) == ["approvals.recover", "approvals.expire"]
    assert serving.probes == ("approval_sweeper",)
    alone = JobRunner(rt.registry, env, where=(SCHEDULER,))  # callops scheduler
    assert names(alone) == [
        "digests.alerts",
        "digests.anomalies",
        "rules.watch",
        "rules.judge",
        "privacy.notice",
        "privacy.work",
    ]
    assert alone.probes == ("scheduler",)
    both = JobRunner(rt.registry, env, where=(SERVING, SCHEDULER))
    assert set(names(both)) == set(names(serving)) | set(names(alone))


async def test_the_scheduler_check_follows_its_jobs(rt: Runtime) -> None:
    runner = JobRunner(rt.registry, env_of(rt), where=(SCHEDULER,), every=3600.0)
    assert not runner.running("scheduler")
    runner.start()
    try:
        assert runner.running("scheduler")
    finally:
        await runner.stop()
    assert not runner.running("scheduler")


async def test_a_job_alone_runs_in_a_loop_of_its_own(rt: Runtime) -> None:
    """The digests family's checks may be slow now and then (a day's first learning of
    the usual bands, a slow service): each has its own loop, so the rule watch's
    enforcing of the calling hours never waits for them."""
    runner = JobRunner(rt.registry, env_of(rt), where=(SCHEDULER,), every=3600.0)
    runner.start()
    try:
        loops = {task.get_name() for task in asyncio.all_tasks()}
    finally:
        await runner.stop()
    assert {"digests.alerts", "digests.anomalies"} <= loops
    assert "rules.watch,rules.judge,privacy.notice,privacy.work" in loops


async def test_the_watch_jobs_run_on_the_process_ports(rt: Runtime) -> None:
    runner = JobRunner(rt.registry, env_of(rt))  # runs a job wherever it is meant to run
    minute, quick = await runner.run_once("rules.watch"), await runner.run_once("rules.judge")
    assert isinstance(minute, WatchReport) and isinstance(quick, WatchReport)
    assert (minute.teams, quick.teams) == (0, 0)  # nobody watched yet: nothing read or posted
