"""Workflow steps, shortcuts and tables in the browser: the console runs one of the app's
steps and shows its outputs or its error, offers its shortcuts as Slack does, and draws
the table block."""

from __future__ import annotations

from playwright.async_api import expect

from callcenter import CallCenter
from demo.offline import Demo
from emulators.slack import AGENT, APPROVALS, CALL_CENTER, MANAGER, SUPERVISOR
from tests.demo.conftest import BROWSER, Console, campaigns_of

pytestmark = BROWSER


async def test_a_listing_is_drawn_as_a_table(console: Console) -> None:
    await console.open(SUPERVISOR, CALL_CENTER)
    await console.type_command("/callops campaigns")
    table = console.ephemerals.last.locator(".table-block table")
    await expect(table.locator("th").first).to_have_text("Campaign")
    await expect(table.locator("tr")).to_have_count(11)  # header and a page of ten
    await expect(console.ephemerals.last.locator("button", has_text="Open")).to_have_count(10)


async def test_run_a_step_and_see_its_outputs_or_its_error(console: Console, demo: Demo) -> None:
    running = next(
        c for c in await campaigns_of(demo) if c.type == "autodialer" and c.status == "start"
    )
    form = await console.open_step(SUPERVISOR, "Campaign figures")
    page = console.page
    await expect(form.locator("[data-input='interactivity']")).to_contain_text(
        "You (Nguyễn Thị Hương"
    )
    await form.locator("input[name='campaign']").fill(running.campaign_name)
    await form.locator("input[name='window']").fill("soon")
    await page.locator("#step-run").click()
    await expect(page.locator("#step-result .step-error")).to_contain_text("'soon' is not one")

    demo.pbx.freeze_clock()  # no call may end between the step and the check below
    await form.locator("input[name='window']").fill("2h")
    await page.locator("#step-run").click()
    await expect(page.locator("#step-result .step-done")).to_be_visible()
    async with CallCenter(demo.pbx.base_url, demo.pbx.api_key) as cc:
        stats = [s async for s in cc.reports.iterate_autodialer(120, [running.campaign_uuid])]
    calls = page.locator("#step-result tr[data-output='calls'] td")
    await expect(calls).to_have_text(str(stats[0].total_calls))
    window = page.locator("#step-result tr[data-output='window_minutes'] td")
    await expect(window).to_have_text("120")


async def test_call_back_from_a_messages_menu(console: Console) -> None:
    await console.open(SUPERVISOR, CALL_CENTER)
    await console.type_command("Khách hàng gọi lại số 0912 345 678 nhé")
    message = console.message_with("gọi lại số")
    await message.hover()
    await message.locator(".msg-more").click()
    await message.locator(".shortcut-item", has_text="Call back with callops").click()
    modal = console.modal
    await expect(modal).to_contain_text("0912 345 678")
    await modal.locator("select").select_option(index=1)
    await expect(modal.locator(".modal-title")).to_have_text("Push an autocall")
    phone = modal.locator(".input-block").filter(has_text="phone").locator("input")
    await expect(phone).to_have_value("0912345678")


async def test_the_status_shortcut_opens_the_wallboard(console: Console) -> None:
    await console.open(SUPERVISOR, CALL_CENTER)
    await console.page.locator(".shortcut-global", has_text="Call-center status").click()
    await expect(console.modal.locator(".modal-title")).to_have_text("Call-center status")
    await expect(console.modal).to_contain_text("Call center wallboard")


async def test_the_step_panel_follows_the_person_and_shows_how_a_run_ended(
    console: Console, demo: Demo
) -> None:
    paused = next(c for c in await campaigns_of(demo) if c.status == "pause")
    form = await console.open_step(AGENT, "Start a campaign")
    page = console.page
    await expect(form.locator("[data-input='interactivity']")).to_contain_text("You (Alex")
    await form.locator("input[name='campaign']").fill(paused.campaign_uuid)
    await page.locator("#step-run").click()
    await expect(page.locator("#step-result .step-waiting")).to_be_visible()
    await page.locator("#step-panel .icon-button").click()

    # Maria denies the request in #approvals while the panel is closed.
    await console.switch_user(MANAGER)
    await console.go(APPROVALS)
    card = console.messages.filter(has_text=paused.campaign_name).last
    deny = card.locator("button[data-action-id='approval_deny']")
    await deny.click()
    await console.modal.locator("textarea, input[type='text']").first.fill("Not before 9")
    await console.modal.locator("button.primary").click()
    await expect(deny).to_have_count(0)

    await page.locator("#nav-steps").click()
    await expect(page.locator("#step-result .step-error")).to_contain_text("Not before 9")
    await expect(page.locator("#step-result .step-waiting")).to_have_count(0)
    await expect(form.locator("[data-input='interactivity']")).to_contain_text("You (Trần Văn Minh")


async def test_a_step_run_as_a_schedule_acts_with_the_workflows_role(
    console: Console, demo: Demo
) -> None:
    running = next(c for c in await campaigns_of(demo) if c.status == "start")
    form = await console.open_step(SUPERVISOR, "Pause a campaign")
    page = console.page
    await form.locator("select[name='interactivity']").select_option("schedule")
    await form.locator("input[name='campaign']").fill(running.campaign_uuid)
    await page.locator("#step-run").click()
    await expect(page.locator("#step-result .step-error")).to_contain_text(
        "/callops role workflows operator"
    )
