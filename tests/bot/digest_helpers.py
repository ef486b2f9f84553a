"""Shared by the digest and alert end-to-end tests: the app with a steerable storage clock
and no background scheduler (the tests call ``run_due`` and the jobs' ``tick`` with their
own ``now``), and small readers of what landed in the Slack stand-in."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

from bot.posting import ChannelPace
from bot.runtime import Runtime
from bot.server import serving
from bot.settings import Settings
from emulators.pbx.testing import EmulatorServer
from emulators.slack import TEAM, SlackStandIn
from storage import SecretBox, Storage


class FakeClock:
    """Storage's clock: when a digest was made decides which slots it may post."""

    def __init__(self, start: datetime) -> None:
        self.now = start.timestamp()

    def __call__(self) -> float:
        return self.now

    def set(self, moment: datetime) -> None:
        self.now = moment.timestamp()


def runtime_on(settings: Settings, clock: FakeClock) -> Runtime:
    """A runtime on the settings' database file (another 'process' when called twice)."""
    box = SecretBox.from_settings(settings.secret_keys)
    storage = Storage.open(
        settings.callops_db, box, clock=clock, default_timezone=settings.callops_timezone
    )
    rt = Runtime.build(settings, storage)
    # Slack's per-channel pace is tested on its own (test_posting.py); here posts to one
    # channel a "day" apart must not wait a real second each.
    rt.digests.outbox.pace = ChannelPace(spacing=0.0)
    return rt


@asynccontextmanager
async def app_with_clock(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, clock: FakeClock
) -> AsyncIterator[Runtime]:
    rt = runtime_on(settings, clock)
    rt.storage.workspaces.connect(TEAM, pbx.base_url, pbx.api_key)
    rt.storage.calling_rules.set_hours(TEAM, (0, 0))  # calls at any hour: see tests/bot/conftest.py
    async with serving(rt, port=0, scheduler=False) as url:
        slack.connect_app(url + "/slack/events")
        yield rt
    rt.storage.close()
    assert slack.invalid_sends() == [], "the app sent Block Kit that Slack would reject"


def shown(message: dict[str, Any]) -> str:
    return str(message.get("text", "")) + json.dumps(message.get("blocks", []), ensure_ascii=False)


def bot_posts(slack: SlackStandIn, channel: str, team: str = TEAM) -> list[dict[str, Any]]:
    """Messages the bot posted in ``channel`` (digests, charts, notices), oldest first."""
    return [m for m in slack.messages(channel, team) if m.get("bot_id") or m.get("upload")]


def digests_in(slack: SlackStandIn, channel: str, team: str = TEAM) -> list[dict[str, Any]]:
    return [m for m in slack.messages(channel, team) if "digest:" in str(m.get("text", ""))]
