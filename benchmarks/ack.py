"""Slash-command acknowledgements while the call-center service is slow.

    .venv/bin/python benchmarks/ack.py [--commands 200] [--rounds 3] [--latency-ms 2000]
                                       [--no-readme]

Slack shows "operation timed out" when an app takes more than 3 seconds to acknowledge a
slash command, whatever it does afterwards.  Here the emulator answers every call after
``--latency-ms`` and ``--commands`` ``/callops campaigns`` arrive at once, signed as Slack
signs them, from the Slack stand-in; ``--rounds`` such bursts, after one warm-up command.
Three apps take them in turn:

1. callops itself, as deployed (``callops serve``): acks first, asks the service after,
   answers through ``response_url``;
2. a Bolt app that only acks and does nothing else: the floor this machine, Bolt and the
   sender set, for reading the first column;
3. a minimal Bolt app written the wrong way: it asks the service for the campaigns and
   only then acknowledges, with the answer in the ack.

Each app, the emulator and this process (the Slack stand-in: sender, Web API, response
URLs) run as separate processes on loopback, as Slack, the app and the service are, so the
stand-in's own work is not counted as the app's.  For each app: ack latency p50 / p99 / max
as the stand-in measured it (request sent to response read), acks over 3 s, and how many
answers reached the user.  Targets for callops: no ack over 3 s, p99 under 100 ms, every
answer delivered.  The figures are printed as a table and written into
``benchmarks/README.md`` under "## Slash-command acks (benchmarks/ack.py)" (that section
only).  Exits 1 when callops misses a target.

``--serve ack-only|service-first --port N`` runs one of the comparison apps (the
benchmark starts them that way; they read the SLACK_* and CALLOPS_* environment).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import socket
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiohttp
from aiohttp import web
from cryptography.fernet import Fernet
from slack_bolt.app.async_server import AsyncSlackAppServer
from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from callcenter import CallCenter
from emulators.slack import CALL_CENTER, SUPERVISOR, TEAM, Delivery, SlackStandIn
from storage.facade import Storage
from storage.secrets import SecretBox

ROOT = Path(__file__).resolve().parents[1]
ACK_DEADLINE_S = 3.0
P99_TARGET_MS = 100.0
API_KEY = "demo-api-key"
ANSWER_MARK = "Campaigns"
"""Every app's answer says it; Slackbot's "failed with the error" notice does not."""
README = Path(__file__).resolve().parent / "README.md"
HEADING = "## Slash-command acks (benchmarks/ack.py)"
START_TIMEOUT_S = 30.0


@dataclass
class Result:
    name: str
    answers_by_reply: bool
    """True when the app answers through response_url (so answers arrive after the ack)."""
    acks_ms: list[float] = field(default_factory=list)
    burst_p99_ms: list[float] = field(default_factory=list)
    late: int = 0
    answered: int = 0
    errors: int = 0
    answers_expected: bool = True
    sent: int = 0
    answer_seconds: list[float] = field(default_factory=list)


def quantile(values: list[float], q: float) -> float:
    """Nearest-rank quantile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


# --- processes ---------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def listening(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        return probe.connect_ex(("127.0.0.1", port)) == 0


@contextmanager
def process(argv: list[str], env: dict[str, str], port: int) -> Iterator[None]:
    """A child process, up once it listens on ``port``, stopped (by its own pid) at exit.
    Its output goes to a file: a pipe nobody reads would stall it once full."""
    with tempfile.TemporaryFile() as output:
        child = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=output, stderr=output)
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
            while not listening(port):
                if child.poll() is not None or time.monotonic() > deadline:
                    output.seek(0)
                    tail = output.read().decode(errors="replace")[-2000:]
                    raise RuntimeError(f"{' '.join(argv[1:4])} did not start:\n{tail}")
                time.sleep(0.05)
            yield
        finally:
            child.terminate()
            try:
                child.wait(timeout=10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


def app_env(slack: SlackStandIn, service_url: str, db: str, key: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "CALLOPS_"))}
    env.update(
        SLACK_BOT_TOKEN=slack.bot_token(),
        SLACK_SIGNING_SECRET=slack.signing_secret,
        SLACK_API_URL=slack.api_url,
        CALLOPS_DB=db,
        CALLOPS_SECRET_KEY=key,
        CALLOPS_BASE_URL=service_url,
        CALLOPS_API_KEY=API_KEY,
        PYTHONPATH=str(ROOT),
    )
    return env


