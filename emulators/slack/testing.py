"""``SlackStandIn``: the Slack stand-in as tests, benchmarks and the demo use it.

Two ways to run it:

* ``async with SlackStandIn() as slack:`` inside an async test. This is the recommended
  way: the app under test (Bolt's aiohttp server, or any ASGI server) runs on the same
  loop, so nothing crosses threads and a failing test shows one traceback.
* ``with SlackStandIn() as slack:`` (or ``start_in_thread()``/``stop_thread()``) runs it on
  its own loop in a background thread, for synchronous code or an app served from another
  thread. The query helpers are thread-safe and the driver's coroutines may be awaited from
  any loop (the work hops to the stand-in's loop).

The default workspace (``TEAM`` = T0001, "Acme Call Center") has a supervisor who is a
workspace admin (``SUPERVISOR``), an agent (``AGENT``), a manager (``MANAGER``), and the
channels #call-center, #approvals and #digests; the bot is in the first two only.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import socket
import threading
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from aiohttp import web

from emulators.slack.bus import EventBus, StandInEvent
from emulators.slack.clock import Clock
from emulators.slack.console_api import (
    Completion,
    ConsoleConfig,
    SampleFile,
    add_console_routes,
    completions_from,
)
from emulators.slack.console_workflows import add_workflow_routes
from emulators.slack.core import Core
from emulators.slack.driver import SlackDriver
from emulators.slack.holds import Hold
from emulators.slack.ids import IdFactory
from emulators.slack.journal import Journal, JournalEntry
from emulators.slack.methods_files import file_body
from emulators.slack.model import JSON, Channel, Team, User
from emulators.slack.ratelimit import RateLimits
from emulators.slack.server import build_app
from emulators.slack.socket_mode import SocketHub
from emulators.slack.state import State
from emulators.slack.workflows import StepRun, Workflows

T = TypeVar("T")

TEAM = "T0001"
SUPERVISOR = "U0001"
AGENT = "U0002"
MANAGER = "U0003"
CALL_CENTER = "C0001"
APPROVALS = "C0002"
DIGESTS = "C0003"
APP_ID = "A0CALLOPS"


class SlackStandIn:
    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        signing_secret: str | None = None,
        bot_token: str | None = None,
        app_token: str | None = None,
        client_id: str = "1000.2000",
        client_secret: str | None = None,
        app_name: str = "CallOps",
        request_url: str | None = None,
        completions: Sequence[Completion | JSON | tuple[str, str, str]] = (),
        samples: Sequence[SampleFile] = (),
        manifest: JSON | None = None,
        token_rotation: bool = False,
    ) -> None:
        if host not in {"127.0.0.1", "localhost", "::1"}:
            raise ValueError("the stand-in only listens on loopback")
        self.host = host
        self.port = port
        self.signing_secret = signing_secret or secrets.token_hex(16)
        self._default_bot_token = bot_token or f"xoxb-{TEAM}-{secrets.token_hex(12)}"
        self.app_token = app_token or f"xapp-1-{APP_ID}-{secrets.token_hex(12)}"
        self.clock = Clock()
        self.bus = EventBus()
        ids = IdFactory()
        self.core = Core(
            state=State(self.clock, ids, self.bus, app_name),
            clock=self.clock,
            ids=ids,
            bus=self.bus,
            journal=Journal(self.bus),
            limits=RateLimits(self.clock),
            app_id=APP_ID,
            app_token=self.app_token,
            client_id=client_id,
            client_secret=client_secret or secrets.token_hex(16),
            workflows=Workflows(self.clock, ids, self.bus),
        )
        self.core.token_rotation = token_rotation
        if manifest is not None:
            self.core.workflows.install(manifest)
        self.hub = SocketHub(self.core)
        self.driver = SlackDriver(self.core, self.hub, signing_secret=self.signing_secret)
        self.driver.request_url = request_url
        self.console = ConsoleConfig(
            completions=completions_from(completions), samples=list(samples)
        )
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None
        self.seed()

    # ------------------------------------------------------------------ lifecycle

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/`` once started."""
        if not self.core.base_url:
            raise RuntimeError("the Slack stand-in is not started")
        return self.core.base_url

    @property
    def api_url(self) -> str:
        """What to give ``AsyncWebClient(base_url=...)`` / ``SLACK_API_URL``."""
        return self.base_url + "api/"

    @property
    def console_url(self) -> str:
        """The demo's browser console (``console_api.py``, ``console/``)."""
        return self.base_url + "console/"

    def set_completions(self, items: Sequence[Completion | JSON | tuple[str, str, str]]) -> None:
        """What the console's composer offers after the slash command (name, usage, summary)."""
        self.console.completions = completions_from(items)

    def set_samples(self, samples: Sequence[SampleFile]) -> None:
        """The files the console offers to share (e.g. the demo's leads CSV)."""
        self.console.samples = list(samples)

    def install_manifest(self, manifest: JSON) -> None:
        """The app's manifest, as Slack knows it: its Workflow Builder steps
        (``functions``) and its shortcuts (``features.shortcuts``)."""
        self.core.workflows.install(manifest)

    def approve_install(self, team: str = TEAM, user: str = SUPERVISOR) -> str:
        """What ``user`` approving the install on the authorize page hands the app: a code
        for ``oauth.v2.access`` (for tests that do not drive a browser through the page)."""
        self.core.state.team(team)
        code = self.core.ids.opaque(18)
        self.core.state.oauth_codes[code] = (team, user)
        return code

    @property
    def oauth_authorize_url(self) -> str:
        return self.base_url + "oauth/v2/authorize"

    @property
    def client_id(self) -> str:
        return self.core.client_id

    @property
    def client_secret(self) -> str:
        return self.core.client_secret

    async def start(self) -> SlackStandIn:
        self.core.loop = asyncio.get_running_loop()
        sock = socket.socket(socket.AF_INET6 if self.host == "::1" else socket.AF_INET)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.host, self.port))
        self.port = sock.getsockname()[1]
        host = f"[{self.host}]" if ":" in self.host else self.host
        self.core.base_url = f"http://{host}:{self.port}/"
        web_app = build_app(self.core, self.hub)
        add_console_routes(web_app, self.core, self.driver, self.console)
        add_workflow_routes(web_app)
        self._runner = web.AppRunner(web_app, access_log=None, shutdown_timeout=1.0)
        await self._runner.setup()
        await web.SockSite(self._runner, sock).start()
        return self

    async def stop(self) -> None:
        await self.driver.close()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> SlackStandIn:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def start_in_thread(self) -> SlackStandIn:
        """Run on a private loop in a daemon thread; returns once it accepts connections."""
        ready = threading.Event()
        failure: list[BaseException] = []
        loop = asyncio.new_event_loop()

        def run() -> None:
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self.start())
            except BaseException as exc:
                failure.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()
            loop.run_until_complete(self.stop())
            loop.close()

        self._thread = threading.Thread(target=run, name="slack-standin", daemon=True)
        self._thread.start()
        ready.wait()
        if failure:
            raise failure[0]
        return self

    def stop_thread(self) -> None:
        if self._thread is None or self.core.loop is None:
            return
        self.core.loop.call_soon_threadsafe(self.core.loop.stop)
        self._thread.join(timeout=10)
        self._thread = None

    def __enter__(self) -> SlackStandIn:
        return self.start_in_thread()

    def __exit__(self, *exc: object) -> None:
        self.stop_thread()

    def connect_app(self, request_url: str, *, signing_secret: str | None = None) -> None:
        """Where the driver sends signed requests (the app's ``/slack/events``)."""
        self.driver.request_url = request_url
        if signing_secret is not None:
            self.driver.signing_secret = signing_secret

    # ------------------------------------------------------------------ seeding

    def seed(self) -> None:
        """Empty the stand-in's Slack and put back the default workspace."""
        state = self.core.state
        state.clear()
        state.add_team(
            id=TEAM,
            name="Acme Call Center",
            domain="acme-callcenter",
            app_id=APP_ID,
            bot_token=self._default_bot_token,
        )
        state.add_token(self.app_token, team_id=None, kind="app")
        state.add_user(
            TEAM,
            "sofia",
            id=SUPERVISOR,
            real_name="Sofia Supervisor",
            is_admin=True,
            tz="Europe/Paris",
            email="sofia@acme.example",
        )
        state.add_user(
            TEAM,
            "alex",
            id=AGENT,
            real_name="Alex Agent",
            tz="Europe/Paris",
            email="alex@acme.example",
        )
        state.add_user(
            TEAM,
            "maria",
            id=MANAGER,
            real_name="Maria Manager",
            tz="America/New_York",
            email="maria@acme.example",
        )
        people = (SUPERVISOR, AGENT, MANAGER)
        state.add_channel(TEAM, "call-center", id=CALL_CENTER, members=people)
        state.add_channel(TEAM, "approvals", id=APPROVALS, members=people)
        state.add_channel(TEAM, "digests", id=DIGESTS, members=people, bot_member=False)

    def reset(self) -> None:
        """Back to the seed: state, journal, clock, rate limits and delivery history.
        Tokens and the signing secret stay the same, so a running app keeps working."""
        self.seed()
        self.core.workflows.clear_runs()
        self.core.journal.clear()
        self.core.limits.clear()
        self.core.holds.clear()
        self.clock.reset()
        self.driver.history.clear()

    def add_team(
        self,
        name: str,
        *,
        id: str | None = None,
        domain: str | None = None,
        bot_token: str | None = None,
    ) -> Team:
        """Another workspace with the app installed (its own bot user and token)."""
        return self.core.state.add_team(
            id=id, name=name, domain=domain, app_id=APP_ID, bot_token=bot_token
        )

    def add_user(self, team: str, name: str, **fields: Any) -> User:
        """Fields: id, real_name, is_admin, is_owner, tz, email, locale."""
        return self.core.state.add_user(team, name, **fields)

    def add_channel(
        self,
        team: str,
        name: str,
        *,
        id: str | None = None,
        members: tuple[str, ...] | list[str] = (),
        bot_member: bool = True,
        is_private: bool = False,
    ) -> Channel:
        return self.core.state.add_channel(
            team, name, id=id, members=members, bot_member=bot_member, is_private=is_private
        )

    def set_bot_member(self, channel: str, member: bool) -> None:
        self.core.state.set_bot_member(self.core.state.channel(channel).id, member)

    def bot_token(self, team: str = TEAM) -> str:
        return self.core.state.team(team).bot_tokens[0]

    def team(self, team: str = TEAM) -> Team:
        return self.core.state.team(team)

    def user(self, ref: str, team: str | None = None) -> User:
        return self.core.state.user(ref, team)

    def channel(self, ref: str, team: str | None = TEAM) -> Channel:
        return self.core.state.channel(ref, team)

    # ------------------------------------------------------------------ faults

    def ratelimit(self, method: str, *, times: int = 1, retry_after: int = 1) -> None:
        """The next ``times`` calls of ``method`` get HTTP 429 ``ratelimited``."""
        self.core.limits.inject(method, times=times, retry_after=retry_after)

    def channel_pace(
        self,
        enabled: bool = True,
        *,
        per_second: float = 1.0,
        burst: int = 3,
        updates: bool = False,
    ) -> None:
        """Slack's posting pace per channel: beyond ``burst``, more than ``per_second``
        chat.postMessage calls per second to one channel get 429 (with ``updates``,
        chat.update calls count with them). Off by default."""
        self.core.limits.set_pace(enabled, per_second=per_second, burst=burst, updates=updates)

    def hold(self, method: str, *, times: int = 1, seconds: float | None = None) -> Hold:
        """The next ``times`` calls of ``method`` take effect, then keep their answer until
        ``release()`` (or for ``seconds``): what a client sees when Slack answers late or
        the answer is lost.  ``held`` counts the calls waiting so far."""
        return self.core.holds.add(method, times=times, seconds=seconds)

    def cut(self, method: str, *, times: int = 1) -> Hold:
        """The next ``times`` calls of ``method`` take effect, then their connection is
        closed with no answer: a network failure on the way back, as the client sees it."""
        hold = self.core.holds.add(method, times=times, seconds=0.0, cut=True)
        hold.release()
        return hold

    async def disconnect_sockets(self, reason: str = "refresh_requested") -> None:
        """Send Socket Mode's ``disconnect`` and close, as Slack does periodically."""
        await self.driver.on_loop(self.hub.disconnect_all(reason))

    # ------------------------------------------------------------------ queries

    def _channel_id(self, channel: str, team: str | None) -> str:
        return self.core.state.channel(channel, team).id

    def messages(self, channel: str, team: str | None = TEAM) -> list[JSON]:
        """Top-level messages of a channel (id or #name), oldest first."""
        return self.core.state.messages(self._channel_id(channel, team))

    def message(self, channel: str, ts: str, team: str | None = TEAM) -> JSON | None:
        return self.core.state.get_message(self._channel_id(channel, team), ts)

    def thread(self, channel: str, ts: str, team: str | None = TEAM) -> list[JSON]:
        return self.core.state.thread(self._channel_id(channel, team), ts)

    def dm(self, user: str) -> list[JSON]:
        """Messages in the DM between the bot and ``user``."""
        person = self.core.state.user(user)
        return self.core.state.messages(self.core.state.open_im(person.team_id, person.id).id)

    def ephemerals(self, user: str) -> list[JSON]:
        return self.core.state.ephemerals(self.core.state.user(user).id)

    def views(self, user: str) -> list[JSON]:
        """The user's open modal stack, bottom first."""
        person = self.core.state.user(user)
        return self.core.state.stack(person.team_id, person.id)

    def view_errors(self, view_id: str) -> dict[str, str]:
        """Field errors the app returned with ``response_action: errors``."""
        return self.core.state.view_errors(view_id)

    def home(self, user: str) -> JSON | None:
        person = self.core.state.user(user)
        return self.core.state.home(person.team_id, person.id)

    def file(self, file_id: str) -> tuple[JSON, bytes | None]:
        stored = self.core.state.file(file_id)
        if stored is None:
            raise LookupError(f"no file {file_id}")
        return file_body(self.core, stored), stored.content

    def step_run(self, function_execution_id: str) -> StepRun:
        """A workflow step run: its inputs, and once answered its outputs or error."""
        run = self.core.workflows.run(function_execution_id)
        if run is None:
            raise LookupError(f"no step run {function_execution_id}")
        return run

    async def wait_for_step(self, function_execution_id: str, *, within: float = 5.0) -> StepRun:
        """The run once the app has answered it (completed or failed)."""
        return await self.wait_for(
            lambda: (
                run if (run := self.step_run(function_execution_id)).state != "running" else None
            ),
            within,
        )

    def journal(self, method: str | None = None, *, kind: str | None = None) -> list[JournalEntry]:
        """Web API calls (kind "api"), response_url POSTs ("response_url"), uploads,
        downloads and acknowledgement bodies Slack acted on ("ack"), oldest first."""
        return self.core.journal.entries(method, kind)

    def invalid_sends(self) -> list[JournalEntry]:
        """Every message, view or reply the app sent that broke Block Kit or a limit."""
        return [e for e in self.core.journal.entries() if e.problems]

    def stray_markup(self) -> list[JournalEntry]:
        """Every message, view or reply whose mrkdwn has a ``<`` that starts none of
        Slack's control sequences: Slack accepts it and swallows or mangles the text."""
        return [e for e in self.core.journal.entries() if e.markup]

    # ------------------------------------------------------------------ waiting

    def subscribe(self, callback: Callable[[StandInEvent], None]) -> Callable[[], None]:
        return self.bus.subscribe(callback)

    async def wait_for(self, probe: Callable[[], T | None], within: float = 5.0) -> T:
        """Wait until ``probe()`` returns something truthy, re-checking on every change in
        the stand-in; returns it. Raises ``TimeoutError`` with the last value otherwise."""
        loop = asyncio.get_running_loop()
        changed = asyncio.Event()

        def poke(_: StandInEvent) -> None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(changed.set)

        unsubscribe = self.bus.subscribe(poke)
        try:
            async with asyncio.timeout(within):
                while True:
                    changed.clear()
                    value = probe()
                    if value:
                        return value
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(changed.wait(), 0.25)
        except TimeoutError:
            raise TimeoutError(f"condition not met within {within} s") from None
        finally:
            unsubscribe()

    async def wait_for_message(
        self,
        channel: str,
        match: Callable[[JSON], bool] | None = None,
        *,
        team: str | None = TEAM,
        within: float = 5.0,
    ) -> JSON:
        """The first top-level message in ``channel`` for which ``match`` holds."""

        def probe() -> JSON | None:
            return next(
                (m for m in self.messages(channel, team) if match is None or match(m)), None
            )

        return await self.wait_for(probe, within)

    async def wait_for_ephemeral(
        self, user: str, match: Callable[[JSON], bool] | None = None, *, within: float = 5.0
    ) -> JSON:
        def probe() -> JSON | None:
            return next((m for m in self.ephemerals(user) if match is None or match(m)), None)

        return await self.wait_for(probe, within)
