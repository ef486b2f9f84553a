"""Actions in the browser: pause a campaign from its card, request a start as one person
and approve it as another, and watch the card and App Home follow."""

from __future__ import annotations

from playwright.async_api import Locator, expect

from callcenter import CallCenter
from callcenter.models import Campaign
from demo.offline import Demo
from emulators.slack import AGENT, APPROVALS, SUPERVISOR
from tests.demo.conftest import APPROVE, BROWSER, Console, campaigns_of

pytestmark = BROWSER


async def status_of(demo: Demo, uuid: str) -> str:
    async with CallCenter(demo.pbx.base_url, demo.pbx.api_key) as cc:
        return (await cc.campaigns.get(uuid)).status


async def one_with(demo: Demo, status: str) -> Campaign:
    return next(c for c in await campaigns_of(demo) if c.status == status)


def home_row(console: Console, name: str) -> Locator:
    return console.home.locator(".block[data-type='section']", has_text=name).first


async def test_pause_from_the_campaign_card(console: Console, demo: Demo) -> None:
    campaign = await one_with(demo, "start")
    await console.open(SUPERVISOR)
    await console.type_command(f'/callops campaign "{campaign.campaign_name}"')
    card = console.ephemerals.filter(
        has=console.page.locator(".header-block", has_text=campaign.campaign_name)
    ).last
    await card.locator("[data-action-id='campaign_control_pause']").click()

    # Slack's confirm dialog asks first; confirming it is the confirm.
    dialog = console.page.locator("#confirm")
    await expect(dialog).to_contain_text(campaign.campaign_name)
    assert await status_of(demo, campaign.campaign_uuid) == "start", "nothing before the confirm"
    await dialog.locator("button.primary").click()

    # The card itself is redrawn: Start instead of Pause (in whichever language Hương reads).
    await expect(card.locator("[data-action-id='campaign_control_pause']")).to_have_count(0)
    await expect(card.locator("[data-action-id='campaign_control_start']")).to_have_count(1)
    assert await status_of(demo, campaign.campaign_uuid) == "pause"
    # And the channel has the request's card, confirmed by her.
    posted = console.page.locator("#messages .message:not(.ephemeral)")
    outcome = posted.filter(has_text=campaign.campaign_name).filter(has_text="@sofia").last
    await expect(outcome).to_be_visible()


async def test_start_requested_by_the_agent_and_approved_by_the_supervisor(
    console: Console, demo: Demo
) -> None:
    campaign = await one_with(demo, "pause")
    name = campaign.campaign_name
    await console.open(SUPERVISOR)
    await console.go("home")
    await expect(home_row(console, name)).to_contain_text("paused")

    await console.switch_user(AGENT)
    await console.go(demo.slack.channel("call-center").id)
    await console.type_command(f'/callops start "{name}"')
    prompt = console.ephemerals.filter(has_text="Start campaign").last
    await expect(prompt).to_contain_text("approval")
    await prompt.locator("button", has_text="Ask for approval").click()

    await console.go(APPROVALS)
    card = console.messages.filter(has_text="Start campaign").last
    await expect(card).to_contain_text(name)
    await expect(card).to_contain_text("Requested by @alex")
    await card.locator("button", has_text=APPROVE).click()
    refusal = console.ephemerals.last
    await expect(refusal).to_contain_text("someone else has to approve it")
    assert await status_of(demo, campaign.campaign_uuid) == "pause", "alex cannot approve"

    await console.switch_user(SUPERVISOR)
    card = console.messages.filter(has_text="Start campaign").last
    await card.locator("button", has_text=APPROVE).click()
    await expect(card).to_contain_text("Approved by @sofia")
    await expect(card).to_contain_text("running")
    await expect(card.locator("button", has_text=APPROVE)).to_have_count(0)
    assert await status_of(demo, campaign.campaign_uuid) == "start"

    await console.go("home")
    await expect(home_row(console, name)).to_contain_text("running")