def app_command(kind: str, port: int) -> list[str]:
    if kind == "callops":
        serve = ["-m", "bot.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
        return [sys.executable, *serve, "--no-scheduler"]
    return [sys.executable, str(Path(__file__).resolve()), "--serve", kind, "--port", str(port)]


# --- the comparison apps (run with --serve) ----------------------------------------------


def comparison_app(kind: str) -> AsyncApp:
    app = AsyncApp(
        client=AsyncWebClient(
            token=os.environ["SLACK_BOT_TOKEN"], base_url=os.environ["SLACK_API_URL"]
        ),
        signing_secret=os.environ["SLACK_SIGNING_SECRET"],
    )
    if kind == "ack-only":

        @app.command("/callops")
        async def ack_only(ack: AsyncAck) -> None:
            await ack()

        return app

    holder: list[CallCenter] = []

    @app.command("/callops")
    async def service_first(ack: AsyncAck) -> None:
        if not holder:
            holder.append(CallCenter(os.environ["CALLOPS_BASE_URL"], os.environ["CALLOPS_API_KEY"]))
        page = await holder[0].campaigns.list(limit=10)  # wrong: Slack is still waiting
        names = ", ".join(c.campaign_name for c in page.data)
        await ack(text=f"{ANSWER_MARK}: {names}")

    return app


def serve_comparison(kind: str, port: int) -> int:
    server = AsyncSlackAppServer(port=port, path="/slack/events", app=comparison_app(kind))
    web.run_app(server.web_app, host="127.0.0.1", port=port, print=None, access_log=None)
    return 0


# --- driving -----------------------------------------------------------------------------


def replies(slack: SlackStandIn) -> tuple[int, int]:
    """(answers with the campaigns, other replies such as error messages) the user got;
    Slackbot's own "failed" notices are neither."""
    got = [m for m in slack.ephemerals(SUPERVISOR) if m.get("source") != "slackbot"]
    hits = sum(1 for m in got if ANSWER_MARK in str(m.get("text", "")) + str(m.get("blocks")))
    return hits, len(got) - hits


async def unlimited_driver_connections(slack: SlackStandIn) -> None:
    """Slack sends from many machines at once; the driver's session would otherwise queue
    beyond aiohttp's 100 connections and count the queueing as the app's ack time."""

    async def replace() -> None:
        await slack.driver.close()
        slack.driver._session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))

    await slack.driver.on_loop(replace())


async def burst(slack: SlackStandIn, result: Result, commands: int, answer_wait: float) -> None:
    before, errors_before = replies(slack)
    started = time.perf_counter()
    sends = [
        slack.driver.slash_command(
            user=SUPERVISOR, channel=CALL_CENTER, text="campaigns", ack_timeout=60.0
        )
        for _ in range(commands)
    ]
    deliveries: list[Delivery] = await asyncio.gather(*sends)
    if result.answers_by_reply:
        with contextlib.suppress(TimeoutError):  # reported as fewer answers
            await slack.wait_for(
                lambda: sum(replies(slack)) >= before + errors_before + commands,
                within=answer_wait,
            )
    result.answer_seconds.append(time.perf_counter() - started)
    # Bolt answers a listener that has not acked within 3 s with a 404; Slack reads both
    # that and silence as a failure, so they count as late whatever their timing.
    times = [d.ack_seconds * 1000 for d in deliveries if d.status != 0]
    result.acks_ms.extend(times)
    result.burst_p99_ms.append(quantile(times, 0.99) if times else math.inf)
    result.late += sum(1 for d in deliveries if not d.in_time)
    result.sent += commands
    hits, errors = replies(slack)
    result.answered += hits - before
    result.errors += errors - errors_before


