"""``callops demo``: the offline demo, everything on loopback and nothing to configure.

Three servers in one process: the call-center emulator (its own thread), the Slack
stand-in with its browser console, and the app itself served over HTTP by the same
``bot.server.serving`` that ``callops serve`` uses. The app gets a throw-away SQLite
database in a temporary folder and a demo-mode secret key (storage.secrets), and the
stand-in's workspace is connected to the emulator's first domain, whose autocall
campaigns send their call records to the app.

The demo workspace is set up the way a team would after installing: the agent is an
operator, the manager an admin (so one person can request an action and another
approve it), the bot is in #digests, and there is a sample digest and a notification
route (storage has both tables; the features that act on them pick them up when present).
Call cards go to a channel of their own, #call-feed, so a running campaign's stream of
records does not bury what people type and read in #call-center.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import signal
import tempfile
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot import manifest
from bot.runtime import Runtime
from bot.server import EVENTS_PATH, serving
from bot.settings import Settings
from callcenter import CallCenter
from callcenter.addresses import LOOPBACK_NETWORKS
from commands.families import FAMILIES
from commands.notifications.notify import callback_url
from commands.registry import build_registry
from demo.sample_leads import sample_leads
from emulators.pbx.testing import EmulatorServer
from emulators.slack import (
    AGENT,
    APPROVALS,
    DIGESTS,
    MANAGER,
    SUPERVISOR,
    TEAM,
    SampleFile,
    SlackStandIn,
)
from storage import Role
from storage.offload import off_loop

log = logging.getLogger(__name__)

DEFAULT_PORT = 8800
CALL_FEED = "call-feed"
"""The channel the demo's notification route posts call cards into."""
DEMO_TIMEZONE = "Asia/Ho_Chi_Minh"
SAMPLE_DIGEST_SCHEDULE = "weekdays 08:00"


@dataclass
class Demo:
    """The running demo; tests and scripts drive it through ``slack`` and ``pbx``."""

    slack: SlackStandIn
    pbx: EmulatorServer
    rt: Runtime
    app_url: str
    workdir: Path

    @property
    def console_url(self) -> str:
        return self.slack.console_url

    @property
    def call_feed(self) -> str:
        """The id of #call-feed, where call cards go."""
        return self.slack.channel(CALL_FEED).id


def completions() -> list[tuple[str, str, str]]:
    """The composer's completion list, from the command table the app's parser uses
    (built from the same families as the runtime's)."""
    catalog = build_registry(FAMILIES).catalog
    return [(spec.name, spec.usage, spec.summary) for spec in catalog.commands]


def app_manifest() -> dict[str, Any]:
    """What the Slack stand-in knows of the app, as Slack knows it from the manifest: its
    Workflow Builder steps and its shortcuts (``bot.manifest``, equal to the file's)."""
    return {"functions": manifest.functions(), "features": {"shortcuts": manifest.shortcuts()}}


def demo_settings(slack: SlackStandIn, db_path: Path) -> Settings:
    """Every setting given explicitly, so nothing in the visitor's environment or ``.env``
    (a real Slack token, OAuth client, admins) leaks into the demo."""
    return Settings(
        _env_file=None,
        slack_bot_token=slack.bot_token(),
        slack_signing_secret=slack.signing_secret,
        slack_app_token=None,
        slack_client_id=None,
        slack_client_secret=None,
        slack_api_url=slack.api_url,
        callops_db=str(db_path),
        callops_secret_key=None,
        callops_base_url=None,
        callops_api_key=None,
        callops_timezone=DEMO_TIMEZONE,
        callops_admins="",
        callops_service_networks=LOOPBACK_NETWORKS,  # the emulator is on this machine
    )


def call_feed_channel(slack: SlackStandIn) -> str:
    """#call-feed's id, the channel made (everyone in it, and the bot) the first time."""
    found = slack.core.state.find_channel(CALL_FEED, TEAM)
    if found is not None:
        return found.id
    return slack.add_channel(TEAM, CALL_FEED, members=(SUPERVISOR, AGENT, MANAGER)).id


DEMO_PEOPLE = {
    SUPERVISOR: ("Nguyễn Thị Hương", "vi-VN"),
    AGENT: ("Alex Morgan", "en-US"),
    MANAGER: ("Trần Văn Minh", "vi-VN"),
}
"""The demo's people: a Vietnamese supervisor and manager, named family name first as
Vietnamese names are (and as the service writes its agents'), and one English-speaking
colleague, so switching between them shows a mixed team each reading their language."""


def demo_people(slack: SlackStandIn) -> None:
    """The demo's people live in Vietnam; Hương and Minh use Slack in Vietnamese, Alex in
    English, so switching between them shows each reading their own language."""
    state = slack.core.state
    for user_id, (name, locale) in DEMO_PEOPLE.items():
        person = state.user(user_id, TEAM)
        person.real_name = name
        person.tz = DEMO_TIMEZONE
        person.locale = locale


