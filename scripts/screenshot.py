"""Take the docs' pictures of the demo (``docs/<scene>.png``) from the running demo.

    .venv/bin/python scripts/screenshot.py [--scene NAME] [--out PATH]

Starts the demo in-process (``demo.offline.running_demo`` on ephemeral loopback ports), drives
the console in headless Chromium (Debian's ``/usr/bin/chromium``) the way a visitor would,
and saves what the browser shows.  ``console``: an agent asks to start two campaigns, the
supervisor approves one in #approvals.  ``digest``: the manager runs the sample digest in
#digests and asks for it up to now.  ``wallboard``: the supervisor's Home tab.
``campaign-card``: the supervisor shares the demo's sample leads CSV and opens the
campaign it is meant for, whose card shows its lead list.  ``calls``: the live calls, each
with its id, agent and campaign, after one is moved with its Transfer form.
``console-vi``: the demo as shipped, in Vietnamese: Hương reads the help, a campaign's
card and the sample digest with its chart in #digests.  ``insights-vi``: Hương asks for
yesterday's insights (``phan-tich``) after five weeks of traffic.  ``anomaly-vi``: after
Viettel stops answering (the console's incident control), an anomaly alert in
#call-center with its band chart in the thread.  The other scenes show the demo read in
English (its workspace, Hương and Minh set so, as the console tests read it).  Without
``--scene`` all are taken, each from a fresh demo.  Nothing is drawn by hand, so the
pictures change when the app's messages do. ``make screenshot`` runs it after installing
the Debian packages it needs (``chromium``, and ``fonts-noto-color-emoji`` for Slack's
emoji in colour).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.browser

from playwright.async_api import Locator, Page, ViewportSize, async_playwright, expect

from callcenter import CallCenter
from callcenter.models import Campaign
from commands.kernel.i18n import in_language
from demo.offline import Demo, running_demo
from demo.sample_leads import SAMPLE_NAME, upload_target
from emulators.slack import AGENT, APPROVALS, CALL_CENTER, DIGESTS, MANAGER, SUPERVISOR, TEAM
from tests.browser import CHROMIUM, CHROMIUM_ARGS

VIEWPORT: ViewportSize = {"width": 1440, "height": 900}
MAX_HEIGHT = 2600


async def paused_campaigns(demo: Demo, count: int) -> list[str]:
    async with CallCenter(demo.pbx.base_url, demo.pbx.api_key) as cc:
        names = [c.campaign_name async for c in cc.campaigns.iterate() if c.status == "pause"]
    return names[:count]


async def open_console(page: Page, demo: Demo, user: str, view: str) -> None:
    """The console as ``user`` sees it, on ``view``, once its live updates are on."""
    query = urlencode({"user": user, "view": view})
    await page.goto(f"{demo.console_url}?{query}")
    await expect(page.locator("#live.on")).to_have_count(1)


async def sample_target(demo: Demo) -> Campaign:
    """The campaign the sample leads CSV is meant for."""
    async with CallCenter(demo.pbx.base_url, demo.pbx.api_key) as cc:
        target = upload_target([c async for c in cc.campaigns.iterate()])
    if target is None:
        raise RuntimeError("the demo has no campaign with a lead list")
    return target


async def command(page: Page, text: str) -> None:
    composer = page.locator("#composer")
    await composer.fill(text)
    await composer.press("Enter")


async def scene(page: Page, demo: Demo) -> None:
    """Alex (an operator) asks to start two paused campaigns; Hương (an admin) approves
    the first in #approvals and opens its thread; the second still waits."""
    first, second = await paused_campaigns(demo, 2)
    await open_console(page, demo, AGENT, CALL_CENTER)
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
    """Hương shares the sample leads CSV from the 📎 menu, then opens the campaign it is
    meant for: its card ends with the lead list (name, totals, UUID) and its buttons."""
    target = await sample_target(demo)
    await open_console(page, demo, SUPERVISOR, CALL_CENTER)
    await page.locator("#attach").click()
    await page.locator(".attach-item", has_text=SAMPLE_NAME).click()
    await expect(page.locator(".file-chip", has_text=SAMPLE_NAME)).to_have_count(1)
    await command(page, f'/callops campaign "{target.campaign_name}"')
    card = page.locator("#messages .message.ephemeral", has_text="Lead list:").last
    await expect(card.locator("button", has_text="Upload leads")).to_be_visible()
    await page.mouse.move(0, 0)


