"""The app as a real process: ``callops serve`` (or ``callops scheduler``) started with the
environment a deployment would give it, pointed at the Slack stand-in and the call-center
emulator of the test, on a SQLite file the test can open too (or a PostgreSQL database, for
a deployment of several replicas), and stopped with ``kill -9`` when the test says.

Everything it logs goes to a file, so a test can say "no traceback in the log".
"""

from __future__ import annotations

import asyncio
import os
import re
import select
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from cryptography.fernet import Fernet

from callcenter.addresses import LOOPBACK_NETWORKS
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, APPROVALS, CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from storage import Role, SecretBox, Storage

CALLOPS = Path(sys.executable).with_name("callops")
START_TIMEOUT = 30.0
_URL = re.compile(r"Slack request URL (http://\S+)/slack/events")
_SCHEDULER = re.compile(r"scheduler running")


@dataclass
class Deployment:
    """One deployment's settings: the database and the keys, shared by every process
    started for it (a restart is a new process on the same database; replicas are several
    processes on it at once).

    ``database``: a ``postgresql://`` URL, else the SQLite file ``callops.db`` in ``root``.
    ``no_scheduler``: start ``callops serve --no-scheduler`` (a replica of a deployment
    whose digests run in one ``callops scheduler``). ``extra_env``: more settings (the
    OAuth ones of an installable app, say); a value of ``""`` removes a setting."""

    root: Path
    slack: SlackStandIn
    pbx: EmulatorServer
    secret_key: str = field(default_factory=lambda: Fernet.generate_key().decode())
    started: int = 0
    database: str | None = None
    no_scheduler: bool = False
    extra_env: dict[str, str] = field(default_factory=dict)

    @property
    def db(self) -> Path:
        return self.root / "callops.db"

    @property
    def callops_db(self) -> str:
        """What ``CALLOPS_DB`` says: the PostgreSQL URL or the SQLite file."""
        return self.database or str(self.db)

    def env(self) -> dict[str, str]:
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(self.root),
            "SLACK_BOT_TOKEN": self.slack.bot_token(),
            "SLACK_SIGNING_SECRET": self.slack.signing_secret,
            "SLACK_API_URL": self.slack.api_url,
            "CALLOPS_DB": self.callops_db,
            "CALLOPS_SECRET_KEY": self.secret_key,
            "CALLOPS_TIMEZONE": "Asia/Ho_Chi_Minh",
            "CALLOPS_SERVICE_NETWORKS": LOOPBACK_NETWORKS,  # the emulator's address
            "PYTHONUNBUFFERED": "1",
            # A store call made on the event loop raises (storage.offload): the process
            # would fail that request, and the test that sent it.
            "CALLOPS_LOOP_GUARD": "strict",
            **self.extra_env,
        }
        return {name: value for name, value in env.items() if value}

    def storage(self) -> Storage:
        """The test's own connection to the app's database (another process's view)."""
        return Storage.open(self.callops_db, SecretBox.from_settings([self.secret_key]))

    def let_agent_ask(self) -> None:
        """The seed's agent may ask for actions (operator); their cards go to #approvals."""
        with self.storage() as storage:
            storage.roles.set_role(TEAM, AGENT, Role.OPERATOR)
            storage.workspaces.set_channels(TEAM, approvals=APPROVALS)

    def route_calls(self, *channels: str) -> str:
        """Every call's card to ``channels`` (#call-center when none is named); the
        token of the callback URL the service posts its records to."""
        with self.storage() as storage:
            for channel in channels or (CALL_CENTER,):
                storage.routes.add(TEAM, channel=channel, created_by=SUPERVISOR)
            return storage.callback_tokens.get_or_create(TEAM)

    def feed_drained(self) -> bool:
        """Whether the call feed has posted every record queued (none pending), as the
        database says: what a kill test waits for once its processes are back."""
        with self.storage() as storage:
            return storage.call_feed.pending() == 0

    def connect_workspace(self) -> None:
        with self.storage() as storage:
            storage.workspaces.connect(TEAM, self.pbx.base_url, self.pbx.api_key)
            # Calls allowed at any hour, so no fault test depends on when it runs.
            storage.calling_rules.set_hours(TEAM, (0, 0))

    def _command(self) -> list[str]:
        serve = [str(CALLOPS), "serve", "--host", "127.0.0.1", "--port", "0"]
        return [*serve, "--no-scheduler"] if self.no_scheduler else serve

    def _log(self) -> Path:
        self.started += 1
        return self.root / f"app-{self.started}.log"

    async def _spawn(self, argv: list[str], ready: re.Pattern[str]) -> tuple[AppProcess, str]:
        """Start ``argv`` and read its output until ``ready`` matches a line (that line)."""
        log = self._log()
        with log.open("wb") as sink:
            proc = await asyncio.create_subprocess_exec(
                *argv, cwd=self.root, env=self.env(), stdout=asyncio.subprocess.PIPE, stderr=sink
            )
        assert proc.stdout is not None
        async with asyncio.timeout(START_TIMEOUT):
            while True:
                line = (await proc.stdout.readline()).decode()
                if not line:
                    raise RuntimeError(f"{' '.join(argv[1:3])} exited: {log.read_text()[-2000:]}")
                if ready.search(line):
                    return AppProcess(proc.pid, "", log, waiter=proc), line

    async def start(self, *, connect_slack: bool = True) -> AppProcess:
        """Start a process and wait until it is ready (``/readyz`` 200); unless
        ``connect_slack`` is False (a load balancer stands in front), it becomes the Slack
        stand-in's request URL."""
        app, line = await self._spawn(self._command(), _URL)
        found = _URL.search(line)
        assert found is not None
        app.url = found.group(1)
        async with httpx.AsyncClient(trust_env=False) as http:
            ready = await http.get(app.url + "/readyz")  # it prints its URL once serving
        assert ready.status_code == 200, ready.text
        if connect_slack:
            self.slack.connect_app(app.url + "/slack/events")
        return app

    async def start_scheduler(self) -> AppProcess:
        """``callops scheduler``: started once it says it runs (its first tick under way)."""
        scheduler, _ = await self._spawn([str(CALLOPS), "scheduler"], _SCHEDULER)
        return scheduler

    async def migrate(self) -> str:
        """``callops db migrate``, as an operator runs it before starting the replicas;
        returns what it printed."""
        proc = await asyncio.create_subprocess_exec(
            str(CALLOPS),
            "db",
            "migrate",
            cwd=self.root,
            env=self.env(),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
        out, _ = await proc.communicate()
        assert proc.returncode == 0, out.decode(errors="replace")
        return out.decode()

    def start_blocking(self) -> AppProcess:
        """``start`` for a test without an event loop (the fuzz run)."""
        log = self._log()
        with log.open("wb") as sink:
            proc = subprocess.Popen(
                self._command(), cwd=self.root, env=self.env(), stdout=subprocess.PIPE, stderr=sink
            )
        assert proc.stdout is not None
        url = None
        while url is None:
            readable, _, _ = select.select([proc.stdout], [], [], START_TIMEOUT)
            line = proc.stdout.readline().decode() if readable else ""
            if not line:
                proc.kill()
                raise RuntimeError(f"callops serve did not start: {log.read_text()[-2000:]}")
            found = _URL.search(line)
            url = found.group(1) if found else None
        app = AppProcess(proc.pid, url, log, popen=proc)
        ready = httpx.get(app.url + "/readyz", trust_env=False)
        assert ready.status_code == 200, ready.text
        self.slack.connect_app(app.url + "/slack/events")
        return app


@dataclass
class AppProcess:
    pid: int
    url: str
    log: Path
    waiter: asyncio.subprocess.Process | None = None
    popen: subprocess.Popen[bytes] | None = None

    def kill9(self) -> None:
        """``kill -9``: no shutdown, no cleanup, sockets and leases left as they are."""
        os.kill(self.pid, signal.SIGKILL)

    async def wait(self) -> int:
        if self.waiter is not None:
            return await self.waiter.wait()
        assert self.popen is not None
        return self.popen.wait()

    async def stop(self) -> None:
        """A normal stop (SIGTERM), for the end of a test."""
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            async with asyncio.timeout(10):
                await self.wait()
        except TimeoutError:
            self.kill9()
            await self.wait()

    def stop_blocking(self) -> None:
        assert self.popen is not None
        self.popen.terminate()
        try:
            self.popen.wait(10)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")
