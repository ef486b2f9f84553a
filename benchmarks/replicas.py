"""What one replica and two replicas on PostgreSQL sustain, side by side in one run.

    .venv/bin/python benchmarks/replicas.py [--seconds 5] [--rates 10,20,30,...]
                                            [--latency-ms 100] [--callbacks 2000]

Everything runs on loopback, each part a process of its own as in a deployment: a
throw-away PostgreSQL server (Debian's package, as the tests start it: ``tests/postgres.py``),
the call-center emulator answering every call after ``--latency-ms``, two ``callops serve
--no-scheduler`` replicas on one database (migrated with ``callops db migrate``), and two
round-robin load balancers (``tests/replicas/balancer.py``, run by this script with
``--balance``): one in front of the first replica alone, one in front of both. The Slack
stand-in (sender, Web API, response URLs) runs in this process and sends to a balancer, so
both set-ups pay the same hop.

1. Commands: ``/callops campaigns`` signed as Slack signs it, sent at a steady rate for
   ``--seconds`` per step, the rates of ``--rates`` in turn, each step once to one replica
   and once to two (alternating, so both see the same machine). A step is sustained when
   every command was acknowledged, the ack p99 (request sent to response read, as the
   stand-in measures it) is under 100 ms, and every answer reached the user within
   ``--answer-wait`` seconds of the step's end. The figure is the highest sustained rate
   before the first step that is not.
2. Callbacks: ``--callbacks`` call records POSTed by ``--senders`` concurrent senders in a
   process of their own (``benchmarks/callbacks.py``'s sender) to each balancer: accepted
   per second and response p99, with the posters running (routes to 10 channels at Slack's
   pace), each run from an empty queue.

Prints the figures as a Markdown table (``benchmarks/README.md`` keeps them by hand, with
the command and the date). The machine has two cores: with two replicas, the stand-in,
the emulator and PostgreSQL share them, so the second replica adds processes, not CPU.

``--balance PORT --to URL [--to URL ...]`` runs one balancer until stopped (the benchmark
starts them that way).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cryptography.fernet import Fernet

from benchmarks.ack import (
    ANSWER_MARK,
    P99_TARGET_MS,
    app_command,
    app_env,
    free_port,
    process,
    quantile,
    replies,
    unlimited_driver_connections,
)
from benchmarks.callbacks import record, send_all
from emulators.slack import CALL_CENTER, SUPERVISOR, TEAM, Delivery, SlackStandIn
from storage import SecretBox, Storage
from tests.postgres import INSTALL_HINT, PostgresServer, postgres_bin_dir
from tests.replicas.balancer import RoundRobin

ROOT = Path(__file__).resolve().parents[1]
API_KEY = "demo-api-key"
DEFAULT_RATES = "10,20,30,40,50,60,80,100,120,150"
FEED_CHANNELS = 10


@dataclass
class Step:
    rate: int
    acks_ms: list[float] = field(default_factory=list)
    unacked: int = 0
    answered: int = 0
    sent: int = 0

    @property
    def p99(self) -> float:
        return quantile(self.acks_ms, 0.99) if self.acks_ms else math.inf

    @property
    def sustained(self) -> bool:
        return self.unacked == 0 and self.p99 < P99_TARGET_MS and self.answered == self.sent


@dataclass
class Setup:
    name: str
    url: str
    """The balancer in front of this set-up's replicas."""
    steps: list[Step] = field(default_factory=list)
    stopped: bool = False

    def best(self) -> Step | None:
        best = None
        for step in self.steps:
            if not step.sustained:
                break
            best = step
        return best


# --- the balancer as a process -----------------------------------------------------------


def serve_balancer(port: int, replicas: list[str]) -> int:
    async def run() -> None:
        balancer = RoundRobin(replicas=replicas)
        await balancer.start(port=port)
        await asyncio.Event().wait()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run())
    return 0


def balancer_command(port: int, replicas: list[str]) -> list[str]:
    targets = [arg for url in replicas for arg in ("--to", url)]
    return [sys.executable, str(Path(__file__).resolve()), "--balance", str(port), *targets]


