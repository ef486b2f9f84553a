"""App Home end to end: the wallboard a supervisor keeps open on a second screen, the welcome
an unconnected workspace sees, and Slack's retried events acted on once."""

from __future__ import annotations

from typing import Any

from bot.runtime import Runtime
from callcenter import CallCenter
from commands.kernel.text import clip
from commands.reports.wallboard import MAX_CAMPAIGN_ROWS
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, MANAGER, SUPERVISOR, TEAM, SlackStandIn
from tests.bot.test_commands_e2e import campaigns_of, shown
from tests.bot.test_connect_e2e import top_view


def publishes(slack: SlackStandIn, user: str) -> int:
    return sum(1 for e in slack.journal("views.publish") if e.params.get("user_id") == user)


def buttons(view: dict[str, Any]) -> list[str]:
    return [
        element["action_id"]
        for block in view.get("blocks", [])
        if block.get("type") == "actions"
        for element in block.get("elements", [])
    ]


async def home_after(slack: SlackStandIn, user: str, count: int) -> dict[str, Any]:
    """The user's Home tab once the app has published it ``count`` times."""
    await slack.wait_for(lambda: publishes(slack, user) >= count)
    home = slack.home(user)
    assert home is not None
    return home


async def test_home_shows_the_running_campaigns_and_refresh_republishes(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    opened = await slack.driver.app_home_opened(SUPERVISOR)
    assert opened.in_time
    home = await home_after(slack, SUPERVISOR, 1)
    assert "Call center wallboard" in shown(home)
    running = sorted(
        (c for c in await campaigns_of(pbx) if c.status == "start"),
        key=lambda c: c.campaign_name.casefold(),
    )
    assert running
    for campaign in running[:MAX_CAMPAIGN_ROWS]:
        assert clip(campaign.campaign_name, 150) in shown(home), campaign.campaign_name
    assert buttons(home) == ["home_refresh"]

    renamed = running[0]
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        await cc.campaigns.set_fields(renamed.campaign_uuid, campaign_name="Aaa Renamed Campaign")
    await slack.driver.block_action(user=SUPERVISOR, action_id="home_refresh", view_id=home["id"])
    refreshed = await home_after(slack, SUPERVISOR, 2)
    assert "Aaa Renamed Campaign" in shown(refreshed)
    assert publishes(slack, SUPERVISOR) == 2


async def test_unconnected_workspace_gets_the_welcome(app: Runtime, slack: SlackStandIn) -> None:
    app.storage.workspaces.disconnect(TEAM)
    await app.clients.forget(TEAM)

    await slack.driver.app_home_opened(SUPERVISOR)
    admin_home = await home_after(slack, SUPERVISOR, 1)
    assert "Welcome to callops" in shown(admin_home)
    assert buttons(admin_home) == ["home_connect"]

    await slack.driver.app_home_opened(AGENT)
    viewer_home = await home_after(slack, AGENT, 1)
    assert "Welcome to callops" in shown(viewer_home)
    assert "Ask a callops admin" in shown(viewer_home)
    assert buttons(viewer_home) == []

    # The admin's Connect button opens the connect form.
    await slack.driver.block_action(
        user=SUPERVISOR, action_id="home_connect", view_id=admin_home["id"]
    )
    form = await slack.wait_for(lambda: top_view(slack, SUPERVISOR))
    assert form["callback_id"] == "connect_workspace"


async def test_a_redelivered_event_publishes_once(app: Runtime, slack: SlackStandIn) -> None:
    first = await slack.driver.app_home_opened(SUPERVISOR)
    await home_after(slack, SUPERVISOR, 1)

    retry = await slack.driver.resend(first)  # same event_id, X-Slack-Retry-Num: 1
    assert retry.acked  # acknowledged, so Slack stops retrying
    again = await slack.driver.resend(first, as_retry=False)
    assert again.acked

    # Bolt starts a listener before it answers, so the duplicates' work (had any begun)
    # was under way before this later event; once its Home is out, the count is final.
    await slack.driver.app_home_opened(MANAGER)
    await home_after(slack, MANAGER, 1)
    assert publishes(slack, SUPERVISOR) == 1
