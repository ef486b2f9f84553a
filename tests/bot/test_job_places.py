"""Which process runs which family job: every serving process runs the approval sweeper,
and only the process with the scheduler runs the alerts' and anomalies' checks, the rule
watch and the privacy chores, as they ran on the scheduler's tick before they were the
families' jobs."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator

import pytest

from bot.jobs import JobRunner, env_of
from bot.runtime import Runtime
from bot.settings import Settings
from commands.kernel.family import Family
from commands.kernel.jobs import SCHEDULER, SERVING, Job, JobEnv
from commands.registry import build_registry
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


@pytest.mark.parametrize("alone", [True, False])
async def test_a_job_alone_holds_up_no_other_job(rt: Runtime, alone: bool) -> None:
    """The digests family's checks may be slow now and then (a day's first learning of
    the usual bands, a slow service): run alone, a job that hangs keeps no other job of
    its period from running (the rule watch's enforcing of the calling hours); run with
    them, it would."""
    hanging, ran_twice = asyncio.Event(), asyncio.Event()
    quick_runs = 0

    async def hang(env: JobEnv) -> None:
        hanging.set()
        await asyncio.Event().wait()

    async def quick(env: JobEnv) -> None:
        nonlocal quick_runs
        quick_runs += 1
        if quick_runs == 2:
            ran_twice.set()

    def job(name: str, run: Callable[[JobEnv], Awaitable[None]], **alone: bool) -> Job:
        return Job(name=name, run=run, every=60.0, probe="x", where=SCHEDULER, **alone)

    registry = build_registry(
        [
            Family(name="slow", jobs=(job("slow", hang, alone=alone),)),
            Family(name="quick", jobs=(job("quick", quick),)),
        ]
    )
    runner = JobRunner(registry, env_of(rt), where=(SCHEDULER,), every=0.01)
    runner.start()
    try:
        await asyncio.wait_for(hanging.wait(), 5)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(ran_twice.wait(), 5 if alone else 0.5)
    finally:
        await runner.stop()
    assert ran_twice.is_set() is alone
    # The app's own checks that may be slow are declared so.
    assert {job.name for job in rt.registry.jobs if job.alone} == {
        "digests.alerts",
        "digests.anomalies",
    }


async def test_the_watch_jobs_run_on_the_process_ports(rt: Runtime) -> None:
    runner = JobRunner(rt.registry, env_of(rt))  # runs a job wherever it is meant to run
    minute, quick = await runner.run_once("rules.watch"), await runner.run_once("rules.judge")
    assert isinstance(minute, WatchReport) and isinstance(quick, WatchReport)
    assert (minute.teams, quick.teams) == (0, 0)  # nobody watched yet: nothing read or posted
