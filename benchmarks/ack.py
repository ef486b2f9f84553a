"""Slash-command acknowledgements while the call-center service is slow, and the CPU and
capacity of one app process.

    .venv/bin/python benchmarks/ack.py [--parts bursts,capacity] [--no-readme]
        bursts:   [--commands 200] [--rounds 3] [--latency-ms 2000]
        capacity: [--cpu-commands 300] [--cpu-rounds 3] [--capacity-latency-ms 50]
                  [--rates 10,20,...] [--rate-seconds 5] [--compare DIR]
                  [--sample-app STACKS] [--profile-app PSTATS]

Slack shows "operation timed out" when an app takes more than 3 seconds to acknowledge a
slash command, whatever it does afterwards.  Here the emulator answers every call after
``--latency-ms`` and ``--commands`` ``/callops campaigns`` arrive at once, built by the
Slack stand-in and signed as Slack signs them; ``--rounds`` such bursts, after one warm-up
command.
Three apps take them in turn:

1. callops itself, as deployed (``callops serve``): acks first, asks the service after,
   answers through ``response_url``;
2. a Bolt app that only acks and does nothing else: the floor this machine, Bolt and the
   sender set, for reading the first column;
3. a minimal Bolt app written the wrong way: it asks the service for the campaigns and
   only then acknowledges, with the answer in the ack.

Each app, the emulator, this process (the Slack stand-in: Web API, response URLs) and the
sender (``Sender``, below) run as separate processes on loopback, as Slack, the app and
the service are, so the stand-in's own work is not counted as the app's.  For each app:
ack latency p50 / p99 / max as the sender measured it (request sent to response read),
acks over 3 s, and how many answers reached the user.  Targets for callops: no ack over
3 s, p99 under 100 ms, every answer delivered.  The figures are printed as a table and
written into ``benchmarks/README.md`` under "## Slash-command acks (benchmarks/ack.py)"
(that section only).  Exits 1 when callops misses a target.

The capacity part runs callops alone (``callops serve --no-scheduler``, its own process):
the CPU time of that process (``/proc/<pid>/stat``, every thread) per ``/callops
campaigns`` and per ``/callops help``, ``--cpu-commands`` of each, interleaved, from the
first request until every reply has reached ``response_url``; then ``/callops campaigns``
offered at each of ``--rates`` (commands per second, sent on time whatever the answers) for
``--rate-seconds``, up to the first rate whose ack p99 is not under 100 ms or whose replies
do not all arrive within 2 s of the last command; the last rate that held is the figure.
``--compare DIR`` runs the app of another checkout (the code before a change) beside this
tree's, in the same run; ``--bare`` offers the same rates to two Bolt apps that only
ack, the floors to read the ack p99 against: one acks in its listener, as Bolt apps do,
the other answers from the listener's middleware, as callops does.  ``--sample-app``
(py-spy on PATH) and ``--profile-app`` (cProfile, every thread) say where the app's CPU
goes.  Written under "## CPU per command
and capacity of one process (benchmarks/ack.py)".  The pieces (``serving_app``,
``cpu_per_command``, ``offer_rate``, ``highest_rate``, ``ReplyCounter``) are importable
for other benchmarks.

Where the rate ladder's sender runs, and why: in a process of its own (``Sender``, this
script run as ``--send``), with its own event loop.  The stand-in's loop serves the app's
Web API calls and takes its ``response_url`` replies; a sender timing acks on that loop
waits behind that work at 100 commands a second for callops and not for the bare app
(which sends no reply), and counts the wait as the app's ack time, so the ack p99 of the
two can be compared only when the sender's loop is not the one serving the full app's
replies.  The stand-in still builds each command (``prepare_slash_command``: a fresh
trigger id, a ``response_url`` pointing at the stand-in, so the replies are counted as
before); the sender signs and posts it with the driver's own ``request_headers`` and
``post`` (request handed to the session to response read) and reports each ack back.
A step's commands are built just before it, so their trigger ids (valid 3 s) have run out
by the end of a step; ``/callops campaigns`` opens no modal.
The bursts are sent by the same kind of sender (all at once).  The CPU-per-command part
still sends from the stand-in's driver: it reads the app process's own CPU time, which the
sender's waiting does not change.

The ladder is also made the same for the three apps: all are up together (each in its own
process, on the same server class, aiohttp's, behind Bolt's ``AsyncSlackAppServer``), and at
each rate they take their turns one after another, the order moving round from rate to
rate, so that each meets the shared machine as it was at that rate; each gets the same
warm-up through the same sender before the first rate; the stand-in is back at its seed
before each step (none carries the messages of the steps before); and both callops trees
run from this tree's ``.venv``, at their own default logging, with their databases side by
side in one temporary directory.  What stays unequal is what the apps do: callops asks the
emulator and answers through ``response_url``, so at each rate the stand-in and the
emulator take CPU on the machine's cores that the bare apps leave free; and the first
bare app acks from its listener, which Bolt notices only at its next 10 ms poll, where
callops and the second bare app answer from a middleware.

``--serve ack-only|ack-first|service-first --port N`` runs one of the comparison apps (the
benchmark starts them that way; they read the SLACK_* and CALLOPS_* environment).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiohttp
from aiohttp import web
from cryptography.fernet import Fernet
from slack_bolt.app.async_server import AsyncSlackAppServer
from slack_bolt.async_app import AsyncAck, AsyncApp
from slack_bolt.response import BoltResponse
from slack_sdk.web.async_client import AsyncWebClient

from callcenter import CallCenter
from callcenter.addresses import LOOPBACK_NETWORKS
from emulators.slack import CALL_CENTER, SUPERVISOR, TEAM, Delivery, SlackStandIn
from emulators.slack.bus import StandInEvent
from emulators.slack.driver import post, request_headers
from storage.facade import Storage
from storage.secrets import SecretBox

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = Path(__file__).resolve()
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
def process(
    argv: list[str], env: dict[str, str], port: int, *, cwd: Path = ROOT
) -> Iterator[subprocess.Popen[bytes]]:
    """A child process, up once it listens on ``port``, stopped (by its own pid) at exit.
    Its output goes to a file: a pipe nobody reads would stall it once full."""
    with tempfile.TemporaryFile() as output:
        child = subprocess.Popen(argv, env=env, cwd=cwd, stdout=output, stderr=output)
        try:
            deadline = time.monotonic() + START_TIMEOUT_S
            while not listening(port):
                if child.poll() is not None or time.monotonic() > deadline:
                    output.seek(0)
                    tail = output.read().decode(errors="replace")[-2000:]
                    raise RuntimeError(f"{' '.join(argv[1:4])} did not start:\n{tail}")
                time.sleep(0.05)
            yield child
        finally:
            child.terminate()
            try:
                child.wait(timeout=60)  # a profiled app writes its profile first
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


def app_env(
    slack: SlackStandIn, service_url: str, db: str, key: str, *, root: Path = ROOT
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "CALLOPS_"))}
    env.update(
        SLACK_BOT_TOKEN=slack.bot_token(),
        SLACK_SIGNING_SECRET=slack.signing_secret,
        SLACK_API_URL=slack.api_url,
        CALLOPS_DB=db,
        CALLOPS_SECRET_KEY=key,
        CALLOPS_BASE_URL=service_url,
        CALLOPS_API_KEY=API_KEY,
        CALLOPS_SERVICE_NETWORKS=LOOPBACK_NETWORKS,
        PYTHONPATH=str(root),
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
    if kind in FLOORS:

        async def answer_first() -> BoltResponse:  # before the listener, as callops answers
            return BoltResponse(status=200, body="")

        @app.command("/callops", middleware=[answer_first] if kind == "ack-first" else [])
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


async def burst(
    slack: SlackStandIn, sender: Sender, result: Result, commands: int, answer_wait: float
) -> None:
    """``commands`` sent at once by ``sender`` (a process of its own, like the rate
    ladder's), then until every answer has arrived."""
    deliveries = await prepared(slack, commands, "campaigns")
    before, errors_before = replies(slack)
    started = time.perf_counter()
    await sent(slack, sender, deliveries, math.inf)
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


@dataclass(frozen=True)
class ServedApp:
    pid: int
    url: str


@asynccontextmanager
async def serving_app(
    kind: str,
    slack: SlackStandIn,
    service_url: str,
    workdir: Path,
    *,
    profile: str | None = None,
    root: Path = ROOT,
) -> AsyncIterator[ServedApp]:
    """The app on a free port, connected to the stand-in; yields its process id (the
    server itself: ``callops serve`` runs in the process it is started as) and request
    URL.  ``root`` is the source tree it runs from (another checkout, for a before and
    after in one run)."""
    key = Fernet.generate_key().decode()
    db = str(workdir / f"{kind}-{free_port()}.db")
    if kind == "callops":  # the store is not called on an event loop
        await asyncio.to_thread(connect_workspace, root, db, key, service_url)
    port = free_port()
    env = app_env(slack, service_url, db, key, root=root)
    argv = app_command(kind, port)
    if profile is not None:
        argv = [sys.executable, str(SCRIPT), "--profiled", profile, *argv[3:]]
    with process(argv, env, port, cwd=root) as child:
        url = f"http://127.0.0.1:{port}/slack/events"
        slack.connect_app(url)
        yield ServedApp(child.pid, url)


def connect_workspace(root: Path, db: str, key: str, service_url: str) -> None:
    """The app's database, made and connected by the code of the tree that will serve it
    (a tree from before a migration refuses a database made by a newer one)."""
    if root == ROOT:
        with Storage.open(db, SecretBox([key])) as storage:
            storage.workspaces.connect(TEAM, service_url, API_KEY)
        return
    script = (
        "import sys\n"
        "from storage import SecretBox, Storage\n"
        "db, key, url, team, api_key = sys.argv[1:]\n"
        "with Storage.open(db, SecretBox([key])) as storage:\n"
        "    storage.workspaces.connect(team, url, api_key)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(root)}
    subprocess.run(
        [sys.executable, "-c", script, db, key, service_url, TEAM, API_KEY],
        cwd=root,
        env=env,
        check=True,
    )


async def run_app(
    name: str,
    kind: str,
    slack: SlackStandIn,
    sender: Sender,
    service_url: str,
    workdir: Path,
    args: Namespace,
) -> Result:
    result = Result(
        name=name, answers_by_reply=kind == "callops", answers_expected=kind not in FLOORS
    )
    slack.reset()
    async with serving_app(kind, slack, service_url, workdir):
        # One command first, as on any app that has been up for a while: Bolt's first
        # auth.test, the workspace's service token and first connections are made here.
        warm = Result(name="warm-up", answers_by_reply=result.answers_by_reply)
        await burst(slack, sender, warm, 1, args.answer_wait)
        for _ in range(args.rounds):
            await burst(slack, sender, result, args.commands, args.answer_wait)
    return result


# --- CPU per command and capacity of one process ------------------------------------------


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid: int) -> float:
    """CPU time the process has used so far, all its threads together (those that ended
    too): the kernel's own count in nanoseconds, read through the process's CPU-time
    clock (Linux: ``((~pid) << 3) | CPUCLOCK_SCHED``).  ``/proc/<pid>/stat``'s user and
    system times are counted in clock ticks, and on a kernel that samples them a round of
    100 commands (half a second of CPU) reads up to a seventh too high or too low.  That
    file is the fallback where the clock cannot be read."""
    try:
        return time.clock_gettime(((~pid) << 3) | _CPUCLOCK_SCHED)
    except OSError:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
        fields = stat[stat.rindex(")") + 2 :].split()  # the name in parentheses may hold spaces
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


_CPUCLOCK_SCHED = 2


class ReplyCounter:
    """The user's replies from the app (Slackbot's "failed" notices are not), counted as
    the stand-in posts them, through its event bus: reading them back with ``ephemerals``
    deep-copies every reply so far, which at a few hundred table replies costs the
    stand-in more CPU than the app spends answering."""

    def __init__(self, slack: SlackStandIn, user: str = SUPERVISOR) -> None:
        self.answers = 0
        """Replies with the answer's mark (the campaigns list)."""
        self.total = 0
        self.last_at = 0.0
        """When the latest reply was posted (``time.monotonic()``, the same clock in
        every process of the machine)."""
        self._user = slack.user(user).id
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []
        self._unsubscribe = slack.bus.subscribe(self._seen)

    def _seen(self, event: StandInEvent) -> None:
        message = event.data.get("message") or {}
        if event.kind != "ephemeral.posted" or event.data.get("user") != self._user:
            return
        if message.get("source") == "slackbot":
            return
        self.total += 1
        self.last_at = time.monotonic()
        if ANSWER_MARK in str(message.get("text", "")):
            self.answers += 1
        for loop, changed in list(self._waiters):
            with contextlib.suppress(RuntimeError):  # that loop has closed
                loop.call_soon_threadsafe(changed.set)

    async def reach(self, total: int, within: float) -> bool:
        """Wait until ``total`` replies have been counted; False if ``within`` ran out."""
        changed = asyncio.Event()
        waiter = (asyncio.get_running_loop(), changed)
        self._waiters.append(waiter)
        try:
            async with asyncio.timeout(within):
                while self.total < total:
                    await changed.wait()
                    changed.clear()
            return True
        except TimeoutError:
            return False
        finally:
            self._waiters.remove(waiter)

    def close(self) -> None:
        self._unsubscribe()


@dataclass
class CpuFigure:
    text: str
    commands: int
    cpu_seconds: float
    wall_seconds: float
    answered: int
    errors: int

    @property
    def ms_per_command(self) -> float:
        return self.cpu_seconds * 1000 / self.commands


async def cpu_per_command(
    slack: SlackStandIn,
    counter: ReplyCounter,
    pid: int,
    text: str,
    *,
    commands: int = 300,
    concurrency: int = 10,
    answer_wait: float = 120.0,
) -> CpuFigure:
    """The app process's CPU time for ``commands`` ``/callops <text>``, from the first
    request until every reply has reached ``response_url``, divided by nothing yet.  At
    most ``concurrency`` commands are in flight, so the figure is the work per command, not
    the cost of a queue."""
    before_total, before_answers = counter.total, counter.answers
    gate = asyncio.Semaphore(concurrency)

    async def one() -> Delivery:
        async with gate:
            return await slack.driver.slash_command(
                user=SUPERVISOR, channel=CALL_CENTER, text=text, ack_timeout=60.0
            )

    cpu_before = process_cpu_seconds(pid)
    started = time.perf_counter()
    await asyncio.gather(*(one() for _ in range(commands)))
    await counter.reach(before_total + commands, answer_wait)
    wall = time.perf_counter() - started
    cpu = process_cpu_seconds(pid) - cpu_before
    answered = counter.total - before_total
    wrong = answered - (counter.answers - before_answers) if text.startswith("campaigns") else 0
    return CpuFigure(text, commands, cpu, wall, answered, wrong)


async def idle_cpu_per_second(pid: int, seconds: float = 3.0) -> float:
    """CPU the app spends with nothing to do (pollers, timers), in ms per second."""
    before = process_cpu_seconds(pid)
    await asyncio.sleep(seconds)
    return (process_cpu_seconds(pid) - before) * 1000 / seconds


@dataclass
class RateStep:
    rate: float
    """Commands offered per second."""
    sent: int
    acks_ms: list[float]
    late: int
    answered: int
    drain_seconds: float
    """From the last command sent until the last reply arrived."""
    cpu_seconds: float
    others_cpu_seconds: dict[str, float] = field(default_factory=dict)
    """The same window's CPU of the emulator and of the stand-in (this process), to see
    which of the three a missed rate ran out of."""
    replies_expected: bool = True
    """False for the Bolt app that only acks: it sends no reply."""

    @property
    def p99_ms(self) -> float:
        return quantile(self.acks_ms, 0.99) if self.acks_ms else math.inf

    def held(self, drain_limit: float) -> bool:
        return (
            self.p99_ms < P99_TARGET_MS
            and self.late == 0
            and (self.answered == self.sent or not self.replies_expected)
            and self.drain_seconds <= drain_limit
        )


# --- the sender of the rate ladder: a process of its own -----------------------------------


SEND_FLAG = "--send"
REPORT_LINE_LIMIT = 64 * 1024 * 1024
"""The longest line the sender's report may be (one line per step: every ack)."""
RATE_ACK_TIMEOUT_S = 60.0
WARM_UP_COMMANDS = 20
"""Sent to each app at the first rate before its first step, through the same sender."""


class Sender:
    """The process that sends the rate ladder's commands and times each ack, with an event
    loop of its own.

    It must not be the stand-in's loop: that loop also serves the app's Web API calls and
    takes its ``response_url`` replies, so a sender on it waits behind that work for the
    full app and not for the bare one (which sends no reply), and its ack times count the
    waiting as the app's.  The stand-in still builds each command from its records (a fresh
    trigger id, and a ``response_url`` pointing at the stand-in, so the replies are counted
    as before: ``prepare_slash_command``); this process signs and sends each at its own
    time with the driver's own ``request_headers`` and ``post``, whatever the answers, and
    reports each ack back (status, body, request handed to the session to response read);
    the stand-in then does with the acks what Slack does (``settle_slash_command``)."""

    def __init__(self, child: asyncio.subprocess.Process) -> None:
        self._child = child

    @property
    def pid(self) -> int:
        return self._child.pid

    @classmethod
    @asynccontextmanager
    async def started(cls) -> AsyncIterator[Sender]:
        child = await asyncio.create_subprocess_exec(
            *(sys.executable, str(SCRIPT), SEND_FLAG),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=ROOT,
            limit=REPORT_LINE_LIMIT,
        )
        try:
            yield cls(child)
        finally:
            if child.stdin is not None:
                child.stdin.close()  # the sender's loop ends at the end of its input
            try:
                await asyncio.wait_for(child.wait(), 10)
            except TimeoutError:
                child.kill()
                await child.wait()

    async def send(
        self, url: str, secret: str, deliveries: list[Delivery], rate: float, ack_timeout: float
    ) -> float:
        """Sends ``deliveries`` to ``url``, ``rate`` a second from now, each signed with
        ``secret`` as it goes; fills in each one's answer and returns when the last was
        sent (``time.monotonic()``, the same clock in every process of the machine)."""
        stdin, stdout = self._child.stdin, self._child.stdout
        if stdin is None or stdout is None:
            raise RuntimeError("the sender has no pipes")
        commands = [{"body": d.sent_body, "content_type": d.content_type} for d in deliveries]
        job = {"url": url, "secret": secret, "rate": rate, "ack_timeout": ack_timeout}
        stdin.write(json.dumps({**job, "commands": commands}).encode() + b"\n")
        await stdin.drain()
        line = await stdout.readline()
        if not line:
            raise RuntimeError(f"the sender stopped (exit {await self._child.wait()})")
        report = json.loads(line)
        for delivery, answer in zip(deliveries, report["answers"], strict=True):
            delivery.status = int(answer["status"])
            delivery.body = str(answer["body"])
            delivery.ack_seconds = float(answer["ack_seconds"])
            delivery.headers = dict(answer["headers"])
            delivery.sent_headers = dict(answer["sent_headers"])
        return float(report["last_sent"])


def run_sender() -> int:
    """The sender's process (``ack.py --send``): a job a line on stdin, its report a line
    on stdout, until stdin ends."""

    async def jobs() -> None:
        # Slack sends from many machines at once: no limit on connections, or aiohttp's
        # queue for its 100 would be counted as the app's ack time.  Idle connections are
        # kept while the other apps take their turns (under the servers' 75 s).
        connector = aiohttp.TCPConnector(limit=0, keepalive_timeout=60.0)
        async with aiohttp.ClientSession(connector=connector) as session:
            while line := await asyncio.to_thread(sys.stdin.buffer.readline):
                report = await send_job(session, json.loads(line))
                sys.stdout.write(json.dumps(report) + "\n")
                sys.stdout.flush()

    asyncio.run(jobs())
    return 0


async def send_job(session: aiohttp.ClientSession, job: dict[str, Any]) -> dict[str, Any]:
    """One step's commands, each sent at its own time (an open loop: Slack does not wait
    for one user's answer before sending the next user's command), signed and posted as
    the stand-in's driver does."""
    url, secret, rate = str(job["url"]), str(job["secret"]), float(job["rate"])
    limit = float(job["ack_timeout"])
    deliveries = [
        Delivery(
            kind="slash_command",
            payload={},
            team_id=TEAM,
            sent_body=str(command["body"]),
            content_type=str(command["content_type"]),
        )
        for command in job["commands"]
    ]

    async def one(delivery: Delivery) -> None:
        headers = request_headers(secret, delivery, timestamp=int(time.time()))
        await post(session, url, delivery, headers, limit)

    loop = asyncio.get_running_loop()
    sends: list[asyncio.Task[None]] = []
    start = loop.time()
    for i, delivery in enumerate(deliveries):
        delay = start + i / rate - loop.time()
        if delay > 0:
            await asyncio.sleep(delay)
        sends.append(asyncio.create_task(one(delivery)))
    last_sent = time.monotonic()
    await asyncio.gather(*sends)
    answers = [
        {
            "status": d.status,
            "body": d.body,
            "ack_seconds": d.ack_seconds,
            "headers": d.headers,
            "sent_headers": d.sent_headers,
        }
        for d in deliveries
    ]
    return {"last_sent": last_sent, "answers": answers}


async def prepared(slack: SlackStandIn, count: int, text: str) -> list[Delivery]:
    """``count`` ``/callops <text>`` as the stand-in would send them, built, not sent."""
    return [
        await slack.driver.prepare_slash_command(user=SUPERVISOR, channel=CALL_CENTER, text=text)
        for _ in range(count)
    ]


async def sent(
    slack: SlackStandIn, sender: Sender, deliveries: list[Delivery], rate: float
) -> float:
    """``deliveries`` sent to the stand-in's request URL by ``sender``, ``rate`` a second
    (``math.inf``: all at once), their acks then settled as Slack would; when the last
    was sent (``time.monotonic()``)."""
    url = slack.driver.request_url
    if url is None:
        raise RuntimeError("no app connected to the stand-in")
    last_sent = await sender.send(url, slack.signing_secret, deliveries, rate, RATE_ACK_TIMEOUT_S)
    await asyncio.gather(*(slack.driver.settle_slash_command(d) for d in deliveries))
    return last_sent


async def offer_rate(
    slack: SlackStandIn,
    sender: Sender,
    counter: ReplyCounter,
    pid: int,
    rate: float,
    seconds: float,
    *,
    text: str = "campaigns",
    answer_wait: float = 60.0,
    others: dict[str, int] | None = None,
    replies_expected: bool = True,
) -> RateStep:
    """``rate`` commands a second for ``seconds`` to the stand-in's request URL, sent by
    ``sender`` (a process of its own) each at its own time whatever the app's answers (an
    open loop: Slack does not wait for one user before sending the next's), then until
    every reply has arrived."""
    count = max(1, round(rate * seconds))
    deliveries = await prepared(slack, count, text)
    before = counter.total
    watched = {"sender": sender.pid, **(others or {})}
    cpu_before = process_cpu_seconds(pid)
    others_before = {name: process_cpu_seconds(p) for name, p in watched.items()}
    own_before = time.process_time()
    last_sent = await sent(slack, sender, deliveries, rate)
    reached = not replies_expected or await counter.reach(before + count, answer_wait)
    if not replies_expected:
        drained = 0.0
    elif reached:
        drained = max(0.0, counter.last_at - last_sent)
    else:
        drained = time.monotonic() - last_sent
    return RateStep(
        rate=rate,
        sent=count,
        acks_ms=[d.ack_seconds * 1000 for d in deliveries if d.status != 0],
        late=sum(1 for d in deliveries if not d.in_time),
        answered=counter.total - before,
        drain_seconds=drained,
        cpu_seconds=process_cpu_seconds(pid) - cpu_before,
        others_cpu_seconds={
            **{n: process_cpu_seconds(p) - others_before[n] for n, p in watched.items()},
            "stand-in": time.process_time() - own_before,
        },
        replies_expected=replies_expected,
    )


@dataclass
class Ladder:
    """One app the rates are offered to, and how it went."""

    label: str
    pid: int
    url: str
    replies_expected: bool = True
    """False for the Bolt app that only acks: it sends no reply."""
    best: float = 0.0
    """The last rate that held before the first miss (0 if none)."""
    steps: list[RateStep] = field(default_factory=list)
    missed: bool = False


async def highest_rate(
    slack: SlackStandIn,
    sender: Sender,
    counter: ReplyCounter,
    apps: list[Ladder],
    rates: list[float],
    seconds: float,
    *,
    drain_limit: float = 2.0,
    report: Callable[[str, RateStep], None] | None = None,
    others: dict[str, int] | None = None,
    every_rate: bool = False,
) -> None:
    """Offers each rate in turn (rising) to each app until one does not hold for it (ack
    p99 under 100 ms, none late, every reply delivered within ``drain_limit`` of the last
    command), or every rate with ``every_rate``; fills in each app's steps and ``best``.

    Made fair between the apps: each gets the same warm-up first (``WARM_UP_COMMANDS``
    through the same sender: its connections, the app's first paths); at each rate the
    apps take their turns one after another, in an order that moves round from rate to
    rate, so that all of them meet the machine (shared with other work, which changes by
    the minute) as it was at that rate; and the stand-in is back at its seed before each
    step, so no step has it carrying the messages of the steps before."""
    if not rates:
        return
    for app in apps:
        slack.reset()
        slack.connect_app(app.url)
        await offer_rate(
            slack,
            sender,
            counter,
            app.pid,
            rates[0],
            WARM_UP_COMMANDS / rates[0],
            replies_expected=app.replies_expected,
        )
        await asyncio.sleep(1.0)
    for turn, rate in enumerate(rates):
        start = turn % len(apps)
        for app in [*apps[start:], *apps[:start]]:
            if app.missed and not every_rate:
                continue
            slack.reset()
            slack.connect_app(app.url)
            step = await offer_rate(
                slack,
                sender,
                counter,
                app.pid,
                rate,
                seconds,
                others=others,
                replies_expected=app.replies_expected,
            )
            app.steps.append(step)
            if report is not None:
                report(app.label, step)
            if not step.held(drain_limit):
                app.missed = True
            elif not app.missed:
                app.best = rate
            await asyncio.sleep(1.0)  # let the loops settle between steps


@dataclass
class Capacity:
    label: str
    """Which tree the app ran from ("this tree", or ``--compare``'s)."""
    cpu: list[CpuFigure]
    idle_ms_per_s: float
    best_rate: float
    steps: list[RateStep]
    drain_limit: float
    rounds: dict[str, list[float]] = field(default_factory=dict)
    """CPU ms per command of each round, by command: on a machine shared with other work
    a round is only ever slowed down, so the quickest round is the closest to the cost of
    the code itself, and the median says how the rest went."""


TEXTS = ("campaigns", "help")


def emulator_argv(port: int, seed: int, latency_ms: int) -> list[str]:
    """``callops emulator`` on loopback, answering every call after ``latency_ms``."""
    return [
        *(sys.executable, "-m", "bot.cli", "emulator", "--host", "127.0.0.1"),
        *("--port", str(port), "--seed", str(seed), "--latency-ms", str(latency_ms)),
    ]


async def measure_capacity(args: Namespace) -> list[Capacity]:
    """callops alone, against an emulator answering after ``--capacity-latency-ms``: CPU
    per command of ``campaigns`` and ``help``, side by side, then the rate ladder; with
    ``--compare DIR``, the app of that checkout too, its CPU rounds interleaved with
    this tree's so that both see the same machine."""
    service_port = free_port()
    service_url = f"http://127.0.0.1:{service_port}"
    emulator = emulator_argv(service_port, args.seed, args.capacity_latency_ms)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    rates = [float(r) for r in args.rates.split(",") if r.strip()]
    trees = [("this tree", ROOT)]
    if args.compare:
        trees.append((args.compare_label, args.compare))
    with (
        process(emulator, env, service_port) as emulator_process,
        SlackStandIn() as slack,
        tempfile.TemporaryDirectory() as tmp,
    ):
        await unlimited_driver_connections(slack)
        async with contextlib.AsyncExitStack() as stack:
            apps = [
                await stack.enter_async_context(
                    serving_app(
                        "callops",
                        slack,
                        service_url,
                        Path(tmp),
                        profile=args.profile_app if root == ROOT else None,
                        root=root,
                    )
                )
                for _, root in trees
            ]
            counter = ReplyCounter(slack)
            idle: list[float] = []
            for app in apps:
                slack.connect_app(app.url)
                for text in TEXTS:  # warm both paths: imports, first connections
                    await cpu_per_command(slack, counter, app.pid, text, commands=5)
                idle.append(await idle_cpu_per_second(app.pid))
            sampler = (
                sample(apps[0].pid, args.sample_app, gil=args.sample_gil)
                if args.sample_app
                else None
            )
            figures: list[list[CpuFigure]] = [[] for _ in apps]
            share = args.cpu_commands // args.cpu_rounds
            for _ in range(args.cpu_rounds):  # interleaved, so all see the same machine
                for app, measured in zip(apps, figures, strict=True):
                    slack.connect_app(app.url)
                    for text in TEXTS:
                        measured.append(
                            await cpu_per_command(slack, counter, app.pid, text, commands=share)
                        )
            if sampler is not None:
                sampler.send_signal(signal.SIGINT)  # py-spy writes its file on SIGINT
                sampler.wait(timeout=60)
            results: list[Capacity] = []
            for (label, _), measured, idle_ms in zip(trees, figures, idle, strict=True):
                cpu = [merge_figures([f for f in measured if f.text == t]) for t in TEXTS]
                rounds = {t: [f.ms_per_command for f in measured if f.text == t] for t in TEXTS}
                for figure in cpu:
                    each = rounds[figure.text]
                    print(
                        f"  {label}: /callops {figure.text}: {figure.ms_per_command:.2f} ms CPU "
                        f"per command ({figure.answered} of {figure.commands} answered); "
                        f"rounds of {share}: quickest {min(each):.2f}, "
                        f"median {statistics.median(each):.2f}",
                        flush=True,
                    )
                results.append(
                    Capacity(label, cpu, idle_ms, 0.0, [], drain_limit=2.0, rounds=rounds)
                )
            if not rates:
                return results
            ladders = [
                Ladder(result.label, app.pid, app.url)
                for app, result in zip(apps, results, strict=True)
            ]
            for kind, label in FLOORS.items() if args.bare else ():
                bare, bare_idle = await bare_app(stack, slack, service_url, Path(tmp), kind)
                ladders.append(Ladder(label, bare.pid, bare.url, replies_expected=False))
                results.append(Capacity(label, [], bare_idle, 0.0, [], drain_limit=2.0))
            print(f"  offered rates, the apps in turn at each: {rates}", flush=True)
            async with Sender.started() as sender:
                await highest_rate(
                    slack,
                    sender,
                    counter,
                    ladders,
                    rates,
                    args.rate_seconds,
                    report=print_step,
                    others={"emulator": emulator_process.pid},
                    every_rate=args.every_rate,
                )
            for result, ladder in zip(results, ladders, strict=True):
                result.best_rate, result.steps = ladder.best, ladder.steps
    return results


BARE_LABEL = "Bolt app that only acks"
FLOORS = {"ack-only": BARE_LABEL, "ack-first": "the same, acking from a middleware"}
"""Two floors: Bolt's usual ``ack()`` in the listener, which Bolt notices at its next
10 ms poll, and an answer from the listener's middleware, as callops answers."""


async def bare_app(
    stack: contextlib.AsyncExitStack, slack: SlackStandIn, service_url: str, tmp: Path, kind: str
) -> tuple[ServedApp, float]:
    """A Bolt app that only acks (``kind``, one of ``FLOORS``), up until ``stack`` closes,
    and its CPU while idle: the floor that Bolt, this machine and the sender set for the
    ack, to read callops' ack p99 against.  Served beside the others, so that it takes the
    same rates in turn with them."""
    app = await stack.enter_async_context(serving_app(kind, slack, service_url, tmp))
    for _ in range(5):  # its first auth.test and connections, as the others' warm-up did
        await slack.driver.slash_command(
            user=SUPERVISOR, channel=CALL_CENTER, text="campaigns", ack_timeout=60.0
        )
    return app, await idle_cpu_per_second(app.pid)


def sample(pid: int, out: str, *, gil: bool = False) -> subprocess.Popen[bytes]:
    """py-spy (on PATH; ``pip install py-spy`` anywhere) sampling the app's stacks, every
    thread, without pausing it, into ``out`` as collapsed stacks (one line per stack with
    its count: ``grep``/``sort`` them, or feed them to a flame-graph tool)."""
    py_spy = shutil.which("py-spy")
    if py_spy is None:
        raise RuntimeError("--sample-app needs py-spy on PATH")
    argv = [py_spy, "record", "--pid", str(pid), "--nonblocking", "--threads"]
    argv += ["--rate", "250", "--format", "raw", "--output", out]
    if gil:
        argv.append("--gil")  # only samples holding the interpreter lock: Python running
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def merge_figures(figures: list[CpuFigure]) -> CpuFigure:
    return CpuFigure(
        text=figures[0].text,
        commands=sum(f.commands for f in figures),
        cpu_seconds=sum(f.cpu_seconds for f in figures),
        wall_seconds=sum(f.wall_seconds for f in figures),
        answered=sum(f.answered for f in figures),
        errors=sum(f.errors for f in figures),
    )


def print_step(label: str, step: RateStep) -> None:
    print(
        f"  {label}, {step.rate:g}/s offered: ack p99 {step.p99_ms:.0f} ms, {step.late} late, "
        f"{step.answered} of {step.sent} answered, last reply {step.drain_seconds:.1f} s "
        f"after the last command; CPU s: app {step.cpu_seconds:.1f}, "
        + ", ".join(f"{name} {cpu:.1f}" for name, cpu in step.others_cpu_seconds.items()),
        flush=True,
    )


def run_profiled(out: str, argv: list[str]) -> int:
    """``callops <argv>`` under cProfile (each thread's CPU time, not wall time), every
    thread with a profiler of its own (the store calls run on database threads), merged
    into ``out`` (pstats) when the process is told to stop."""
    import cProfile
    import pstats
    import threading

    from bot.cli import main as callops_main

    profilers: list[cProfile.Profile] = []
    original_run = threading.Thread.run

    def profiled_run(self: threading.Thread) -> None:
        profiler = cProfile.Profile(time.thread_time)
        profilers.append(profiler)
        profiler.enable()
        try:
            original_run(self)
        finally:
            profiler.disable()

    threading.Thread.run = profiled_run  # type: ignore[method-assign]

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    main_profiler = cProfile.Profile(time.thread_time)
    main_profiler.enable()
    try:
        callops_main(argv)
    except KeyboardInterrupt:
        pass
    finally:
        main_profiler.disable()
        for profiler in profilers:
            profiler.disable()  # a thread still running (a pool's worker) stops counting
        stats = pstats.Stats(main_profiler)
        for profiler in profilers:
            with contextlib.suppress(TypeError):  # a profiler that never saw a call
                stats.add(profiler)
        stats.dump_stats(out)
    return 0


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


def write_readme(lines: list[str], heading: str = HEADING) -> None:
    """Replace one of this benchmark's sections of the README (or add it), leaving the
    rest."""
    section = [heading, "", *lines, ""]
    existing = README.read_text(encoding="utf-8").splitlines() if README.exists() else []
    if not existing:
        existing = ["# Benchmarks", ""]
    try:
        start = existing.index(heading)
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
    emulator = emulator_argv(service_port, args.seed, args.latency_ms)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    results: list[Result] = []
    with (
        process(emulator, env, service_port),
        SlackStandIn() as slack,
        tempfile.TemporaryDirectory() as tmp,
    ):
        async with Sender.started() as sender:
            for name, kind in APPS:
                app = await run_app(name, kind, slack, sender, service_url, Path(tmp), args)
                results.append(app)
    return results


def capacity_table(results: list[Capacity]) -> list[str]:
    """One column per tree measured."""

    def row(label: str, cell: Callable[[Capacity], str]) -> str:
        return f"| {label} | " + " | ".join(cell(r) for r in results) + " |"

    def cpu(text: str) -> Callable[[Capacity], str]:
        return lambda r: next(
            (
                f"**{f.ms_per_command:.1f} ms**" + ("" if f.answered == f.commands else " (lost)")
                for f in r.cpu
                if f.text == text
            ),
            "–",
        )

    def spread(text: str) -> Callable[[Capacity], str]:
        def cell(r: Capacity) -> str:
            each = r.rounds.get(text) or []
            if not each:
                return "–"
            return f"{min(each):.1f} / {statistics.median(each):.1f} ms"

        return cell

    count = max((len(v) for r in results for v in r.rounds.values()), default=0)

    def held(r: Capacity) -> str:
        return f"**{r.best_rate:g}/s**" if r.best_rate else "none of the rates"

    def step(rate: float) -> Callable[[Capacity], str]:
        def cell(r: Capacity) -> str:
            found = next((s for s in r.steps if s.rate == rate), None)
            if found is None:
                return "–"
            window = found.sent / found.rate
            share = {"app": found.cpu_seconds, **found.others_cpu_seconds}
            cores = ", ".join(f"{name} {cpu * 100 / window:.0f} %" for name, cpu in share.items())
            verdict = "held" if found.held(r.drain_limit) else "**missed**"
            if not found.replies_expected:
                return f"p99 {found.p99_ms:,.0f} ms, {found.late} late; CPU {cores}: {verdict}"
            return (
                f"p99 {found.p99_ms:,.0f} ms, {found.late} late, {found.answered}/{found.sent} "
                f"answered, last reply +{found.drain_seconds:.1f} s; CPU {cores}: {verdict}"
            )

        return cell

    commands = results[0].cpu[0].commands
    lines = [
        "| Measure | " + " | ".join(r.label for r in results) + " |",
        "|---|" + "---|" * len(results),
        row(f"CPU per `/callops campaigns` ({commands} commands)", cpu("campaigns")),
        row(f"CPU per `/callops help` ({commands} commands)", cpu("help")),
        row(f"`campaigns`, quickest / median of {count} rounds", spread("campaigns")),
        row(f"`help`, quickest / median of {count} rounds", spread("help")),
        row("app CPU while idle", lambda r: f"{r.idle_ms_per_s:.1f} ms/s"),
        row(f"highest rate held (ack p99 < {P99_TARGET_MS:.0f} ms)", held),
    ]
    rates = sorted({s.rate for r in results for s in r.steps})
    lines.extend(row(f"{rate:g}/s offered", step(rate)) for rate in rates)
    for bare in [result for result in results if result.label in FLOORS.values()]:

        def against(rate: float, bare: Capacity = bare) -> Callable[[Capacity], str]:
            def cell(r: Capacity) -> str:
                mine = next((s for s in r.steps if s.rate == rate), None)
                floor = next((s for s in bare.steps if s.rate == rate), None)
                if r.label in FLOORS.values() or mine is None or floor is None:
                    return "–"
                return f"{mine.p99_ms / floor.p99_ms:.2f}×"

            return cell

        name = "the bare Bolt app's" if bare.label == BARE_LABEL else "it acking from a middleware"
        lines.extend(row(f"ack p99 at {rate:g}/s ÷ {name}", against(rate)) for rate in rates)
    return lines


def run_bursts(args: Namespace) -> bool:
    load = os.getloadavg()[0]  # before the run: what else the machine was doing
    started = datetime.now(UTC)
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
            f"`{shown_command(args)}` — {started:%Y-%m-%d, %H:%M} UTC, load average "
            f"{load:.1f} before the run.",
            "",
            f"{args.rounds} bursts of {args.commands} `/callops campaigns` sent at once "
            "(after one warm-up command), while the emulator answers every "
            f"call after {args.latency_ms / 1000:g} s. Each app, the emulator, the "
            "Slack stand-in and the sender are separate processes on loopback; ack latency "
            "is measured by the sender, from request to response. Columns: callops as "
            "deployed (`callops serve`: acks first, answers through `response_url`); "
            "a Bolt app that only acks "
            "(the floor of this machine, Bolt and the sender); a minimal Bolt app that calls "
            "the service before acking (answer in the ack). Targets for callops: no ack over "
            f"3 s, p99 under {P99_TARGET_MS:.0f} ms, every answer delivered.",
            "",
        ]
        notes = [
            "",
            "The machine is shared with other work, so p99 moves by tens of milliseconds "
            "between runs, the floor column with it. The commands of a burst arrive together "
            "and one event loop takes them in turn, so the last ack of a burst waits for "
            "every other command's work before its ack, and for the first steps of those "
            "already acknowledged (who asks, the command read, the service asked): about "
            "the burst's size times that work, where the floor column is the size times "
            "Bolt's own. Before `/callops` acknowledged from its "
            "listener's middleware (it called `ack()` inside the Bolt listener), this harness "
            "measured callops at p50 267 ms and p99 285–313 ms: Bolt notices an `ack()` only "
            "at its next 10 ms poll, after every other ready task, so each ack waited behind "
            "the other commands' first steps. In the right-hand column Bolt itself gives up "
            "waiting for `ack()` after 3 s and answers 404; only the commands whose service "
            "call came back in time were answered.",
        ]
        write_readme([*wrap(intro), *lines, *wrap(notes)])
    return all(ok for _, ok in checks)


