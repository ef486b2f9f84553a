"""views.* through AsyncWebClient: trigger ids (3 s, once), modal stacks, hashes, Home."""

from __future__ import annotations

from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from emulators.slack import AGENT, SUPERVISOR, SlackStandIn
from tests.blocks import modal, text_input
from tests.slack_standin.refusals import error_of


def form(title: str = "Connect") -> dict[str, Any]:
    return modal("connect", title, "Save", text_input("base_url", "Base URL"))


HOME = {
    "type": "home",
    "blocks": [{"type": "header", "text": {"type": "plain_text", "text": "Wallboard"}}],
}


async def test_views_open_uses_a_trigger_once(slack: SlackStandIn, client: AsyncWebClient) -> None:
    trigger = slack.core.state.issue_trigger("T0001", SUPERVISOR)
    opened = await client.views_open(trigger_id=trigger, view=form())
    view = opened["view"]
    assert view["id"].startswith("V") and view["hash"] and view["root_view_id"] == view["id"]
    assert view["state"] == {"values": {}}
    assert [v["id"] for v in slack.views(SUPERVISOR)] == [view["id"]]
    assert slack.views(AGENT) == []
    assert await error_of(client.views_open(trigger_id=trigger, view=form())) == (
        "expired_trigger_id"
    )
    assert await error_of(client.views_open(trigger_id="1.2.nope", view=form())) == (
        "invalid_trigger_id"
    )


async def test_trigger_expires_after_three_seconds_of_the_stand_in_clock(
    slack: SlackStandIn, client: AsyncWebClient
) -> None:
    trigger = slack.core.state.issue_trigger("T0001", SUPERVISOR)
    slack.clock.advance(3.5)
    assert await error_of(client.views_open(trigger_id=trigger, view=form())) == (
        "expired_trigger_id"
    )


async def test_push_update_and_hash_conflict(slack: SlackStandIn, client: AsyncWebClient) -> None:
    state = slack.core.state
    first = await client.views_open(trigger_id=state.issue_trigger("T0001", AGENT), view=form())
    pushed = await client.views_push(
        trigger_id=state.issue_trigger("T0001", AGENT), view=form("Step 2")
    )
    assert pushed["view"]["previous_view_id"] == first["view"]["id"]
    await client.views_push(trigger_id=state.issue_trigger("T0001", AGENT), view=form("Step 3"))
    fourth = client.views_push(trigger_id=state.issue_trigger("T0001", AGENT), view=form("4"))
    assert await error_of(fourth) == "push_limit_reached"
    assert len(slack.views(AGENT)) == 3

    old_hash = first["view"]["hash"]
    updated = await client.views_update(
        view_id=first["view"]["id"], hash=old_hash, view=form("Renamed")
    )
    assert updated["view"]["title"]["text"] == "Renamed"
    assert updated["view"]["hash"] != old_hash
    stale = client.views_update(view_id=first["view"]["id"], hash=old_hash, view=form())
    assert await error_of(stale) == "hash_conflict"
    assert await error_of(client.views_update(view_id="V404", view=form())) == "not_found"


async def test_home_tab_is_per_user(slack: SlackStandIn, client: AsyncWebClient) -> None:
    published = await client.views_publish(user_id=SUPERVISOR, view=HOME)
    assert published["view"]["type"] == "home"
    home = slack.home(SUPERVISOR)
    assert home is not None and home["blocks"][0]["text"]["text"] == "Wallboard"
    assert slack.home(AGENT) is None
    stale = client.views_publish(user_id=SUPERVISOR, view=HOME, hash="stale.hash")
    assert await error_of(stale) == "hash_conflict"
    assert await error_of(client.views_publish(user_id="U404", view=HOME)) == "user_not_found"
    as_modal = client.views_publish(user_id=SUPERVISOR, view=form())
    assert await error_of(as_modal) == "invalid_blocks"
