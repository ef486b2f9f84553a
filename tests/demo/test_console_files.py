"""Sharing files in the browser: the 📎 menu's sample leads CSV, a file picked from the
visitor's computer, a file dropped on the channel; and ``leads upload`` run on the shared
sample offline, from the check to the leads in the campaign's list after approval."""

from __future__ import annotations

from playwright.async_api import FilePayload, expect

from callcenter import CallCenter
from callcenter.models import Campaign
from demo.offline import Demo
from demo.sample_leads import SAMPLE_NAME, upload_target
from emulators.slack import AGENT, APPROVALS, CALL_CENTER, SUPERVISOR
from tests.demo.conftest import APPROVE, BROWSER, Console

pytestmark = BROWSER


async def sample_target(cc: CallCenter) -> Campaign:
    """The campaign the demo's sample leads file is meant for."""
    target = upload_target([c async for c in cc.campaigns.iterate()])
    assert target is not None
    return target


async def test_the_sample_csv_is_shared_and_its_leads_uploaded(
    console: Console, demo: Demo
) -> None:
    async with CallCenter(demo.pbx.base_url, demo.pbx.api_key) as cc:
        target = await sample_target(cc)
        before = await cc.lists.get(target.default_list_uuid)
    await console.open(AGENT, CALL_CENTER)
    await console.page.locator("#attach").click()
    sample = console.page.locator(".attach-item", has_text=SAMPLE_NAME)
    await expect(sample).to_contain_text(f'leads upload "{target.campaign_name}"')
    await sample.click()
    shared = console.messages.filter(has=console.page.locator(".file-chip", has_text=SAMPLE_NAME))
    await expect(shared).to_have_count(1)
    await expect(shared.locator(".author")).to_have_text("Alex Morgan")

    await console.type_command(f'/callops leads upload "{target.campaign_name}"')
    prompt = console.ephemerals.filter(has_text="Upload 20 leads").last
    await expect(prompt).to_contain_text(SAMPLE_NAME)
    await expect(prompt).to_contain_text("6 left out")
    await expect(prompt).to_contain_text(target.default_list_uuid)
    await expect(prompt).to_contain_text("in a direct message")
    # The rows to fix hold customers' numbers: in the uploader's messages, not the channel.
    fix = console.page.locator(".file-chip", has_text="sample-leads-rows-to-fix.csv")
    await expect(fix).to_have_count(0)
    await console.go("app")
    await expect(fix).to_have_count(1)
    await console.go(CALL_CENTER)
    prompt = console.ephemerals.filter(has_text="Upload 20 leads").last
    await prompt.locator("button", has_text="Ask for approval").click()
    await expect(console.ephemerals.filter(has_text="Asked for approval").last).to_be_visible()

    await console.switch_user(SUPERVISOR)
    await console.go(APPROVALS)
    card = console.messages.filter(has_text=SAMPLE_NAME).last
    await card.locator("button", has_text=APPROVE).click()
    await expect(card).to_contain_text("Uploaded 20 leads")
    async with CallCenter(demo.pbx.base_url, demo.pbx.api_key) as cc:
        after = await cc.lists.get(target.default_list_uuid)
    assert after.total_upload == before.total_upload + 20


async def test_a_picked_or_dropped_file_is_shared_in_the_open_channel(
    console: Console, demo: Demo
) -> None:
    await console.open(AGENT, CALL_CENTER)
    picked: FilePayload = {
        "name": "picked.csv",
        "mimeType": "text/csv",
        "buffer": b"phone_number\n0912345678\n",
    }
    await console.page.locator("#file-input").set_input_files(files=[picked])
    await expect(console.page.locator(".file-chip", has_text="picked.csv")).to_have_count(1)

    main = console.page.locator("main.main")
    dropped = await console.page.evaluate_handle(
        """() => {
            const data = new DataTransfer();
            const body = "phone_number\\n0987654321\\n";
            data.items.add(new File([body], "dropped.csv", {type: "text/csv"}));
            return data;
        }"""
    )
    await main.dispatch_event("dragenter", {"dataTransfer": dropped})
    await expect(console.page.locator("#drop-zone")).to_be_visible()
    await main.dispatch_event("drop", {"dataTransfer": dropped})
    await expect(console.page.locator("#drop-zone")).to_be_hidden()
    await expect(console.page.locator(".file-chip", has_text="dropped.csv")).to_have_count(1)
    names = [f["name"] for m in demo.slack.messages(CALL_CENTER) for f in m.get("files", [])]
    assert names == ["picked.csv", "dropped.csv"]
    assert all(m["user"] == AGENT for m in demo.slack.messages(CALL_CENTER) if m.get("files"))


async def test_the_campaign_card_shows_its_list_and_calls_show_their_ids(
    console: Console, demo: Demo
) -> None:
    async with CallCenter(demo.pbx.base_url, demo.pbx.api_key) as cc:
        target = await sample_target(cc)
        lead_list = await cc.lists.get(target.default_list_uuid)
        live = (await cc.calls.list()).data
    await console.open(SUPERVISOR, CALL_CENTER)
    await console.type_command(f'/callops campaign "{target.campaign_name}"')
    card = console.ephemerals.filter(has_text=f"Lead list: {lead_list.list_name}").last
    await expect(card).to_contain_text(lead_list.list_uuid)
    for label in ("Add lead", "Upload leads", "Open list"):
        await expect(card.locator("button", has_text=label)).to_be_visible()
    await card.locator("button", has_text="Add lead").click()
    await expect(console.modal.locator(".modal-title")).to_have_text("Add a lead")
    await expect(console.modal).to_contain_text(lead_list.list_uuid)
    await console.modal.locator(".modal-footer button", has_text="Cancel").click()

    assert live, "the demo has live calls"
    await console.type_command("/callops calls")
    listing = console.ephemerals.filter(has_text="Live calls").last
    await expect(listing).to_contain_text(f"call {live[0].call_id}")
    await expect(listing).to_contain_text("campaign unknown")
    await listing.locator("button", has_text="Transfer").first.click()
    picker = console.modal.locator("select").first
    await expect(picker.locator("option", has_text="1002")).to_have_count(1)
