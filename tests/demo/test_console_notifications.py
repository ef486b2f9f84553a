"""Call notifications in the browser: the demo's autocall campaigns call the app back,
and the record appears in #call-feed, a channel of its own, while the page is open."""

from __future__ import annotations

import asyncio

from playwright.async_api import expect

from callcenter import CallCenter
from commands.kernel.phones import show_phone
from demo.offline import Demo
from emulators.slack import CALL_CENTER, SUPERVISOR
from tests.demo.conftest import BROWSER, Console

pytestmark = BROWSER

PHONE = "0912345678"


async def test_a_finished_call_shows_up_live_in_the_call_feed(console: Console, demo: Demo) -> None:
    async with CallCenter(demo.pbx.base_url, demo.pbx.api_key) as cc:
        autocalls = [c async for c in cc.campaigns.iterate() if c.type == "autocall"]
    autocall = autocalls[0]
    await console.open(SUPERVISOR, demo.call_feed)
    # The test ends the call itself: in the demo's timed mode a busy machine could let
    # the simulation end it first, and the hang-up would find no call.
    await asyncio.to_thread(demo.pbx.set_call_mode, "manual")
    call = await asyncio.to_thread(
        demo.pbx.originate,
        direction="outbound",
        campaign_uuid=autocall.campaign_uuid,
        destination=PHONE,
    )
    await asyncio.to_thread(demo.pbx.answer, call["call_id"])
    await asyncio.to_thread(demo.pbx.hangup, call["call_id"])

    # The demo's workspace is new: the channel reads the customer's number masked.
    card = console.messages.filter(has_text=show_phone(PHONE, mask=True)).last
    await expect(card).to_contain_text("Answered")
    await expect(card).to_contain_text(autocall.campaign_name)
    await expect(card.locator(".only-you")).to_have_count(0)  # posted for the channel
    await expect(console.page.locator("#view-title")).to_have_text("#call-feed")
    # #call-center, where people type and read, gets none of the cards.
    assert not [
        m for m in demo.slack.messages(CALL_CENTER) if show_phone(PHONE, mask=True) in str(m)
    ]
