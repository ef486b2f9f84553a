"""The offline demo in a real browser: headless Chromium (Debian's ``chromium``, driven by
Playwright) against ``demo.offline.running_demo`` on loopback ephemeral ports.

Waiting is always on a condition (Playwright's auto-waiting ``expect``), never on time.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Final
from urllib.parse import urlencode, urlsplit

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Locator, Page, Route, async_playwright, expect

from callcenter import CallCenter
from callcenter.models import Campaign
from demo.offline import Demo, running_demo
from emulators.slack import CALL_CENTER, MANAGER, SUPERVISOR, TEAM
from tests.browser import CHROMIUM, CHROMIUM_ARGS

WAIT_MS = 10_000
APPROVE: Final = "Approve"
"""The approval card's Approve button, as the console tests read the demo (in English:
see ``demo``)."""
LOOP: Final = "session"
"""Browser tests run on the session's event loop, the one the shared browser lives on:
mark a test module with ``pytestmark = BROWSER``."""
BROWSER = pytest.mark.asyncio(loop_scope=LOOP)


@pytest_asyncio.fixture(loop_scope=LOOP)
async def demo(tmp_path: Path) -> AsyncIterator[Demo]:
    """The demo for the console's mechanics, read in English by everyone (the workspace's
    language and Hương's and Minh's own choices set so), at any hour: the demo as shipped, in
    Vietnamese under Decree 91's hours, is ``demo_as_shipped``'s."""
    async with running_demo(port=0, workdir=tmp_path) as running:
        storage = running.rt.storage
        storage.workspaces.set_language(TEAM, "en")
        storage.people.choose_language(TEAM, SUPERVISOR, "en")
        storage.people.choose_language(TEAM, MANAGER, "en")
        storage.calling_rules.set_hours(TEAM, (0, 0))
        yield running
    assert running.slack.invalid_sends() == [], "the app sent Block Kit that Slack would reject"


@pytest_asyncio.fixture(loop_scope=LOOP)
async def demo_as_shipped(tmp_path: Path) -> AsyncIterator[Demo]:
    """The demo exactly as ``callops demo`` starts it."""
    async with running_demo(port=0, workdir=tmp_path) as running:
        yield running
    assert running.slack.invalid_sends() == [], "the app sent Block Kit that Slack would reject"


@pytest_asyncio.fixture(scope="session", loop_scope=LOOP)
async def browser() -> AsyncIterator[Browser]:
    """One Chromium for the session (its start-up is most of a test's set-up); each test
    gets its own page on a fresh demo."""
    if not os.path.exists(CHROMIUM):  # noqa: ASYNC240 - one stat before any I/O starts
        pytest.fail(
            f"{CHROMIUM} is missing: `make test` installs it as root, "
            "or run: sudo apt-get install -y chromium"
        )
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            await launched.close()


class Console:
    """One visitor's tab on the console, with the moves a person makes."""

    def __init__(self, page: Page, demo: Demo) -> None:
        self.page = page
        self.demo = demo
        self.errors: list[str] = []
        self.blocked: list[str] = []
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        page.set_default_timeout(WAIT_MS)
        expect.set_options(timeout=WAIT_MS)

    async def stay_on_loopback(self) -> None:
        """Abort anything the page asks of another host: tests never leave 127.0.0.1."""

        async def only_loopback(route: Route) -> None:
            if urlsplit(route.request.url).hostname in {"127.0.0.1", "localhost"}:
                await route.continue_()
            else:
                self.blocked.append(route.request.url)
                await route.abort()

        await self.page.route("**/*", only_loopback)

    async def open(self, user: str = SUPERVISOR, view: str = CALL_CENTER) -> Console:
        query = urlencode({"user": user, "view": view})
        await self.page.goto(f"{self.demo.console_url}?{query}")
        await expect(self.page.locator("body[data-ready='1']")).to_have_count(1)
        await expect(self.page.locator("#live.on")).to_have_count(1)
        return self

    async def type_command(self, text: str) -> None:
        await self.page.locator("#composer").fill(text)
        await self.page.locator("#composer").press("Enter")

    async def switch_user(self, user: str) -> None:
        await self.page.locator("#user-switcher").select_option(user)
        await expect(self.page.locator(f"body[data-user='{user}']")).to_have_count(1)

    async def go(self, view: str) -> None:
        await self.page.locator(f".nav-item[data-view='{view}']").click()

    @property
    def messages(self) -> Locator:
        return self.page.locator("#messages .message")

    @property
    def ephemerals(self) -> Locator:
        return self.page.locator("#messages .message.ephemeral")

    @property
    def modal(self) -> Locator:
        return self.page.locator("#modal-backdrop:not([hidden]) #modal")

    @property
    def home(self) -> Locator:
        return self.page.locator("#home")

    def message_with(self, text: str) -> Locator:
        return self.messages.filter(has_text=text).last

    async def open_step(self, user: str, label: str) -> Locator:
        """Sign in as ``user``, open the steps panel and pick the step ``label``: its form."""
        await self.open(user, CALL_CENTER)
        await self.page.locator("#nav-steps").click()
        await self.page.locator("#step-picker").select_option(label=label)
        return self.page.locator("#step-form")


async def campaigns_of(demo: Demo) -> list[Campaign]:
    async with CallCenter(demo.pbx.base_url, demo.pbx.api_key) as cc:
        return [c async for c in cc.campaigns.iterate()]


@pytest_asyncio.fixture(loop_scope=LOOP)
async def console(demo: Demo, browser: Browser) -> AsyncIterator[Console]:
    page = await browser.new_page(viewport={"width": 1280, "height": 900})
    view = Console(page, demo)
    await view.stay_on_loopback()
    yield view
    await page.close()
    assert view.errors == [], f"the page threw: {view.errors}"