def run_capacity(args: Namespace) -> bool:
    print(
        f"callops alone, the emulator answering after {args.capacity_latency_ms} ms: CPU per "
        f"command over {args.cpu_commands} each, then offered rates {args.rates}/s for "
        f"{args.rate_seconds:g} s each",
        flush=True,
    )
    load = os.getloadavg()[0]  # before the run: what else the machine was doing
    started = datetime.now(UTC)
    results = asyncio.run(measure_capacity(args))
    lines = capacity_table(results)
    print("\n".join(lines))
    if not args.no_readme:
        intro = [
            f"`{shown_command(args)}` — {started:%Y-%m-%d, %H:%M} UTC, load average "
            f"{load:.1f} before the run.",
            "",
            "callops as deployed (`callops serve --no-scheduler`), the emulator and the Slack "
            "stand-in as separate processes on loopback, the emulator answering every call "
            f"after {args.capacity_latency_ms} ms. CPU per command is the app process's own "
            "CPU time (`/proc/<pid>/stat` utime + stime, every thread) from the first request "
            "until the last reply has reached `response_url`, divided by the commands: "
            f"{args.cpu_commands} `/callops campaigns` and as many `/callops help`, at most 10 "
            f"in flight, in {args.cpu_rounds} rounds after a few warm-up commands"
            + (
                ", the two apps' rounds interleaved (both running, on the same emulator and "
                "stand-in)"
                if args.compare
                else ""
            )
            + ". Then `/callops campaigns` offered at rising rates "
            f"({args.rate_seconds:g} s each, sent on time whatever the answers, the apps "
            "taking turns at each rate after the same warm-up) by a sender in a process of "
            "its own, so that its timing never waits behind the stand-in's work on the "
            "apps' replies; a rate holds "
            f"when ack p99 is under {P99_TARGET_MS:.0f} ms, no ack is late and every reply "
            f"arrives within {results[0].drain_limit:g} s of the last command. The CPU shares "
            "of the app, the sender, the emulator and the stand-in (Slack's Web API and "
            "response URLs) are of one core over the rate's window.",
            "",
        ]
        write_readme([*wrap(intro), *lines, *wrap(CAPACITY_NOTES)], CAPACITY_HEADING)
    return all(r.best_rate and all(f.answered == f.commands for f in r.cpu) for r in results)


