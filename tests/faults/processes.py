"""The app as a real process: ``callops serve`` started with the environment a deployment
would give it, pointed at the Slack stand-in and the call-center emulator of the test,
on a SQLite file the test can open too, and stopped with ``kill -9`` when the test says.

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

from emulators.pbx.testing import EmulatorServer
from emulators.slack import TEAM, SlackStandIn
from storage import SecretBox, Storage

CALLOPS = Path(sys.executable).with_name("callops")
START_TIMEOUT = 30.0
_URL = re.compile(r"Slack request URL (http://\S+)/slack/events")


@dataclass
class Deployment:
    """One deployment's settings: the database file and the keys, shared by every process
    started for it (a restart is a new process on the same file)."""

    root: Path
    slack: SlackStandIn
    pbx: EmulatorServer
    secret_key: str = field(default_factory=lambda: Fernet.generate_key().decode())
    started: int = 0

    @property
    def db(self) -> Path:
        return self.root / "callops.db"

    def env(self) -> dict[str, str]:
        return {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(self.root),
            "SLACK_BOT_TOKEN": self.slack.bot_token(),
            "SLACK_SIGNING_SECRET": self.slack.signing_secret,
            "SLACK_API_URL": self.slack.api_url,
            "CALLOPS_DB": str(self.db),
            "CALLOPS_SECRET_KEY": self.secret_key,
            "CALLOPS_TIMEZONE": "Asia/Ho_Chi_Minh",
            "PYTHONUNBUFFERED": "1",
            # A store call made on the event loop raises (storage.offload): the process
            # would fail that request, and the test that sent it.
            "CALLOPS_LOOP_GUARD": "strict",
        }

    def storage(self) -> Storage:
        """The test's own connection to the app's database (another process's view)."""
        return Storage.open(self.db, SecretBox.from_settings([self.secret_key]))

    def connect_workspace(self) -> None:
        with self.storage() as storage:
            storage.workspaces.connect(TEAM, self.pbx.base_url, self.pbx.api_key)

    def _command(self) -> list[str]:
        return [str(CALLOPS), "serve", "--host", "127.0.0.1", "--port", "0"]

    def _log(self) -> Path:
        self.started += 1
        return self.root / f"app-{self.started}.log"

    async def start(self) -> AppProcess:
        """Start a process and wait until it is ready (``/readyz`` 200)."""
        log = self._log()
        with log.open("wb") as sink:
            proc = await asyncio.create_subprocess_exec(
                *self._command(),
                cwd=self.root,
                env=self.env(),
                stdout=asyncio.subprocess.PIPE,
                stderr=sink,
            )
        assert proc.stdout is not None
        async with asyncio.timeout(START_TIMEOUT):
            while True:
                line = (await proc.stdout.readline()).decode()
                if not line:
                    raise RuntimeError(f"callops serve exited: {log.read_text()[-2000:]}")
                found = _URL.search(line)
                if found:
                    break
        app = AppProcess(proc.pid, found.group(1), log, waiter=proc)
        async with httpx.AsyncClient(trust_env=False) as http:
            ready = await http.get(app.url + "/readyz")  # it prints its URL once serving
        assert ready.status_code == 200, ready.text
        self.slack.connect_app(app.url + "/slack/events")
        return app

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
