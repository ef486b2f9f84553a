"""The drain's timeline: SIGTERM to a loaded ``callops serve``, timed from outside.

    .venv/bin/python benchmarks/drain.py [--latency-ms 1500] [--every 0.1] [--runs 3]
                                         [--drain-seconds 25]

Each run is ``tests/faults/drain_scenario.py``: the call-center emulator answering every
call after ``--latency-ms``, an approved campaign start running (its answer held 3 s),
``/callops campaigns`` typed every ``--every`` seconds and call records sent meanwhile;
then SIGTERM, and the process restarted on the same database once it has exited.
Printed per run, in seconds after the signal: when ``/readyz`` stopped answering 200
(unready), when the last answer owed to an acknowledged command reached the Slack
stand-in (last answer), and when the process exited; with the commands acknowledged,
those still in flight at the signal, those left unanswered at exit (should be 0) and the
approval card's final word.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from emulators.pbx.testing import EmulatorServer
from emulators.slack import SlackStandIn
from tests.faults import drain_scenario
from tests.faults.processes import Deployment


async def one_run(pbx: EmulatorServer, args: argparse.Namespace) -> drain_scenario.DrainRun:
    pbx.reset()
    with tempfile.TemporaryDirectory(prefix="callops-drain-") as root:
        async with SlackStandIn() as slack:
            deployment = Deployment(Path(root), slack, pbx)
            deployment.extra_env["CALLOPS_DRAIN_SECONDS"] = str(args.drain_seconds)
            deployment.connect_workspace()
            return await drain_scenario.run(
                deployment, slack, pbx, latency_ms=args.latency_ms, every=args.every
            )


async def main(args: argparse.Namespace) -> None:
    pbx = EmulatorServer().start()
    runs: list[drain_scenario.DrainRun] = []
    try:
        print(
            "| run | acked | in flight at signal | unready | last answer | exit | "
            "unanswered at exit | exit code | approval |"
        )
        print("|---|---|---|---|---|---|---|---|---|")
        for n in range(1, args.runs + 1):
            run = await one_run(pbx, args)
            runs.append(run)
            word = str(run.card.get("text", "")).rsplit(":", 1)[-1].strip()
            print(
                f"| {n} | {len(run.acked)} | {run.in_flight} | {run.unready or 0:.3f} s | "
                f"{run.last_answer or 0:.3f} s | {run.exited or 0:.3f} s | "
                f"{run.unanswered_at_exit} | {run.exit_code} | {word} |",
                flush=True,
            )
    finally:
        pbx.stop()
    exits = [r.exited or 0.0 for r in runs]
    lasts = [r.last_answer or 0.0 for r in runs]
    print(
        f"\nmedian: last answer {statistics.median(lasts):.3f} s, "
        f"exit {statistics.median(exits):.3f} s after SIGTERM "
        f"(service latency {args.latency_ms} ms, a command every {args.every} s)"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency-ms", type=int, default=1500)
    parser.add_argument("--every", type=float, default=0.1)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--drain-seconds", type=float, default=25.0)
    asyncio.run(main(parser.parse_args()))
