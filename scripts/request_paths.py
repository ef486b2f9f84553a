"""Which of our own files one request passes through, for the five roads a supervisor's
day takes: a typed command, a click, a form, a digest and a call-record callback.

The app runs as the tests run it (Bolt over HTTP on loopback, the Slack stand-in, the
call-center emulator, SQLite on disk). While one request is handled, a profile hook on
every thread records the product files (``callcenter/``, ``storage/``, ``commands/``,
``bot/``) whose functions ran; the set, less what an idle moment of the same app runs,
is that request's road. Fewer files on a road is less for the next engineer to read
before changing it.

    .venv/bin/python scripts/request_paths.py [--files]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import threading
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import FrameType
from typing import Any

import httpx
import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from callcenter.addresses import LOOPBACK_NETWORKS  # noqa: E402

os.environ["CALLOPS_SERVICE_NETWORKS"] = LOOPBACK_NETWORKS  # the emulator is on loopback

from bot.runtime import Runtime  # noqa: E402
from bot.server import serving  # noqa: E402
from emulators.pbx.testing import EmulatorServer  # noqa: E402
from emulators.slack import AGENT, APPROVALS, CALL_CENTER, MANAGER, TEAM, SlackStandIn  # noqa: E402
from storage import Role  # noqa: E402
from tests.bot.feed_helpers import make_record, stand_in_settings  # noqa: E402

PRODUCT = tuple(str(ROOT / part) + "/" for part in ("callcenter", "storage", "commands", "bot"))


class Recorder:
    """Product files whose code ran on any thread while recording."""

    def __init__(self) -> None:
        self.files: set[str] = set()
        self.on = False

    def hook(self, frame: FrameType, event: str, arg: Any) -> None:
        if self.on and event == "call":
            name = frame.f_code.co_filename
            if name.startswith(PRODUCT):
                self.files.add(name.removeprefix(str(ROOT) + "/"))

    def install(self) -> None:
        threading.setprofile(self.hook)
        sys.setprofile(self.hook)

    async def during(self, step: Callable[[], Awaitable[object]]) -> set[str]:
        self.files = set()
        self.on = True
        try:
            await step()
            await asyncio.sleep(0.3)
        finally:
            self.on = False
        return self.files


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", action="store_true", help="list each road's files")
    args = parser.parse_args()
    recorder = Recorder()
    recorder.install()
    manifest = yaml.safe_load((ROOT / "app-manifest.yml").read_text(encoding="utf-8"))
    with (
        tempfile.TemporaryDirectory() as tmp,
        EmulatorServer(seed=1) as pbx,
    ):
        async with SlackStandIn(manifest=manifest) as slack:
            settings = stand_in_settings(slack, Path(tmp) / "callops.db")
            rt = Runtime.open(settings)
            await asyncio.to_thread(prepare, rt, pbx)
            async with serving(rt, port=0) as base:
                rt.settings.callops_public_url = base
                slack.connect_app(base + "/slack/events")
                roads = await walk(slack, pbx, rt, base, recorder)
            rt.storage.close()
    idle = roads.pop("idle")
    for road, files in roads.items():
        own = sorted(files - idle)
        print(f"{road:<16} {len(own):>3} files")
        if args.files:
            for name in own:
                print(f"    {name}")


def prepare(rt: Runtime, pbx: EmulatorServer) -> None:
    """The workspace as the tests set it up: connected, calls at any hour, an operator
    who asks and an admin who approves in #approvals."""
    rt.storage.workspaces.connect(TEAM, pbx.base_url, pbx.api_key)
    rt.storage.calling_rules.set_hours(TEAM, (0, 0))
    rt.storage.roles.set_role(TEAM, AGENT, Role.OPERATOR)
    rt.storage.roles.set_role(TEAM, MANAGER, Role.ADMIN)
    rt.storage.workspaces.set_channels(TEAM, approvals=APPROVALS)


async def walk(
    slack: SlackStandIn, pbx: EmulatorServer, rt: Runtime, base: str, rec: Recorder
) -> dict[str, set[str]]:
    async def ephemeral(user: str, count: int) -> dict[str, Any]:
        return await slack.wait_for(
            lambda: slack.ephemerals(user)[count] if len(slack.ephemerals(user)) > count else None
        )

    async def typed(text: str, user: str = AGENT) -> dict[str, Any]:
        before = len(slack.ephemerals(user))
        await slack.driver.slash_command(user=user, channel=CALL_CENTER, text=text)
        return await ephemeral(user, before)

    roads: dict[str, set[str]] = {}
    await typed("help")  # the first request warms what every request shares
    roads["idle"] = await rec.during(lambda: asyncio.sleep(1.0))
    roads["typed command"] = await rec.during(lambda: typed("campaigns"))

    listing = await typed('campaign "Nhắc thanh toán HN"')
    button = first_button(listing, "control")

    async def click() -> None:
        before = len(slack.ephemerals(AGENT)) + len(slack.views(AGENT))
        await slack.driver.block_action(
            user=AGENT, action_id=button, ephemeral_ts=str(listing["ts"])
        )
        await slack.wait_for(
            lambda: len(slack.ephemerals(AGENT)) + len(slack.views(AGENT)) > before or None
        )

    roads["click"] = await rec.during(click)

    group = next(g for g in pbx.state("groups") if g["group_name"] == "Telesale")
    await slack.driver.slash_command(user=AGENT, channel=CALL_CENTER, text="group edit telesale")
    form = await slack.wait_for(
        lambda: next(
            (v for v in reversed(slack.views(AGENT)) if v.get("callback_id") == "group_edit_form"),
            None,
        )
    )

    async def submit() -> None:
        await slack.driver.view_submission(
            str(form["id"]),
            {
                "group_name": "Telesale",
                "group_description": "Nhóm gọi bán hàng",
                "members": group["members"],
                "campaigns": [],
            },
        )
        await slack.wait_for(lambda: slack.messages(APPROVALS) or None)

    roads["form"] = await rec.during(submit)

    await typed("digest add <#C0001|call-center> hourly", user=MANAGER)
    await typed("notify add <#C0001|call-center>", user=MANAGER)
    await asyncio.sleep(0.5)
    hour = (datetime.now(UTC) + timedelta(hours=1)).replace(minute=1, second=0, microsecond=0)

    async def digest() -> None:
        before = len(slack.messages(CALL_CENTER))
        await rt.scheduler.run_due(hour)
        await slack.wait_for(lambda: len(slack.messages(CALL_CENTER)) > before or None)

    roads["digest"] = await rec.during(digest)

    token = await asyncio.to_thread(rt.storage.callback_tokens.get_or_create, TEAM)
    record = make_record()

    async def callback() -> None:
        before = len(slack.journal("chat.postMessage")) + len(slack.journal("chat.update"))
        async with httpx.AsyncClient() as http:
            answer = await http.post(f"{base}/callbacks/{token}", json=record)
            answer.raise_for_status()
        await slack.wait_for(
            lambda: (
                len(slack.journal("chat.postMessage")) + len(slack.journal("chat.update")) > before
                or None
            ),
            within=30,
        )

    roads["callback"] = await rec.during(callback)
    return roads


def first_button(message: dict[str, Any], part: str) -> str:
    """The first button whose action id holds ``part``."""
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "button" and part in str(node.get("action_id")):
                found.append(str(node["action_id"]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(message.get("blocks", []))
    return found[0]


if __name__ == "__main__":
    asyncio.run(main())
