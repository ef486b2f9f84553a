"""What a visitor of ``make demo`` sees and does in the console, in headless Chromium:
commands with completion, campaign cards, App Home, modals with field errors, users who
see only their own ephemeral messages, and live updates without reloading."""

from __future__ import annotations

import httpx
from playwright.async_api import expect

from demo.offline import Demo
from emulators.slack import AGENT, CALL_CENTER, SUPERVISOR
from tests.demo.conftest import BROWSER, Console, campaigns_of

pytestmark = BROWSER


async def test_typing_campaigns_with_completion_lists_the_emulators_campaigns(
    console: Console, demo: Demo
) -> None:
    await console.open()
    composer = console.page.locator("#composer")
    await composer.fill("/callops camp")
    offered = console.page.locator("#completions .completion")
    await expect(offered.first).to_contain_text("/callops campaigns")
    await expect(offered.filter(has_text="/callops campaign <name>")).to_have_count(1)
    await composer.press("Tab")
    await expect(composer).to_have_value("/callops campaigns ")
    await composer.press("Enter")

    reply = console.ephemerals.last
    await expect(reply).to_contain_text("Only visible to you")
    running = [c for c in await campaigns_of(demo) if c.status == "start"]
    assert running
    for campaign in running[:3]:
        await expect(reply).to_contain_text(campaign.campaign_name)
    await expect(console.page.locator("#status")).to_contain_text("acked")


async def test_opening_a_campaign_shows_its_card(console: Console, demo: Demo) -> None:
    await console.open()
    await console.type_command("/callops campaigns")
    listing = console.ephemerals.last
    first_row = listing.locator(".table-block tr").nth(1)
    name = (await first_row.locator("td").first.inner_text()).strip()
    await listing.locator("button", has_text=f"Open {name}").click()

    card = console.ephemerals.filter(has=console.page.locator(".header-block", has_text=name)).last
    await expect(card.locator(".fields")).to_contain_text("Status")
    await expect(card.locator(".fields")).to_contain_text("Concurrency")
    await expect(card.locator("button", has_text="Refresh")).to_be_visible()
    assert any(c.campaign_name == name for c in await campaigns_of(demo))


async def test_ephemeral_replies_are_only_shown_to_the_person_who_asked(
    console: Console, demo: Demo
) -> None:
    await console.open(SUPERVISOR)
    await console.type_command("/callops help")
    await expect(console.ephemerals.last).to_contain_text("campaigns")
    await console.switch_user(AGENT)
    await expect(console.page.locator("#view-title")).to_have_text("#call-center")
    await expect(console.ephemerals).to_have_count(0)
    await console.switch_user(SUPERVISOR)
    await expect(console.ephemerals).to_have_count(1)


async def test_app_home_shows_the_wallboard_for_each_person(console: Console, demo: Demo) -> None:
    await console.open()
    await console.go("home")
    await expect(console.home.locator(".header-block").first).to_be_visible()
    running = [c for c in await campaigns_of(demo) if c.status == "start"]
    await expect(console.home).to_contain_text(running[0].campaign_name)
    assert demo.slack.home(SUPERVISOR) is not None
    await console.switch_user(AGENT)
    await demo.slack.wait_for(lambda: demo.slack.home(AGENT))  # Home opened as alex
    await expect(console.home).to_contain_text(running[0].campaign_name)


async def test_connect_modal_shows_the_apps_field_error_then_submits(
    console: Console, demo: Demo
) -> None:
    await console.open()
    await console.type_command("/callops connect")
    modal = console.modal
    await expect(modal.locator(".modal-title")).to_have_text("Connect call center")

    await modal.locator("button", has_text="Connect").click()
    key_error = modal.locator(".input-block", has_text="API key").locator(".field-error")
    await expect(key_error).to_contain_text("required")
    assert not any(d.kind == "view_submission" for d in demo.slack.driver.history), (
        "Slack does not submit a modal with a required field empty"
    )

    url = modal.locator(".input-block", has_text="Service URL").locator("input")
    key = modal.locator(".input-block", has_text="API key").locator("input")
    await url.fill(demo.pbx.base_url)
    await key.fill("not-a-real-key")
    await modal.locator("button", has_text="Connect").click()
    await expect(key_error).to_contain_text("refused")
    await expect(key).to_have_value("not-a-real-key")  # the form keeps what was typed

    await key.fill(demo.pbx.api_key)
    await modal.locator("button", has_text="Connect").click()
    await expect(console.page.locator("#modal-backdrop")).to_be_hidden()
    await expect(console.ephemerals.last).to_contain_text("Connected to")
    submitted = [d for d in demo.slack.driver.history if d.kind == "view_submission"]
    assert len(submitted) == 2 and all(d.acked for d in submitted)


async def test_cancel_closes_the_modal(console: Console, demo: Demo) -> None:
    await console.open()
    await console.type_command("/callops connect")
    await expect(console.modal).to_be_visible()
    await console.modal.locator("button", has_text="Cancel").click()
    await expect(console.page.locator("#modal-backdrop")).to_be_hidden()
    assert demo.slack.views(SUPERVISOR) == []


async def test_messages_arrive_live_without_reloading(console: Console, demo: Demo) -> None:
    await console.open()
    async with httpx.AsyncClient(base_url=demo.slack.base_url, trust_env=False) as other_tab:
        posted = await other_tab.post(
            "console/api/message",
            json={"user": AGENT, "channel": CALL_CENTER, "text": "Shift starts now"},
        )
        assert posted.json()["ok"]
    await expect(console.message_with("Shift starts now")).to_contain_text("Alex Morgan")
    typed = console.page.locator("#composer")
    await typed.fill("Morning all")
    await typed.press("Enter")
    await expect(console.message_with("Morning all")).to_contain_text("Nguyễn Thị Hương")
    assert not [d for d in demo.slack.driver.history if d.kind == "event_callback"], (
        "callops subscribes to no message events, so Slack sends the app none"
    )
