"""How the console draws Block Kit and mrkdwn, and that every control sends through the
stand-in's signed driver exactly what Slack would. Messages are posted with the bot token
through the stand-in's Web API, as the app posts them."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image
from playwright.async_api import expect
from slack_sdk.web.async_client import AsyncWebClient

from demo.offline import Demo
from emulators.slack import CALL_CENTER, SUPERVISOR, Delivery
from tests.blocks import option, plain
from tests.demo.conftest import BROWSER, Console
from tests.shortcodes import console_table, used_by_app

pytestmark = BROWSER


def bot_client(demo: Demo) -> AsyncWebClient:
    return AsyncWebClient(token=demo.slack.bot_token(), base_url=demo.slack.api_url)


def png(width: int = 120, height: int = 60) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (0, 122, 90)).save(out, format="PNG")
    return out.getvalue()


TRICKY = (
    "*bold* _italic_ ~gone~ `a_b*c` <https://example.com/a_b_c|the docs> "
    "<@U0002> <#C0002|approvals> &lt;script&gt;alert(1)&lt;/script&gt; &amp; "
    "<javascript:alert(1)|not a link> <!channel>"
)


@pytest.mark.stray_markup  # ``<javascript:…>`` on purpose: the console must not link it
async def test_mrkdwn_is_rendered_safely(console: Console, demo: Demo) -> None:
    await console.open()
    await bot_client(demo).chat_postMessage(channel=CALL_CENTER, text=TRICKY)
    message = console.message_with("the docs")
    text = message.locator(".mrkdwn")
    await expect(text.locator("strong")).to_have_text("bold")
    await expect(text.locator("em")).to_have_text("italic")
    await expect(text.locator("s")).to_have_text("gone")
    await expect(text.locator("code")).to_have_text("a_b*c")
    link = text.locator("a", has_text="the docs")
    await expect(link).to_have_attribute("href", "https://example.com/a_b_c")
    await expect(text.locator(".mention", has_text="@alex")).to_have_count(1)
    await expect(text.locator(".mention", has_text="#approvals")).to_have_count(1)
    await expect(text.locator(".mention", has_text="@channel")).to_have_count(1)
    await expect(text).to_contain_text("<script>alert(1)</script> &")
    await expect(text).to_contain_text("not a link")
    await expect(text.locator("a", has_text="not a link")).to_have_count(0)
    assert await console.page.locator("#messages script").count() == 0


async def test_block_kit_layout_and_controls_go_through_the_driver(
    console: Console, demo: Demo
) -> None:
    client = bot_client(demo)
    uploaded = await client.files_upload_v2(
        channel=CALL_CENTER, content=png(), filename="calls.png", title="Calls per hour"
    )
    file_id = uploaded["files"][0]["id"]
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": plain("Kit <tour> & more")},
        {
            "type": "section",
            "text": {"type": "mrkdwn", "text": "Overflow here"},
            "accessory": {
                "type": "overflow",
                "action_id": "kit_more",
                "options": [option("Edit", "edit"), option("Delete", "delete")],
            },
        },
        {
            "type": "section",
            "fields": [
                {"type": "mrkdwn", "text": "*Calls*\n12"},
                {"type": "mrkdwn", "text": "*Dropped*\n1"},
            ],
        },
        {"type": "context", "elements": [{"type": "mrkdwn", "text": "updated just now"}]},
        {"type": "divider"},
        {
            "type": "image",
            "image_url": f"{demo.slack.base_url}console/files/{file_id}/calls.png",
            "alt_text": "calls chart",
            "title": plain("Chart"),
        },
        {
            "type": "actions",
            "elements": [
                {
                    "type": "button",
                    "action_id": "kit_go",
                    "text": plain("Go"),
                    "style": "primary",
                    "value": "go-1",
                },
                {
                    "type": "button",
                    "action_id": "kit_stop",
                    "text": plain("Stop"),
                    "style": "danger",
                    "value": "stop-1",
                    "confirm": {
                        "title": plain("Stop it?"),
                        "text": {"type": "mrkdwn", "text": "Really *stop*?"},
                        "confirm": plain("Stop it"),
                        "deny": plain("Keep going"),
                        "style": "danger",
                    },
                },
                {
                    "type": "static_select",
                    "action_id": "kit_pick",
                    "placeholder": plain("Pick one"),
                    "options": [option("One", "1"), option("Two", "2")],
                },
                {"type": "datepicker", "action_id": "kit_day", "initial_date": "2026-11-01"},
            ],
        },
    ]
    await console.open()
    posted = await client.chat_postMessage(channel=CALL_CENTER, text="kit", blocks=blocks)
    message = console.messages.filter(has_text="Kit <tour> & more").last

    await expect(message.locator(".header-block")).to_have_text("Kit <tour> & more")
    await expect(message.locator(".fields .field")).to_have_count(2)
    await expect(message.locator(".context")).to_contain_text("updated just now")
    await expect(message.locator("hr.divider")).to_have_count(1)
    chart = message.locator(".image-block img")
    await expect(chart).to_have_attribute("alt", "calls chart")
    await expect(chart).to_have_js_property("naturalWidth", 120)
    shared = console.message_with("Calls per hour").locator("img.shared-image")
    await expect(shared).to_have_js_property("naturalWidth", 120)
    await expect(message.locator("button.primary", has_text="Go")).to_be_visible()
    await expect(message.locator("button.danger", has_text="Stop")).to_be_visible()

    async def sent(action_id: str) -> dict[str, Any]:
        """The click as the app received it (waits for the driver's delivery)."""

        def delivered() -> Delivery | None:
            return next(
                (
                    d
                    for d in reversed(demo.slack.driver.history)
                    if d.kind == "block_actions"
                    and d.payload["actions"][0]["action_id"] == action_id
                ),
                None,
            )

        delivery = await demo.slack.wait_for(delivered)
        assert delivery.payload["message"]["ts"] == posted["ts"]
        assert delivery.payload["user"]["id"] == SUPERVISOR
        action: dict[str, Any] = delivery.payload["actions"][0]
        return action

    await message.locator("button", has_text="Go").click()
    assert (await sent("kit_go"))["value"] == "go-1"

    before = len(demo.slack.driver.history)
    await message.locator("button", has_text="Stop").click()
    dialog = console.page.locator("#confirm")
    await expect(dialog).to_contain_text("Really stop?")
    await dialog.locator("button", has_text="Keep going").click()
    await expect(dialog).to_be_hidden()
    assert len(demo.slack.driver.history) == before, "denying the confirm sends nothing"
    await message.locator("button", has_text="Stop").click()
    await dialog.locator("button", has_text="Stop it").click()
    assert (await sent("kit_stop"))["value"] == "stop-1"

    await message.locator("select").select_option("2")
    assert (await sent("kit_pick"))["selected_option"]["value"] == "2"

    await message.locator("input[type='date']").fill("2026-11-05")
    assert (await sent("kit_day"))["selected_date"] == "2026-11-05"

    await message.locator(".overflow-button").click()
    await message.locator(".overflow-item", has_text="Delete").click()
    assert (await sent("kit_more"))["selected_option"]["value"] == "delete"
    assert console.blocked == []


async def test_unknown_blocks_are_shown_not_dropped(console: Console, demo: Demo) -> None:
    state = demo.slack.core.state
    team = state.team(demo.slack.team().id)
    future: dict[str, Any] = {"type": "hologram", "block_id": "h1"}
    message = state.bot_message(
        team,
        text="from the future",
        blocks=[{"type": "section", "text": {"type": "mrkdwn", "text": "Before"}}, future],
        ts=demo.slack.core.ids.ts(demo.slack.core.clock.now()),
    )
    state.add_message(state.channel(CALL_CENTER), message)
    await console.open()
    shown = console.message_with("Before")
    await expect(shown.locator(".unsupported")).to_have_text("Unsupported block: hologram")


async def test_threads_open_beside_the_channel(console: Console, demo: Demo) -> None:
    client = bot_client(demo)
    parent = await client.chat_postMessage(channel=CALL_CENTER, text="Approval needed: *start*")
    await client.chat_postMessage(
        channel=CALL_CENTER, thread_ts=parent["ts"], text="Approved by <@U0003>"
    )
    await console.open()
    await console.message_with("Approval needed").locator(".thread-link").click()
    thread = console.page.locator("#thread")
    await expect(thread).to_contain_text("1 reply")
    await expect(thread).to_contain_text("Approved by @maria")
    await expect(console.messages.filter(has_text="Approved by")).to_have_count(0)
    await client.chat_postMessage(channel=CALL_CENTER, thread_ts=parent["ts"], text="Started")
    await expect(thread).to_contain_text("2 replies")
    await expect(console.message_with("Approval needed")).to_contain_text("2 replies")


async def test_every_shortcode_the_app_uses_is_drawn_as_its_emoji(
    console: Console, demo: Demo
) -> None:
    table = console_table()
    names = sorted(used_by_app())
    await console.open()
    rich = [
        {"type": "emoji", "name": "rainbow-flag", "unicode": "1f3f3-fe0f-200d-1f308"},
        {"type": "emoji", "name": "white_check_mark"},  # no code points: drawn by its name
    ]
    await bot_client(demo).chat_postMessage(
        channel=CALL_CENTER,
        text="Every emoji",
        blocks=[
            {"type": "header", "text": {**plain(":wave: Every emoji"), "emoji": True}},
            {
                "type": "section",
                "text": {"type": "mrkdwn", "text": " ".join(f":{n}:" for n in names)},
            },
            {"type": "rich_text", "elements": [{"type": "rich_text_section", "elements": rich}]},
        ],
    )
    message = console.message_with("Every emoji")
    await expect(message).to_contain_text(f"{table['wave']} Every emoji")
    await expect(message.locator(".mrkdwn")).to_have_text(" ".join(table[n] for n in names))
    await expect(message.locator(".rich-text")).to_have_text(
        "\U0001f3f3\ufe0f\u200d\U0001f308" + table["white_check_mark"]
    )
