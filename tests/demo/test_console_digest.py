"""A digest in the browser: the demo's sample digest is listed, posted on demand into
#digests, and its chart is drawn by the console from the message's data_visualization
block; set to ``settings charts image``, it is an image the console shows from the
stand-in's file store."""

from __future__ import annotations

from playwright.async_api import expect

from demo.offline import Demo
from emulators.slack import DIGESTS, MANAGER, TEAM
from tests.demo.conftest import BROWSER, Console

pytestmark = BROWSER


async def test_running_the_sample_digest_posts_its_chart(console: Console, demo: Demo) -> None:
    (digest,) = demo.rt.storage.digests.list(TEAM)
    await console.open(MANAGER, DIGESTS)
    await console.type_command("/callops digest list")
    await expect(console.ephemerals.last).to_contain_text(digest.id)
    await expect(console.ephemerals.last).to_contain_text("#digests")

    await console.type_command(f"/callops digest run {digest.id}")
    posted = console.messages.filter(has=console.page.locator(".header-block", has_text="digest"))
    await expect(posted.last).to_contain_text("calls")
    drawn = posted.last.locator(".dataviz-block[data-chart='bar']")
    await expect(drawn.locator(".dataviz-title")).to_contain_text("Calls per")
    await expect(drawn.locator(".dataviz-legend")).to_contain_text("not answered")
    assert await drawn.locator("rect.dataviz-bar").count() > 0
    assert await console.page.locator("#messages img.shared-image").count() == 0

    await console.type_command("/callops settings charts image")
    await expect(console.ephemerals.last).to_contain_text("sent as images")
    await console.type_command(f"/callops digest run {digest.id}")
    chart = console.page.locator("#messages img.shared-image").last
    await expect(chart).to_be_visible()
    await expect(chart).not_to_have_js_property("naturalWidth", 0)
    files = [f for m in demo.slack.messages(DIGESTS) for f in m.get("files", [])]
    assert files and files[-1]["mimetype"] == "image/png"
    await expect(chart).to_have_attribute("alt", files[-1]["title"])
    assert console.blocked == []
