"""Modals in the browser: every input kind the app may use, stacked views, and what the
submission carries to the app. The views are opened on the stand-in as ``views.open`` and
``views.push`` would open them."""

from __future__ import annotations

from typing import Any

from playwright.async_api import expect

from demo.offline import Demo
from emulators.slack import AGENT, APPROVALS, SUPERVISOR, TEAM, Delivery
from tests.blocks import option, plain
from tests.demo.conftest import BROWSER, Console

pytestmark = BROWSER


def field(block_id: str, label: str, element: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "type": "input",
        "block_id": block_id,
        "label": plain(label),
        "element": {"action_id": "value", **element},
        **extra,
    }


FORM: dict[str, Any] = {
    "type": "modal",
    "callback_id": "console_kit_form",
    "title": plain("Every input"),
    "submit": plain("Save"),
    "close": plain("Cancel"),
    "blocks": [
        field("note", "Note", {"type": "plain_text_input", "multiline": True}),
        field("count", "Count", {"type": "number_input", "is_decimal_allowed": False}),
        field("site", "Site", {"type": "url_text_input"}, optional=True),
        field(
            "mode",
            "Mode",
            {"type": "radio_buttons", "options": [option("Serial", "s"), option("Parallel", "p")]},
        ),
        field(
            "days",
            "Days",
            {"type": "checkboxes", "options": [option("Mon", "mon"), option("Tue", "tue")]},
        ),
        field(
            "level",
            "Level",
            {"type": "static_select", "options": [option("Low", "low"), option("High", "high")]},
        ),
        field("who", "Who", {"type": "users_select"}),
        field("where", "Where", {"type": "channels_select"}),
        field("when", "When", {"type": "datepicker"}),
    ],
}
DETAILS: dict[str, Any] = {
    "type": "modal",
    "callback_id": "console_kit_details",
    "title": plain("Details"),
    "close": plain("Back"),
    "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "Pushed on top"}}],
}


async def test_a_stacked_form_of_every_input_submits_what_was_entered(
    console: Console, demo: Demo
) -> None:
    state = demo.slack.core.state
    team = state.team(TEAM)
    first = state.open_view(team, SUPERVISOR, FORM, push=False)
    state.open_view(team, SUPERVISOR, DETAILS, push=True)
    await console.open(SUPERVISOR)
    modal = console.modal
    await expect(modal.locator(".modal-title")).to_have_text("Details")
    await modal.get_by_role("button", name="Back").first.click()  # the arrow of a pushed view
    await expect(modal.locator(".modal-title")).to_have_text("Every input")
    assert [v["id"] for v in demo.slack.views(SUPERVISOR)] == [first["id"]]

    def block(label: str) -> Any:
        return modal.locator(".input-block").filter(has_text=label)

    await block("Note").locator("textarea").fill("Call back <after> 5 & later")
    await block("Count").locator("input").fill("12")
    await block("Mode").get_by_label("Parallel").check()
    await block("Days").get_by_label("Tue").check()
    await block("Level").locator("select").select_option("high")
    await block("Who").locator("select").select_option(AGENT)
    await block("Where").locator("select").select_option(APPROVALS)
    await block("When").locator("input").fill("2026-12-01")
    await modal.locator("button", has_text="Save").click()

    def submitted() -> Delivery | None:
        found = [d for d in demo.slack.driver.history if d.kind == "view_submission"]
        return found[-1] if found else None

    delivery = await demo.slack.wait_for(submitted)
    values = delivery.payload["view"]["state"]["values"]
    assert delivery.payload["user"]["id"] == SUPERVISOR
    assert values["note"]["value"]["value"] == "Call back <after> 5 & later"
    assert values["count"]["value"]["value"] == "12"
    assert values["site"]["value"]["value"] is None
    assert values["mode"]["value"]["selected_option"]["value"] == "p"
    assert [o["value"] for o in values["days"]["value"]["selected_options"]] == ["tue"]
    assert values["level"]["value"]["selected_option"]["value"] == "high"
    assert values["who"]["value"]["selected_user"] == AGENT
    assert values["where"]["value"]["selected_channel"] == APPROVALS
    assert values["when"]["value"]["selected_date"] == "2026-12-01"


async def test_required_fields_are_checked_before_anything_is_sent(
    console: Console, demo: Demo
) -> None:
    state = demo.slack.core.state
    state.open_view(state.team(TEAM), SUPERVISOR, FORM, push=False)
    await console.open(SUPERVISOR)
    await console.modal.locator("button", has_text="Save").click()
    errors = console.modal.locator(".field-error:not([hidden])")
    await expect(errors).to_have_count(8)  # every input but the optional Site
    assert not [d for d in demo.slack.driver.history if d.kind == "view_submission"]
    await console.modal.locator(".modal-footer button", has_text="Cancel").click()
    await expect(console.page.locator("#modal-backdrop")).to_be_hidden()
    assert demo.slack.views(SUPERVISOR) == []