async def calls_scene(page: Page, demo: Demo) -> None:
    """Hương lists the live calls and moves the last one to extension 1002 with its
    Transfer form (the directory's extensions by name); listed again, each call shows its
    id, its agent where an extension is on the line (else "unknown"), and that its
    campaign is unknown while it is live."""
    await open_console(page, demo, SUPERVISOR, CALL_CENTER)
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


async def digest_scene(page: Page, demo: Demo) -> None:
    """Minh (an admin) posts the sample digest in #digests, reads which period it covers
    and why, and asks for it up to now; the digests and their charts stay on screen."""
    digest = demo.rt.storage.digests.list(TEAM)[0]
    await open_console(page, demo, MANAGER, DIGESTS)
    await command(page, f"/callops digest run {digest.id}")
    answer = page.locator("#messages .message.ephemeral", has_text="last complete period").last
    await answer.locator("button", has_text="Up to now").click()
    await expect(page.locator("#messages .message", has_text="asked for by")).not_to_have_count(0)
    await expect(page.locator("#messages img")).to_have_count(2)
    # From the answer that says which period and why, down to the digest up to now.
    await fit(page, "messages", first=answer)


async def vietnamese_scene(page: Page, demo: Demo) -> None:
    """Hương, who uses Slack in Vietnamese, types the Vietnamese command words: the help,
    a campaign's card, then the sample digest up to now, with its chart."""
    digest = demo.rt.storage.digests.list(TEAM)[0]
    target = await sample_target(demo)
    await open_console(page, demo, SUPERVISOR, DIGESTS)
    await command(page, "/callops tro-giup tam-dung")
    help_reply = page.locator("#messages .message.ephemeral", has_text="tam-dung").last
    await expect(help_reply).to_be_visible()
    await command(page, f'/callops xem-chien-dich "{target.campaign_name}"')
    await expect(
        page.locator("#messages .message.ephemeral", has_text=target.campaign_name)
    ).not_to_have_count(0)
    await command(page, f"/callops ban-tin gui {digest.id}")
    up_to_now = in_language("vi", "Up to now")
    answer = page.locator("#messages .message.ephemeral", has_text=up_to_now).last
    await answer.locator("button", has_text=up_to_now).click()
    await expect(page.locator("#messages img")).to_have_count(1)
    await fit(page, "messages", first=help_reply)


async def anomaly_scene(page: Page, demo: Demo) -> None:
    """The demo as shipped, in Vietnamese: five weeks of a call center's traffic, Viettel
    stops answering at 17:00 (set from the console's sidebar), Hương asks for anomaly
    alerts, and the check of 17:40 posts one in #call-center, its chart in the thread."""
    from datetime import datetime, time, timedelta
    from zoneinfo import ZoneInfo

    hcm = ZoneInfo("Asia/Ho_Chi_Minh")
    day = datetime.fromtimestamp(demo.pbx.now(), hcm).date() + timedelta(days=1)
    end = datetime.combine(day, time(17, 40), hcm)
    await asyncio.to_thread(demo.pbx.freeze_clock, end.timestamp())
    start = datetime.combine(day - timedelta(days=35), time(0, 0), hcm).timestamp()
    five = end.timestamp() - 2400
    await asyncio.to_thread(demo.pbx.fill_volume, 3000, start, five)
    await open_console(page, demo, SUPERVISOR, CALL_CENTER)
    await page.locator("#incident-input").fill("network=Viettel:answer=0.05:from=17:00")
    await page.locator("#incident-add").click()
    await expect(page.locator("#incident-list li")).to_have_count(1)
    await asyncio.to_thread(demo.pbx.fill_volume, 3000, five, end.timestamp())
    await command(page, "/callops canh-bao them #call-center bat-thuong")
    asked = page.locator("#messages .message.ephemeral").last
    await expect(asked).to_be_visible()
    from bot.jobs import env_of
    from commands.digests.anomaly_watch import watch_of

    await watch_of(env_of(demo.rt)).tick(end)
    post = page.locator("#messages .message", has_text="Viettel").last
    await expect(post).to_be_visible()
    await post.locator(".thread-link").click()
    await expect(page.locator("#thread .dataviz-block")).to_have_count(1)
    await fit(page, "messages", first=asked)


