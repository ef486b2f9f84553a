"""Take ``docs/console.png``, the README's picture of the demo, from the running demo.

    .venv/bin/python scripts/screenshot.py [--out docs/console.png]

Starts the demo in-process (``bot.demo.running_demo`` on ephemeral loopback ports), drives
the console in headless Chromium (Debian's ``/usr/bin/chromium``) the way a visitor would
(an agent asks to start two campaigns, the supervisor approves one in #approvals), and
saves what the browser shows. Nothing is drawn by hand, so the picture changes when
the app's messages do. ``make screenshot`` runs it after installing the Debian packages it
needs (``chromium``, and ``fonts-noto-color-emoji`` for Slack's emoji in colour).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from urllib.parse import urlencode

from playwright.async_api import Page, ViewportSize, async_playwright, expect

from bot.demo import Demo, running_demo
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


async def take(out: Path) -> None:
    async with running_demo(port=0) as demo, async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page(viewport=VIEWPORT, device_scale_factor=1)
            page.set_default_timeout(15_000)
            await scene(page, demo)
            out.parent.mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=str(out))
        finally:
            await browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=Path("docs/console.png"))
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        print(
            f"{CHROMIUM} is missing: `make screenshot` installs it as root, "
            "or run: sudo apt-get install -y chromium",
            file=sys.stderr,
        )
        return 2
    asyncio.run(take(args.out))
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