# --- the database --------------------------------------------------------------------------


@contextlib.contextmanager
def postgres() -> Iterator[str]:
    """A migrated database on a throw-away server; its URL."""
    bin_dir = postgres_bin_dir()
    if bin_dir is None:
        raise SystemExit(f"PostgreSQL is not installed: {INSTALL_HINT}")
    with PostgresServer(bin_dir) as server:
        url = server.create_database()
        callops = Path(sys.executable).with_name("callops")
        subprocess.run([str(callops), "db", "migrate", "--db", url], check=True, cwd=ROOT)
        yield url


def prepare(db: str, key: str, service_url: str, channels: list[str], campaigns: list[str]) -> str:
    """The workspace connected to the emulator, a route per feed channel; the callback
    token. (Run off the event loop: storage calls block.)"""
    with Storage.open(db, SecretBox([key])) as storage:
        storage.workspaces.connect(TEAM, service_url, API_KEY)
        for channel, campaign in zip(channels, campaigns, strict=True):
            storage.routes.add(TEAM, channel=channel, created_by=SUPERVISOR, campaigns=[campaign])
        return storage.callback_tokens.get_or_create(TEAM)


def clear_queue(db: str, key: str) -> None:
    with Storage.open(db, SecretBox([key])) as storage:
        storage.call_feed.clear()


# --- driving -------------------------------------------------------------------------------


async def step(slack: SlackStandIn, setup: Setup, rate: int, args: argparse.Namespace) -> Step:
    """``rate`` commands a second for ``args.seconds`` to ``setup``'s balancer."""
    slack.connect_app(setup.url + "/slack/events")
    result = Step(rate=rate)
    answered_before, _ = replies(slack)
    count = max(1, int(rate * args.seconds))
    started = time.perf_counter()

    async def one(k: int) -> Delivery:
        await asyncio.sleep(max(0.0, started + k / rate - time.perf_counter()))
        return await slack.driver.slash_command(
            user=SUPERVISOR, channel=CALL_CENTER, text="campaigns", ack_timeout=10.0
        )

    deliveries = await asyncio.gather(*(one(k) for k in range(count)))
    result.sent = count
    result.acks_ms = [d.ack_seconds * 1000 for d in deliveries if d.acked]
    result.unacked = sum(1 for d in deliveries if not d.acked)
    with contextlib.suppress(TimeoutError):
        await slack.wait_for(
            lambda: replies(slack)[0] - answered_before >= count or None, within=args.answer_wait
        )
    result.answered = replies(slack)[0] - answered_before
    setup.steps.append(result)
    return result


async def callbacks(
    url: str, campaigns: list[str], args: argparse.Namespace
) -> tuple[float, float]:
    """(accepted per second, response p99 in ms) for ``args.callbacks`` records."""
    bodies = [record(k % len(campaigns), campaigns, k) for k in range(args.callbacks)]
    wall, times = await asyncio.to_thread(send_all, url, bodies, args.senders)
    return len(times) / wall, quantile(times, 0.99) * 1000


