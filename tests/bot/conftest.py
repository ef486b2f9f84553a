"""The app as deployed, on loopback: Bolt over HTTP, the Slack stand-in driving it with
signed requests, the call-center emulator behind it, SQLite on disk."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import yaml

from bot.runtime import Runtime
from bot.server import serving
from bot.settings import Settings
from callcenter.models import Campaign
from emulators.pbx.testing import EmulatorServer
from emulators.slack import TEAM, SlackStandIn
from tests.bot.approval_helpers import autocall_campaign, give_roles, use_approvals_channel
from tests.bot.feed_helpers import stand_in_settings

MANIFEST = Path(__file__).resolve().parents[2] / "app-manifest.yml"


@pytest.fixture
async def slack() -> AsyncIterator[SlackStandIn]:
    """The stand-in, knowing the app's steps and shortcuts from its manifest, as Slack does."""
    manifest = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    async with SlackStandIn(manifest=manifest) as stand_in:
        yield stand_in


@pytest.fixture
def settings(tmp_path: Path, slack: SlackStandIn) -> Settings:
    return stand_in_settings(slack, tmp_path / "callops.db")


ALL_DAY = (0, 0)
"""A window from midnight to midnight."""


@pytest.fixture
async def app(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> AsyncIterator[Runtime]:
    """The app serving ``/slack/events``, its workspace connected to the emulator's first domain."""
    rt = Runtime.open(settings)
    rt.storage.workspaces.connect(TEAM, pbx.base_url, pbx.api_key)
    # Calls allowed at any hour and to a number as often as a test needs, so no test
    # depends on when it runs; tests of the calling rules set the rules they test.
    rt.storage.calling_rules.set_hours(TEAM, ALL_DAY)
    rt.storage.calling_rules.set_frequency(TEAM, 1000)
    async with serving(rt, port=0) as url:
        slack.connect_app(url + "/slack/events")
        yield rt
    rt.storage.close()
    assert slack.invalid_sends() == [], "the app sent Block Kit that Slack would reject"


@pytest.fixture
async def greeting(pbx: EmulatorServer) -> Campaign:
    """A stopped autocall campaign greeting the customer by name (its one placeholder)."""
    return await autocall_campaign(pbx, "Chào hỏi khách hàng")


@pytest.fixture
async def reminder(pbx: EmulatorServer) -> Campaign:
    """A stopped autocall campaign reminding of a payment: name, amount and due date."""
    return await autocall_campaign(pbx, "Nhắc thanh toán")


@pytest.fixture
def roles(app: Runtime) -> Runtime:
    """The app with its people's roles given, as most approval tests start: AGENT asks
    (operator), SUPERVISOR (a Slack admin) and MANAGER (admin) approve."""
    give_roles(app)
    return app


@pytest.fixture
def approvals(roles: Runtime) -> Runtime:
    """The app with roles given and approval cards posted to the approvals channel."""
    use_approvals_channel(roles)
    return roles
