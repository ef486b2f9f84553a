"""The autocall form in the browser: typed values are checked by the app, its field
errors shown on the form, and a valid form becomes a request waiting for approval."""

from __future__ import annotations

from playwright.async_api import expect

from callcenter import CallCenter
from demo.offline import Demo
from emulators.slack import APPROVALS, CALL_CENTER, MANAGER, SUPERVISOR
from tests.demo.conftest import APPROVE, BROWSER, Console

pytestmark = BROWSER


async def test_submit_the_autocall_modal(console: Console, demo: Demo) -> None:
    async with CallCenter(demo.pbx.base_url, demo.pbx.api_key) as cc:
        autocalls = [c async for c in cc.campaigns.iterate() if c.type == "autocall"]
    name = autocalls[0].campaign_name
    await console.open(SUPERVISOR, CALL_CENTER)
    await console.type_command(f'/callops autocall "{name}"')

    modal = console.modal
    await expect(modal.locator(".modal-title")).to_have_text("Push an autocall")
    await expect(modal).to_contain_text(name)
    phone = modal.locator(".input-block").filter(has_text="phone").locator("input")
    await phone.fill("12345")
    for field in await modal.locator(".input-block").filter(has_not_text="phone").all():
        await field.locator("input, textarea").fill("An")
    await modal.locator(".modal-footer button.primary").click()
    phone_error = modal.locator(".input-block").filter(has_text="phone").locator(".field-error")
    await expect(phone_error).to_be_visible()
    await expect(phone_error).not_to_be_empty()
    await expect(phone_error).not_to_contain_text("required")  # the app's verdict, not ours

    await phone.fill("0912345678")
    await modal.locator(".modal-footer button.primary").click()
    await expect(console.page.locator("#modal-backdrop")).to_be_hidden()
    asked = console.ephemerals.filter(has_text="Asked for approval").last
    await expect(asked).to_contain_text("#approvals")

    await console.switch_user(MANAGER)
    await console.go(APPROVALS)
    card = console.messages.filter(has_text="0912 *** 678").last  # masked where many read
    await expect(card).to_contain_text(name)
    await expect(card).to_contain_text("Requested by @sofia")
    await expect(card.locator("button", has_text=APPROVE)).to_be_visible()