def prepare_workspace(rt: Runtime, slack: SlackStandIn, pbx: EmulatorServer) -> None:
    """Connect the demo workspace and give it what a team sets up in its first week."""
    storage = rt.storage
    feed = call_feed_channel(slack)
    demo_people(slack)
    storage.workspaces.connect(
        TEAM, pbx.base_url, pbx.api_key, slack_timezone=DEMO_TIMEZONE, admin_locale="vi-VN"
    )
    storage.workspaces.set_language(TEAM, "vi")
    storage.roles.set_role(TEAM, AGENT, Role.OPERATOR, granted_by=SUPERVISOR)
    storage.roles.set_role(TEAM, MANAGER, Role.ADMIN, granted_by=SUPERVISOR)
    slack.set_bot_member(DIGESTS, True)
    storage.workspaces.set_channels(TEAM, approvals=APPROVALS, digests=DIGESTS, notifications=feed)
    if not storage.digests.list(TEAM):
        storage.digests.add(
            TEAM,
            channel=DIGESTS,
            schedule=SAMPLE_DIGEST_SCHEDULE,
            timezone=DEMO_TIMEZONE,
            created_by=MANAGER,
        )
    if not storage.routes.list(TEAM):
        storage.routes.add(TEAM, channel=feed, created_by=SUPERVISOR)
    # #call-feed is read by the English-speaking colleague's team: its own language shows
    # beside the Vietnamese channels (`/callops settings language en #call-feed`).
    if storage.channel_languages.get(TEAM, feed) is None:
        storage.channel_languages.set(TEAM, feed, "en", by=SUPERVISOR)


async def attach_callbacks(rt: Runtime, pbx: EmulatorServer, app_url: str) -> None:
    """Point the emulator's autocall campaigns at the app's callback URL, as an admin
    would in the service, so a pushed call ends up in #call-feed (the route above)."""
    token = await off_loop(rt.storage.callback_tokens.get_or_create, TEAM)
    url = callback_url(app_url, token)
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        async for campaign in cc.campaigns.iterate():
            if campaign.type == "autocall" and campaign.callback_url != url:
                await cc.campaigns.set_fields(campaign.campaign_uuid, callback_url=url)


async def offer_samples(slack: SlackStandIn, pbx: EmulatorServer) -> None:
    """A leads CSV made for the emulator's data, offered by the console's 📎 menu, so
    ``leads upload`` can be tried without a file of one's own."""
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        sample = await sample_leads(cc)
        slack.set_samples(
            [SampleFile(name=sample.name, content=sample.content, summary=sample.summary)]
        )


@contextlib.asynccontextmanager
async def running_demo(
    *, port: int = DEFAULT_PORT, workdir: Path | None = None, seed: int = 1
) -> AsyncIterator[Demo]:
    """Start the three servers, yield the demo, stop them all (in reverse order)."""
    with contextlib.ExitStack() as stack:
        if workdir is None:
            workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="callops-demo-")))
        # The service keeps its clock in UTC (callops reads its timestamps so); the
        # workspace, not the service, is in Vietnam's zone.
        pbx = EmulatorServer(seed=seed)
        await asyncio.to_thread(pbx.start)
        stack.callback(pbx.stop)
        slack = SlackStandIn(port=port, completions=completions(), manifest=app_manifest())
        slack.console.emulator_url = pbx.base_url  # the page's incident control
        await slack.start()
        try:
            settings = demo_settings(slack, workdir / "callops-demo.db")
            rt = await off_loop(Runtime.open, settings, demo=True)
            try:
                await off_loop(prepare_workspace, rt, slack, pbx)
                async with serving(rt, port=0) as app_url:
                    slack.connect_app(app_url + EVENTS_PATH)
                    rt.settings.callops_public_url = app_url
                    await attach_callbacks(rt, pbx, app_url)
                    await offer_samples(slack, pbx)
                    yield Demo(slack=slack, pbx=pbx, rt=rt, app_url=app_url, workdir=workdir)
            finally:
                rt.storage.close()
        finally:
            await slack.stop()


async def serve_demo(port: int = DEFAULT_PORT, *, announce: Callable[[str], None] = print) -> None:
    """Run until Ctrl-C or SIGTERM, then stop everything cleanly."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    async with running_demo(port=port) as demo:
        announce(
            "\n".join(
                (
                    "callops demo is running, all on loopback:",
                    f"  call-center emulator  {demo.pbx.base_url}  (API key {demo.pbx.api_key})",
                    f"  callops app           {demo.app_url}{EVENTS_PATH}",
                    f"  Slack stand-in        {demo.slack.base_url}",
                    "",
                    f"  Open the console:     {demo.console_url}",
                    "",
                    "Try /callops campaigns, /callops help, or the Home tab. Ctrl-C to stop.",
                )
            )
        )
        await stop.wait()
    announce("callops demo stopped.")


def run(port: int) -> int:
    """The ``callops demo`` command; returns the exit code."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        asyncio.run(serve_demo(port, announce=lambda text: print(text, flush=True)))
    except KeyboardInterrupt:
        print("callops demo stopped.", flush=True)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            print(f"callops demo: port {port} is in use; try --port {port + 1}", flush=True)
            return 2
        raise
    return 0