async def measure(args: argparse.Namespace) -> tuple[list[Setup], list[tuple[float, float]]]:
    rates = [int(r) for r in args.rates.split(",")]
    key = Fernet.generate_key().decode()
    service_port = free_port()
    service_url = f"http://127.0.0.1:{service_port}"
    emulator = [sys.executable, "-m", "bot.cli", "emulator", "--host", "127.0.0.1"]
    emulator += ["--port", str(service_port), "--seed", "1", "--latency-ms", str(args.latency_ms)]
    with contextlib.ExitStack() as stack:
        db = stack.enter_context(postgres())
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        stack.enter_context(process(emulator, env, service_port))
        slack = stack.enter_context(SlackStandIn())
        channels = [slack.add_channel(TEAM, f"feed-{i}").id for i in range(FEED_CHANNELS)]
        campaigns = [str(uuid.uuid4()) for _ in channels]
        slack.channel_pace(True)
        token = await asyncio.to_thread(prepare, db, key, service_url, channels, campaigns)
        replicas = []
        for _ in range(2):
            port = free_port()
            stack.enter_context(
                process(app_command("callops", port), app_env(slack, service_url, db, key), port)
            )
            replicas.append(f"http://127.0.0.1:{port}")
        setups = []
        for name, behind in (("one replica", replicas[:1]), ("two replicas", replicas)):
            port = free_port()
            stack.enter_context(process(balancer_command(port, behind), env, port))
            setups.append(Setup(name, f"http://127.0.0.1:{port}"))
        await unlimited_driver_connections(slack)
        for setup in setups:  # warm-up: first auth.test, service token, connections
            await step(slack, setup, 5, argparse.Namespace(**{**vars(args), "seconds": 1.0}))
            setup.steps.clear()
        for rate in rates:
            for setup in setups:
                if setup.stopped:
                    continue
                for attempt in (1, 2):
                    done = await step(slack, setup, rate, args)
                    print(
                        f"{setup.name}: {rate}/s (try {attempt}): ack p99 {done.p99:,.0f} ms, "
                        f"{done.unacked} unacknowledged, {done.answered}/{done.sent} answered",
                        flush=True,
                    )
                    if done.sustained:
                        break
                    # The machine is shared: a step is tried once more before it counts.
                    if attempt == 1:
                        setup.steps.pop()
                setup.stopped = not done.sustained
            if all(s.stopped for s in setups):
                break
        accepted = []
        for setup in setups:
            # Each run starts from an empty queue: the posters' look at the queue costs more
            # the longer it is, and the previous run's cards would still be in it.
            await asyncio.to_thread(clear_queue, db, key)
            accepted.append(await callbacks(f"{setup.url}/callbacks/{token}", campaigns, args))
            print(f"{setup.name}: callbacks {accepted[-1][0]:,.0f}/s", flush=True)
    return setups, accepted


def table(
    setups: list[Setup], accepted: list[tuple[float, float]], args: argparse.Namespace
) -> str:
    def sustained(setup: Setup) -> str:
        best = setup.best()
        return f"**{best.rate}/s** (ack p99 {best.p99:,.0f} ms)" if best else "none of the rates"

    def first_miss(setup: Setup) -> str:
        miss = next((s for s in setup.steps if not s.sustained), None)
        if miss is None:
            return "none (raise --rates)"
        return (
            f"{miss.rate}/s: p99 {miss.p99:,.0f} ms, {miss.unacked} unacked, "
            f"{miss.answered}/{miss.sent} answered"
        )

    rows = [
        "| Measure | " + " | ".join(s.name for s in setups) + " |",
        "|---|" + "---|" * len(setups),
        "| `/callops campaigns` sustained with ack p99 < 100 ms | "
        + " | ".join(sustained(s) for s in setups)
        + " |",
        "| first rate not sustained | " + " | ".join(first_miss(s) for s in setups) + " |",
        f"| callbacks accepted/s ({args.callbacks:,} records, {args.senders} senders) | "
        + " | ".join(f"**{a:,.0f}/s** (p99 {p99:,.0f} ms)" for a, p99 in accepted)
        + " |",
    ]
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="length of each rate step")
    parser.add_argument("--rates", default=DEFAULT_RATES, help="commands/s to try, in order")
    parser.add_argument("--latency-ms", type=int, default=100, help="emulator delay per call")
    parser.add_argument("--answer-wait", type=float, default=20.0, help="seconds for answers")
    parser.add_argument("--callbacks", type=int, default=2000)
    parser.add_argument("--senders", type=int, default=32)
    parser.add_argument("--balance", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--to", action="append", default=[], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.balance is not None:
        return serve_balancer(args.balance, args.to)
    setups, accepted = asyncio.run(measure(args))
    print()
    print(
        f"{ANSWER_MARK!r} answers; steps of {args.seconds:g} s; emulator latency "
        f"{args.latency_ms} ms; PostgreSQL; every replica `callops serve --no-scheduler`"
    )
    print(table(setups, accepted, args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