@asynccontextmanager
async def serving_app(
    kind: str, slack: SlackStandIn, service_url: str, workdir: Path
) -> AsyncIterator[None]:
    key = Fernet.generate_key().decode()
    db = str(workdir / f"{kind}.db")
    if kind == "callops":
        with Storage.open(db, SecretBox([key])) as storage:
            storage.workspaces.connect(TEAM, service_url, API_KEY)
    port = free_port()
    env = app_env(slack, service_url, db, key)
    with process(app_command(kind, port), env, port):
        slack.connect_app(f"http://127.0.0.1:{port}/slack/events")
        yield


async def run_app(
    name: str, kind: str, slack: SlackStandIn, service_url: str, workdir: Path, args: Namespace
) -> Result:
    result = Result(
        name=name, answers_by_reply=kind == "callops", answers_expected=kind != "ack-only"
    )
    slack.reset()
    await unlimited_driver_connections(slack)
    async with serving_app(kind, slack, service_url, workdir):
        # One command first, as on any app that has been up for a while: Bolt's first
        # auth.test, the workspace's service token and first connections are made here.
        warm = Result(name="warm-up", answers_by_reply=result.answers_by_reply)
        await burst(slack, warm, 1, args.answer_wait)
        for _ in range(args.rounds):
            await burst(slack, result, args.commands, args.answer_wait)
    return result


# --- reporting ---------------------------------------------------------------------------


def table(results: list[Result]) -> list[str]:
    def row(label: str, cell: Callable[[Result], str]) -> str:
        return f"| {label} | " + " | ".join(cell(r) for r in results) + " |"

    def ms(value: float) -> str:
        return f"{value:,.0f} ms" if math.isfinite(value) else "–"

    return [
        "| Measure | " + " | ".join(r.name for r in results) + " |",
        "|---|" + "---|" * len(results),
        row("ack p50", lambda r: ms(quantile(r.acks_ms, 0.5)) if r.acks_ms else "–"),
        row("ack p99", lambda r: ms(quantile(r.acks_ms, 0.99)) if r.acks_ms else "–"),
        row("ack max", lambda r: ms(max(r.acks_ms)) if r.acks_ms else "–"),
        row("p99 of each burst", lambda r: " / ".join(ms(v) for v in r.burst_p99_ms)),
        row("acks late (over 3 s, or refused)", lambda r: f"{r.late} of {r.sent}"),
        row(
            "answers that reached the user",
            lambda r: f"{r.answered} of {r.sent}" if r.answers_expected else "(none sent)",
        ),
        row("error replies instead", lambda r: str(r.errors) if r.answers_expected else "–"),
        row(
            "burst sent → last reply (slowest burst)",
            lambda r: f"{max(r.answer_seconds):.1f} s" if r.answers_by_reply else "–",
        ),
    ]


def verdicts(ours: Result) -> list[tuple[str, bool]]:
    p99 = quantile(ours.acks_ms, 0.99) if ours.acks_ms else math.inf
    return [
        ("no ack over 3 s", ours.late == 0),
        (f"p99 under {P99_TARGET_MS:.0f} ms", p99 < P99_TARGET_MS),
        ("every answer delivered", ours.answered == ours.sent and ours.errors == 0),
    ]


def wrap(paragraphs: list[str]) -> list[str]:
    """Markdown paragraphs cut at 90 columns, like the rest of the README."""
    out: list[str] = []
    for paragraph in paragraphs:
        out.extend(textwrap.wrap(paragraph, 90, break_on_hyphens=False) or [""])
    return out