def shown_command(args: Namespace) -> str:
    """The command line as run, for the README: the ``--compare`` tree named by
    ``--compare-hint``, without ``--compare-hint`` and ``--no-readme``."""
    words = [".venv/bin/python", "benchmarks/ack.py"]
    given = iter(args.argv)
    for word in given:
        name, eq, _value = word.partition("=")
        if name in ("--compare", "--compare-hint") and not eq:
            next(given, None)  # the option's value
        if name == "--compare":
            words += ["--compare", args.compare_hint]
        elif name not in ("--compare-hint", "--no-readme"):
            words.append(word)
    return " ".join(w if w == args.compare_hint else shlex.quote(w) for w in words)


CAPACITY_HEADING = "## CPU per command and capacity of one process (benchmarks/ack.py)"
CAPACITY_NOTES: list[str] = [
    "",
    "A `--compare` column is another checkout run from this tree's `.venv` (so it needs "
    "its dependencies installed there). The machine is shared with other work; between "
    "runs a figure moves by up to a third, so read the columns of one run against each "
    "other, not against another run's. The `Bolt app that only acks` column (`--bare`) "
    "is the floor Bolt, this machine and the sender set for the ack at each rate when an "
    "app acks as Bolt apps do, from its listener, which Bolt notices at its next 10 ms "
    "poll (`AsyncioListenerRunner`); callops answers from the listener's middleware, "
    "without that wait, so its ack p99 can be under that app's. The next column is the "
    "same app answering from a middleware as callops does: the floor for that way.",
    "",
    "At the first rate missed, the CPU shares show why: the stand-in (taking the "
    "replies and Web API calls) spends about as much CPU per command as the app, and "
    "with the emulator and other work on the same two cores the machine runs out before "
    "the app does; the app's CPU per command alone would allow about 1000 / (ms per "
    "command) commands a second on a core of its own.",
]
"""What the figures mean, kept with the script so a re-run writes them back."""


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--profiled"]:
        return run_profiled(argv[1], argv[2:])
    if argv[:1] == [SEND_FLAG]:
        return run_sender()
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--parts", default="bursts,capacity", help="bursts, capacity or both")
    parser.add_argument("--commands", type=int, default=200, help="slash commands per burst")
    parser.add_argument("--rounds", type=int, default=3, help="bursts per app")
    parser.add_argument("--latency-ms", type=int, default=2000, help="emulator delay per call")
    parser.add_argument("--answer-wait", type=float, default=120.0, help="seconds for answers")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cpu-commands", type=int, default=300, help="commands per CPU figure")
    parser.add_argument("--cpu-rounds", type=int, default=3, help="interleaved CPU rounds")
    parser.add_argument(
        "--capacity-latency-ms", type=int, default=50, help="emulator delay, capacity part"
    )
    parser.add_argument(
        "--rates", default="10,20,30,40,50,60,70,80,100,120,150", help="offered commands/s"
    )
    parser.add_argument("--rate-seconds", type=float, default=5.0, help="seconds per rate")
    parser.add_argument(
        "--compare",
        metavar="DIR",
        type=lambda d: Path(d).resolve(),
        help="also measure the app of another checkout (before)",
    )
    parser.add_argument("--compare-label", default="before", help="its column's name")
    parser.add_argument(
        "--compare-hint", default="DIR", help="how the README names --compare's tree"
    )
    parser.add_argument("--profile-app", metavar="PSTATS", help="cProfile the app into a file")
    parser.add_argument(
        "--sample-app", metavar="STACKS", help="py-spy the app during the CPU part into a file"
    )
    parser.add_argument(
        "--sample-gil", action="store_true", help="with --sample-app: only Python running"
    )
    parser.add_argument(
        "--bare", action="store_true", help="also offer the rates to a Bolt app that only acks"
    )
    parser.add_argument(
        "--every-rate", action="store_true", help="offer every rate, past the first missed"
    )
    parser.add_argument("--no-readme", action="store_true", help="print only")
    parser.add_argument("--serve", choices=[*FLOORS, "service-first"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.argv = argv
    if args.serve:
        return serve_comparison(args.serve, args.port)
    parts = {p.strip() for p in args.parts.split(",")}
    ok = True
    if "bursts" in parts:
        ok = run_bursts(args) and ok
    if "capacity" in parts:
        ok = run_capacity(args) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
