"""Take the pictures under ``docs/`` from the running demo.

    .venv/bin/python scripts/screenshot.py [--scene console|campaign-card|calls] [--out PATH]

Starts the demo in-process (``bot.demo.running_demo`` on ephemeral loopback ports), drives
the console in headless Chromium (Debian's ``/usr/bin/chromium``) the way a visitor would,
and saves what the browser shows. Each scene is one picture:

* ``console`` (``docs/console.png``, the README's): an agent asks to start two campaigns,
  the supervisor approves one in #approvals;
* ``campaign-card`` (``docs/campaign-card.png``): the supervisor shares the demo's sample
  leads CSV and opens the campaign it is meant for, whose card shows its lead list;
* ``calls`` (``docs/calls.png``): the live calls, each with its id, agent and campaign.

Without ``--scene`` every picture is taken. Nothing is drawn by hand, so the pictures
change when the app's messages do. ``make screenshot`` runs it after installing the Debian
packages it needs (``chromium``, and ``fonts-noto-color-emoji`` for Slack's emoji in colour).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from urllib.parse import urlencode

from playwright.async_api import Page, ViewportSize, async_playwright, expect

from bot.demo import Demo, running_demo
from bot.demo_leads import SAMPLE_NAME, upload_target
from callcenter import CallCenter
from emulators.slack import AGENT, APPROVALS, CALL_CENTER, SUPERVISOR

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
VIEWPORT: ViewportSize = {"width": 1440, "height": 900}


async def paused_campaigns(demo: Demo, count: int) -> list[str]:
    async with CallCenter(demo.pbx.base_url, demo.pbx.api_key) as cc:
        names = [c.campaign_name async for c in cc.campaigns.iterate() if c.status == "pause"]
    return names[:count]


async def command(page: Page, text: str) -> None:
    composer = page.locator("#composer")
    await composer.fill(text)
    await composer.press("Enter")


async def scene(page: Page, demo: Demo) -> None:
    """Alex (an operator) asks to start two paused campaigns; Sofia (an admin) approves
    the first in #approvals and opens its thread; the second still waits."""
    first, second = await paused_campaigns(demo, 2)
    query = urlencode({"user": AGENT, "view": CALL_CENTER})
    await page.goto(f"{demo.console_url}?{query}")
    await expect(page.locator("#live.on")).to_have_count(1)
    for name in (first, second):
        await command(page, f'/callops start "{name}"')
        prompt = page.locator("#messages .message.ephemeral", has_text=name).last
        await prompt.locator("button", has_text="Ask for approval").click()
        await expect(
            page.locator("#messages .message", has_text="Asked for approval")
        ).not_to_have_count(0)

    await page.locator("#user-switcher").select_option(SUPERVISOR)
    await page.locator(f".nav-item[data-view='{APPROVALS}']").click()
    card = page.locator("#messages .message", has_text=first).last
    await card.locator("button", has_text="Approve").click()
    await expect(card).to_contain_text("Approved by")
    await card.locator(".thread-link").click()
    await expect(page.locator("#thread .message").nth(1)).to_be_visible()
    pending = page.locator("#messages .message", has_text=second).last
    await expect(pending.locator("button", has_text="Approve")).to_be_visible()
    await page.mouse.move(0, 0)


async def campaign_card_scene(page: Page, demo: Demo) -> None:
    """Sofia shares the sample leads CSV from the 📎 menu, then opens the campaign it is
    meant for: its card ends with the lead list (name, totals, UUID) and its buttons."""
    async with CallCenter(demo.pbx.base_url, demo.pbx.api_key) as cc:
        target = upload_target([c async for c in cc.campaigns.iterate()])
    if target is None:
        raise RuntimeError("the demo has no campaign with a lead list")
    query = urlencode({"user": SUPERVISOR, "view": CALL_CENTER})
    await page.goto(f"{demo.console_url}?{query}")
    await expect(page.locator("#live.on")).to_have_count(1)
    await page.locator("#attach").click()
    await page.locator(".attach-item", has_text=SAMPLE_NAME).click()
    await expect(page.locator(".file-chip", has_text=SAMPLE_NAME)).to_have_count(1)
    await command(page, f'/callops campaign "{target.campaign_name}"')
    card = page.locator("#messages .message.ephemeral", has_text="Lead list:").last
    await expect(card.locator("button", has_text="Upload leads")).to_be_visible()
    await page.mouse.move(0, 0)


async def calls_scene(page: Page, demo: Demo) -> None:
    """Sofia lists the live calls and moves the last one to extension 1002 with its
    Transfer form (the directory's extensions by name); listed again, each call shows its
    id, its agent where an extension is on the line (else "unknown"), and that its
    campaign is unknown while it is live."""
    query = urlencode({"user": SUPERVISOR, "view": CALL_CENTER})
    await page.goto(f"{demo.console_url}?{query}")
    await expect(page.locator("#live.on")).to_have_count(1)
    await command(page, "/callops calls")
    listing = page.locator("#messages .message.ephemeral", has_text="Live calls").last
    await listing.locator("button", has_text="Transfer").last.click()
    modal = page.locator("#modal-backdrop:not([hidden]) #modal")
    await modal.locator("select").first.select_option("1002")
    await modal.locator(".modal-footer button.primary").click()
    await expect(page.locator("#messages .message", has_text="Transferred").last).to_be_visible()
    await command(page, "/callops calls")
    again = page.locator("#messages .message.ephemeral", has_text="(ext 1002)")
    await expect(again.locator("button", has_text="Transfer").first).to_be_visible()
    await page.mouse.move(0, 0)


Scene = Callable[[Page, Demo], Awaitable[None]]
SCENES: dict[str, tuple[Scene, Path]] = {
    "console": (scene, Path("docs/console.png")),
    "campaign-card": (campaign_card_scene, Path("docs/campaign-card.png")),
    "calls": (calls_scene, Path("docs/calls.png")),
}


async def take(shots: list[tuple[Scene, Path]]) -> None:
    """Each scene on a fresh demo, so one picture never shows another's traces."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for play, out in shots:
                async with running_demo(port=0) as demo:
                    page = await browser.new_page(viewport=VIEWPORT, device_scale_factor=1)
                    page.set_default_timeout(15_000)
                    await play(page, demo)
                    out.parent.mkdir(parents=True, exist_ok=True)
                    await page.screenshot(path=str(out))
                    await page.close()
                print(f"saved {out}")
        finally:
            await browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--scene", choices=sorted(SCENES), help="one picture (default: all)")
    parser.add_argument("--out", type=Path, help="where to save it (with --scene)")
    args = parser.parse_args()
    if args.out is not None and args.scene is None:
        parser.error("--out needs --scene")
    if not Path(CHROMIUM).exists():
        print(
            f"{CHROMIUM} is missing: `make screenshot` installs it as root, "
            "or run: sudo apt-get install -y chromium",
            file=sys.stderr,
        )
        return 2
    names = [args.scene] if args.scene else list(SCENES)
    shots = [(SCENES[n][0], args.out or SCENES[n][1]) for n in names]
    asyncio.run(take(shots))
    return 0


if __name__ == "__main__":
    sys.exit(main())