def write_readme(lines: list[str]) -> None:
    """Replace this benchmark's section of the README (or add it), leaving the rest."""
    section = [HEADING, "", *lines, ""]
    existing = README.read_text(encoding="utf-8").splitlines() if README.exists() else []
    if not existing:
        existing = ["# Benchmarks", ""]
    try:
        start = existing.index(HEADING)
    except ValueError:
        while existing and not existing[-1].strip():
            existing.pop()
        README.write_text("\n".join([*existing, "", *section]), encoding="utf-8")
        return
    end = next(
        (i for i in range(start + 1, len(existing)) if existing[i].startswith("## ")),
        len(existing),
    )
    README.write_text("\n".join([*existing[:start], *section, *existing[end:]]) + "\n", "utf-8")


Namespace = argparse.Namespace
APPS = (
    ("callops (ack first)", "callops"),
    ("Bolt app that only acks", "ack-only"),
    ("service before ack", "service-first"),
)


async def measure(args: Namespace) -> list[Result]:
    service_port = free_port()
    service_url = f"http://127.0.0.1:{service_port}"
    emulator = [sys.executable, "-m", "bot.cli", "emulator", "--host", "127.0.0.1"]
    emulator += ["--port", str(service_port), "--seed", str(args.seed)]
    emulator += ["--latency-ms", str(args.latency_ms)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    results: list[Result] = []
    with (
        process(emulator, env, service_port),
        SlackStandIn() as slack,
        tempfile.TemporaryDirectory() as tmp,
    ):
        for name, kind in APPS:
            results.append(await run_app(name, kind, slack, service_url, Path(tmp), args))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--commands", type=int, default=200, help="slash commands per burst")
    parser.add_argument("--rounds", type=int, default=3, help="bursts per app")
    parser.add_argument("--latency-ms", type=int, default=2000, help="emulator delay per call")
    parser.add_argument("--answer-wait", type=float, default=120.0, help="seconds for answers")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-readme", action="store_true", help="print only")
    parser.add_argument("--serve", choices=["ack-only", "service-first"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        return serve_comparison(args.serve, args.port)

    results = asyncio.run(measure(args))
    lines = table(results)
    checks = verdicts(results[0])
    print(
        f"{args.rounds} bursts of {args.commands} concurrent `/callops campaigns`, "
        f"every service call answered after {args.latency_ms} ms\n"
    )
    print("\n".join(lines))
    print()
    for label, ok in checks:
        print(f"callops: {label}: {'met' if ok else 'MISSED'}")
    if not args.no_readme:
        intro = [
            f"`.venv/bin/python benchmarks/ack.py` — {date.today().isoformat()}",
            "",
            f"{args.rounds} bursts of {args.commands} `/callops campaigns` sent at once by the "
            "Slack stand-in (after one warm-up command), while the emulator answers every "
            f"call after {args.latency_ms / 1000:g} s. Each app, the emulator and the "
            "stand-in are separate processes on loopback; ack latency is measured by the "
            "sender, from request to response. Columns: callops as deployed (`callops "
            "serve`: acks first, answers through `response_url`); a Bolt app that only acks "
            "(the floor of this machine, Bolt and the sender); a minimal Bolt app that calls "
            "the service before acking (answer in the ack). Targets for callops: no ack over "
            f"3 s, p99 under {P99_TARGET_MS:.0f} ms, every answer delivered.",
            "",
        ]
        notes = [
            "",
            "The machine is shared with other work, so p99 moves by tens of milliseconds "
            "between runs, the floor column with it. Before `/callops` acknowledged from its "
            "listener's middleware (it called `ack()` inside the Bolt listener), this harness "
            "measured callops at p50 267 ms and p99 285–313 ms: Bolt notices an `ack()` only "
            "at its next 10 ms poll, after every other ready task, so each ack waited behind "
            "the other commands' first steps. In the right-hand column Bolt itself gives up "
            "waiting for `ack()` after 3 s and answers 404; only the commands whose service "
            "call came back in time were answered.",
        ]
        write_readme([*wrap(intro), *lines, *wrap(notes)])
    return 0 if all(ok for _, ok in checks) else 1


if __name__ == "__main__":
    raise SystemExit(main())
