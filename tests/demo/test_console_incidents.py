"""The emulator's bad day from the console: a person makes Viettel stop answering from
the sidebar, sees it listed, asks for an anomaly alert, and ends it; the emulator itself
is what changed."""

from __future__ import annotations

import asyncio

from playwright.async_api import expect

from demo.offline import Demo
from tests.demo.conftest import BROWSER, Console

pytestmark = BROWSER


async def test_an_incident_is_set_and_ended_from_the_sidebar(console: Console, demo: Demo) -> None:
    await console.open()
    page = console.page
    await page.locator("#incident-input").fill("network=viettel:answer=0.05:from=10:00")
    await page.locator("#incident-add").click()
    await expect(page.locator("#incident-list li")).to_have_text(
        ["network=Viettel:answer=0.05:from=10:00"]
    )
    found = await asyncio.to_thread(demo.pbx._control, "GET", "incidents")
    assert [i["network"] for i in found] == ["Viettel"]
    await console.type_command("/callops alert add #call-center anomaly")
    await expect(console.ephemerals.last).to_contain_text("Anomaly alert")

    await page.locator("#incident-input").fill("network=Nokia:answer=0:from=10:00")
    await page.locator("#incident-add").click()
    await expect(page.locator("#status")).to_contain_text("unknown network")

    await page.locator("#incident-clear").click()
    await expect(page.locator("#incident-list li")).to_have_count(0)
    assert await asyncio.to_thread(demo.pbx._control, "GET", "incidents") == []
    assert console.errors == []