async def insights_scene(page: Page, demo: Demo) -> None:
    """Hương asks in Vietnamese for yesterday's insights, after five weeks of a call
    center's traffic: the KPIs against their usual band, the chart, the best hours to
    call, the networks, the agents."""
    from datetime import datetime, timedelta
    from zoneinfo import ZoneInfo

    now = demo.pbx.now()
    await asyncio.to_thread(demo.pbx.fill_volume, 3000, now - 35 * 86400, now)
    yesterday = datetime.fromtimestamp(now, ZoneInfo("Asia/Ho_Chi_Minh")).date() - timedelta(1)
    await open_console(page, demo, SUPERVISOR, CALL_CENTER)
    await command(page, f"/callops phan-tich {yesterday.isoformat()}")
    title = in_language("vi", "Insights: {scope}, {day}").split(":")[0]
    reply = page.locator("#messages .message.ephemeral", has_text=title).last
    await expect(reply).to_be_visible(timeout=180_000)  # four weeks of records are read
    await fit(page, "messages", first=reply)


async def agents_on_calls(demo: Demo, count: int, within: float = 90.0) -> None:
    """Wait (on the emulator's own real-time simulation) until ``count`` live calls have
    an agent on them."""
    deadline = asyncio.get_running_loop().time() + within
    while True:
        calls = await asyncio.to_thread(demo.pbx.live_calls, "demo")
        if sum(1 for c in calls if c["extension"]) >= count:
            return
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"fewer than {count} calls were answered within {within:g}s")
        await asyncio.sleep(0.5)


async def wallboard_scene(page: Page, demo: Demo) -> None:
    """The supervisor opens the Home tab: the wallboard, every section saying what it covers
    (once agents have taken some of the dialers' calls, so there is someone in call)."""
    await agents_on_calls(demo, 2)
    await open_console(page, demo, SUPERVISOR, "home")
    await page.locator("#nav-home").click()
    await expect(page.locator("#home", has_text="Whole call center · today")).to_have_count(1)
    await fit(page, "home")


async def fit(page: Page, pane: str, first: Locator | None = None) -> None:
    """Make the window tall enough for the pane from the message ``first`` (default the
    pane's top) to its end, up to ``MAX_HEIGHT``, and scroll there, so one picture shows
    it all."""
    top = 0
    if first is not None:
        top = await first.evaluate(
            f"""(node) => {{
                const pane = document.getElementById('{pane}');
                return node.getBoundingClientRect().top - pane.getBoundingClientRect().top
                    + pane.scrollTop;
            }}"""
        )
    height = await page.evaluate(f"document.getElementById('{pane}').scrollHeight")
    chrome = VIEWPORT["height"] - await page.evaluate(
        f"document.getElementById('{pane}').clientHeight"
    )
    await page.set_viewport_size(
        {"width": VIEWPORT["width"], "height": min(MAX_HEIGHT, int(height - top) + int(chrome))}
    )
    await page.evaluate(f"document.getElementById('{pane}').scrollTop = {int(top)}")
    await page.mouse.move(0, 0)


SCENES = {
    "console": scene,
    "digest": digest_scene,
    "wallboard": wallboard_scene,
    "campaign-card": campaign_card_scene,
    "calls": calls_scene,
    "console-vi": vietnamese_scene,
    "insights-vi": insights_scene,
    "anomaly-vi": anomaly_scene,
}
SHIPPED = frozenset({"console-vi", "insights-vi", "anomaly-vi"})
"""Scenes of the demo exactly as it starts (the others read it in English)."""


async def take(out: Path, name: str = "console") -> None:
    async with running_demo(port=0) as demo, async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            if name not in SHIPPED:
                demo.rt.storage.workspaces.set_language(TEAM, "en")
                demo.rt.storage.people.choose_language(TEAM, SUPERVISOR, "en")
                demo.rt.storage.people.choose_language(TEAM, MANAGER, "en")
            page = await browser.new_page(viewport=VIEWPORT, device_scale_factor=1)
            page.set_default_timeout(15_000)
            await SCENES[name](page, demo)
            out.parent.mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=str(out))
        finally:
            await browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--scene", choices=sorted(SCENES), help="one picture (default: all)")
    parser.add_argument("--out", type=Path, help="where to save it (default docs/<scene>.png)")
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        print(
            f"{CHROMIUM} is missing: `make screenshot` installs it as root, "
            "or run: sudo apt-get install -y chromium",
            file=sys.stderr,
        )
        return 2
    if args.out and not args.scene:
        parser.error("--out needs --scene")
    for name in [args.scene] if args.scene else list(SCENES):
        out = args.out or Path(f"docs/{name}.png")
        asyncio.run(take(out, name))
        print(f"saved {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
