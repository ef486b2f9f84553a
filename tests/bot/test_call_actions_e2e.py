"""Transfer and autocall end to end.  A transfer opens its form from the live-call list
with only the directory read first (its extensions offered by name), checks a typed
extension against the directory on the form, needs the requester's confirm only, and
explains an unregistered extension or an ended call plainly.  An autocall with a value
missing opens a form of the template's placeholders; a complete one waits for an admin, then
shows the call id and lead id, which stay with the approval for the call's outcome."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.runtime import Runtime
from callcenter import CallCenter
from callcenter.models import Campaign, UserUpdate
from commands.kernel.names import name_of
from commands.kernel.phones import show_phone
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, APPROVALS, CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from storage import ApprovalState, Role
from tests.bot.approval_helpers import (
    ask,
    audit_outcomes,
    button_ids,
    campaigns,
    card_in,
    card_now,
    confirm,
    ephemeral_with,
    give_roles,
    latest_view,
    prompt_for,
    result_card,
    settled,
    shown,
)

JSON = dict[str, Any]


def live_call(pbx: EmulatorServer) -> JSON:
    pbx.set_call_mode("manual")
    return pbx.originate(direction="inbound", source="0912000111", destination="1001")


def button_for(listing: JSON, call_id: str) -> str:
    """The action id of the Transfer button on ``call_id``'s row."""
    for block in listing.get("blocks", []):
        accessory = block.get("accessory") or {}
        if call_id in str(accessory.get("value", "")):
            return str(accessory["action_id"])
    raise AssertionError(f"no Transfer button for {call_id}")


def transfers(pbx: EmulatorServer, call_id: str) -> list[JSON]:
    return pbx.journal(method="POST", path=f"/v1/call/{call_id}/transfer")


@pytest.mark.usefixtures("roles")
async def test_the_transfer_form_names_the_legs_by_the_calls_direction(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    pbx.set_call_mode("manual")
    call = pbx.originate(direction="outbound", source="1001", destination="0912000222")
    listing = await ask(slack, "calls", user=AGENT)
    await slack.driver.block_action(
        user=AGENT, action_id=button_for(listing, call["call_id"]), ephemeral_ts=listing["ts"]
    )
    form = shown(await latest_view(slack, AGENT, "call_transfer_form"))
    # On an outbound call the B leg is the customer, not the agent.
    assert "the agent who called (A leg)" in form and "the customer (B leg)" in form, form
    assert "the agent's side" not in form


@pytest.mark.usefixtures("roles")
async def test_transfer_button_opens_the_form_and_moves_the_call_once(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    call = live_call(pbx)
    listing = await ask(slack, "calls", user=AGENT)
    assert "call_transfer_0" in button_ids(listing)
    journal_before = len(pbx.journal())
    await slack.driver.block_action(
        user=AGENT, action_id=button_for(listing, call["call_id"]), ephemeral_ts=listing["ts"]
    )
    form = await latest_view(slack, AGENT, "call_transfer_form")
    asked = [(e["method"], e["path"]) for e in pbx.journal()[journal_before:]]
    assert set(asked) == {("GET", "/v3/user")}, "the form reads the directory, nothing else"
    # An inbound call: the customer called (A leg), the agent answered (B leg).
    assert "the customer who called (A leg)" in shown(form), shown(form)
    assert "the agent's side (B leg)" in shown(form)
    await slack.driver.view_submission(form["id"], {"ext": "1002", "leg": "bleg"})
    card = await result_card(slack, call["call_id"])
    assert card["text"].endswith(": done") and "extension *1002*" in shown(card)
    assert len(transfers(pbx, call["call_id"])) == 1
    assert transfers(pbx, call["call_id"])[0]["body"] == {"ext": "1002", "legs": "bleg"}
    assert audit_outcomes(app, "call.transfer") == ["requested", "approved", "ok"]


@pytest.mark.usefixtures("roles")
async def test_a_bad_extension_is_caught_on_the_form(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    live_call(pbx)
    listing = await ask(slack, "calls", user=AGENT)
    await slack.driver.block_action(
        user=AGENT, action_id="call_transfer_0", ephemeral_ts=listing["ts"]
    )
    form = await latest_view(slack, AGENT, "call_transfer_form")
    await slack.driver.view_submission(form["id"], {"ext": "ten o two", "leg": "aleg"})
    assert "not an extension" in slack.view_errors(form["id"])["ext"]
    assert app.storage.approvals.list(TEAM) == []


def options_of(form: JSON, block_id: str) -> dict[str, str]:
    """A select's options on a form: value -> the text shown."""
    block = next(b for b in form["blocks"] if b.get("block_id") == block_id)
    return {o["value"]: o["text"]["text"] for o in block["element"]["options"]}


async def open_transfer_form(app: Runtime, slack: SlackStandIn, pbx: EmulatorServer) -> JSON:
    give_roles(app)
    live_call(pbx)
    listing = await ask(slack, "calls", user=AGENT)
    await slack.driver.block_action(
        user=AGENT, action_id="call_transfer_0", ephemeral_ts=listing["ts"]
    )
    return await latest_view(slack, AGENT, "call_transfer_form")


async def test_the_form_offers_the_directory_extensions_by_name(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    form = await open_transfer_form(app, slack, pbx)
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        users = [u async for u in cc.users.iterate(page_size=100) if u.extension]
    offered = options_of(form, "ext_pick")
    assert set(offered) == {u.extension for u in users}
    someone = next(u for u in users if u.user_status == "Available")
    name = name_of(someone)
    assert offered[someone.extension] == (
        f"{someone.extension} · {name or someone.username} · available"
    )
    await slack.driver.view_submission(form["id"], {"ext_pick": someone.extension, "leg": "aleg"})
    call_id = json.loads(form["private_metadata"])["call_id"]
    card = await result_card(slack, call_id)
    assert f"extension *{someone.extension}*" in shown(card)
    assert [t["body"]["ext"] for t in transfers(pbx, call_id)] == [someone.extension]


async def test_signed_in_people_come_first_and_a_logged_out_one_is_asked_about(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    form = await open_transfer_form(app, slack, pbx)
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        users = [u async for u in cc.users.iterate(page_size=100) if u.extension]
    away = next(u for u in users if u.user_status == "Logged Out")
    name = name_of(away, away.username)
    offered = list(options_of(form, "ext_pick").items())
    marked = [ext for ext, words in offered if words.endswith(" · logged out")]
    assert away.extension in marked
    # Everyone signed in is offered before anyone logged out.
    assert [ext for ext, _ in offered] == [
        *[ext for ext, _ in offered if ext not in marked],
        *marked,
    ]

    await slack.driver.view_submission(form["id"], {"ext_pick": away.extension, "leg": "aleg"})
    error = slack.view_errors(form["id"])["ext_pick"]
    assert f"{name} is logged out (extension {away.extension}); transfer anyway?" in error
    call_id = json.loads(form["private_metadata"])["call_id"]
    assert transfers(pbx, call_id) == []

    await slack.driver.view_submission(
        form["id"], {"ext_pick": away.extension, "leg": "aleg", "anyway": ["anyway"]}
    )
    card = await result_card(slack, call_id)
    assert f"extension *{away.extension}*" in shown(card)
    assert [t["body"]["ext"] for t in transfers(pbx, call_id)] == [away.extension]


@pytest.mark.usefixtures("roles")
async def test_a_typed_transfer_to_a_logged_out_extension_asks_first(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    call = live_call(pbx)
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        users = [u async for u in cc.users.iterate(page_size=100) if u.extension]
    away = next(u for u in users if u.user_status == "Logged Out")
    name = name_of(away, away.username)
    prompt = await prompt_for(slack, f"transfer {call['call_id']} {away.extension}")
    assert f"{name} is logged out (extension {away.extension}); transfer anyway?" in shown(prompt)
    assert transfers(pbx, call["call_id"]) == []
    await confirm(slack, prompt)
    card = await result_card(slack, call["call_id"])
    assert card["text"].endswith(": done")
    assert len(transfers(pbx, call["call_id"])) == 1

    present = next(u for u in users if u.user_status == "Available" and u.extension != "1001")
    other = live_call(pbx)
    plain = await prompt_for(slack, f"transfer {other['call_id']} {present.extension}")
    assert "logged out" not in shown(plain)


async def test_a_typed_extension_nobody_has_is_caught_on_the_form(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    form = await open_transfer_form(app, slack, pbx)
    await slack.driver.view_submission(form["id"], {"ext": "1999", "leg": "aleg"})
    assert "Nobody in the directory has extension 1999" in slack.view_errors(form["id"])["ext"]
    await slack.driver.view_submission(
        form["id"], {"ext": "1003", "ext_pick": "1002", "leg": "aleg"}
    )
    assert "keep one" in slack.view_errors(form["id"])["ext"]
    await slack.driver.view_submission(form["id"], {"leg": "aleg"})
    assert "Choose an extension" in slack.view_errors(form["id"])["ext_pick"]
    assert app.storage.approvals.list(TEAM) == []
    assert not any("/transfer" in e["path"] for e in pbx.journal(method="POST"))


@pytest.mark.usefixtures("roles")
async def test_the_form_still_opens_when_the_directory_cannot_be_read(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    call = live_call(pbx)
    listing = await ask(slack, "calls", user=AGENT)
    pbx.fail_next("GET", "/v3/user", 500, {"error": "boom"}, times=10)
    await slack.driver.block_action(
        user=AGENT, action_id=button_for(listing, call["call_id"]), ephemeral_ts=listing["ts"]
    )
    form = await latest_view(slack, AGENT, "call_transfer_form")
    assert "ext_pick" not in [b.get("block_id") for b in form["blocks"]]
    typed = next(b for b in form["blocks"] if b.get("block_id") == "ext")
    assert not typed.get("optional")


@pytest.mark.usefixtures("roles")
async def test_transfer_to_an_unregistered_extension_is_refused_before_anything_is_asked(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    call = live_call(pbx)
    reply = await ask(slack, f"transfer {call['call_id']} 1999", user=AGENT)
    assert "Extension *1999* is not registered" in shown(reply)
    assert "Nothing was asked" in shown(reply)
    assert "approval_confirm" not in button_ids(reply)
    assert app.storage.approvals.list(TEAM) == []
    assert transfers(pbx, call["call_id"]) == []


@pytest.mark.usefixtures("roles")
async def test_an_extension_signed_out_after_the_request_fails_plainly(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    """Checked before asking, and again by the service when it runs: the agent on 1002 is
    disabled between the prompt and the confirm."""
    call = live_call(pbx)
    prompt = await prompt_for(slack, f"transfer {call['call_id']} 1002")
    assert "the caller (A leg)" in shown(prompt)
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        owner = next(u for u in [u async for u in cc.users.iterate()] if u.extension == "1002")
        await cc.users.update(
            owner.user_uuid,
            UserUpdate(
                username=owner.username,
                level=owner.level,
                role_uuid=owner.role_uuid,
                password="x",
                confirm_password="x",
                user_uuid=owner.user_uuid,
                is_active=False,
            ),
        )
    await confirm(slack, prompt)
    card = await result_card(slack, call["call_id"])
    assert card["text"].endswith(": failed")
    assert "Extension *1002* is not registered" in shown(card)
    assert "stays where it was" in shown(card)
    assert len(transfers(pbx, call["call_id"])) == 1
    assert audit_outcomes(app, "call.transfer")[-1] == "failed"


@pytest.mark.usefixtures("roles")
async def test_a_call_that_ended_is_explained_and_not_sent(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    call = live_call(pbx)
    prompt = await prompt_for(slack, f"transfer {call['call_id']} 1002 aleg")
    pbx.hangup(call["call_id"])
    await confirm(slack, prompt)
    card = await result_card(slack, call["call_id"])
    assert card["text"].endswith(": failed") and "call has ended" in shown(card)
    assert transfers(pbx, call["call_id"]) == []
    reply = await ask(slack, f"transfer {call['call_id']} 1002", user=AGENT)
    assert "not live any more" in shown(reply)


async def test_viewers_see_no_transfer_button_and_a_click_is_refused(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    call = live_call(pbx)
    listing = await ask(slack, "calls", user=AGENT)
    assert show_phone(call["source"], mask=True) in shown(listing)  # a viewer reads it masked
    assert not any(b.startswith("call_transfer") for b in button_ids(listing))
    give_roles(app)
    earlier = await ask(slack, "calls", user=AGENT)
    assert "call_transfer_0" in button_ids(earlier)
    # A button left from before the person became a viewer is refused by the dispatcher.
    app.storage.roles.set_role(TEAM, AGENT, Role.VIEWER)
    await slack.driver.block_action(
        user=AGENT, action_id="call_transfer_0", ephemeral_ts=earlier["ts"]
    )
    assert await ephemeral_with(slack, AGENT, "needs the operator role")
    assert slack.views(AGENT) == []


@pytest.mark.usefixtures("approvals")
async def test_autocall_is_approved_and_keeps_the_call_id_with_its_card(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, greeting: Campaign
) -> None:
    pbx.set_call_mode("manual")
    prompt = await prompt_for(slack, f"autocall {greeting.campaign_uuid} 0912 345 678 name=<!here>")
    assert "0912 345 678" in shown(prompt) and "&lt;!here&gt;" in shown(prompt)
    await confirm(slack, prompt)
    card = await card_in(slack, APPROVALS, "0912 *** 678")  # masked where many read
    assert "the campaign itself does not dial" in shown(card)  # it is paused or stopped
    assert pbx.journal(method="POST", path="/v3/autocall/import") == []
    await slack.driver.block_action(
        user=SUPERVISOR, action_id="approval_approve", channel=APPROVALS, ts=card["ts"]
    )
    done = await card_now(slack, APPROVALS, card["ts"], settled)
    assert done["text"].endswith(": done"), shown(done)
    pushes = pbx.journal(method="POST", path="/v3/autocall/import")
    assert len(pushes) == 1
    assert pushes[0]["body"]["param"] == {"name": "<!here>"}
    approval = app.storage.approvals.list(TEAM)[0]
    assert approval.kind == "autocall.push" and approval.state is ApprovalState.DONE
    result = approval.result
    assert result["call_id"] in shown(done) and result["lead_uuid"] in shown(done)
    assert (result["channel"], result["ts"]) == (APPROVALS, card["ts"])


@pytest.mark.usefixtures("roles")
async def test_autocall_into_a_paused_campaign_says_so_before_anything_is_asked(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    autocalls = [c for c in await campaigns(pbx) if c.type == "autocall"]
    paused = next(c for c in autocalls if c.status == "pause")
    prompt = await prompt_for(slack, f"autocall {paused.campaign_uuid} 0912345678 name=An")
    # The prompt is the request's card text: it says the status as it was when asked.
    assert f"*{paused.campaign_name}* was paused when asked" in shown(prompt)
    assert f"/callops start {paused.campaign_name}" in shown(prompt).replace('\\"', "")
    running = next(c for c in autocalls if c.status == "start")
    await slack.driver.slash_command(
        user=AGENT, channel=CALL_CENTER, text=f"autocall {running.campaign_uuid}"
    )
    form = await latest_view(slack, AGENT, "autocall_form")
    assert running.campaign_name in shown(form) and "does not dial" not in shown(form)
    await slack.driver.slash_command(
        user=AGENT, channel=CALL_CENTER, text=f"autocall {paused.campaign_uuid}"
    )
    form = await slack.wait_for(
        lambda: next((v for v in slack.views(AGENT) if paused.campaign_name in shown(v)), None)
    )
    assert "is paused" in shown(form) and "does not dial" in shown(form)
    assert pbx.journal(method="POST", path="/v3/autocall/import") == []


@pytest.mark.usefixtures("roles")
async def test_autocall_with_a_missing_placeholder_opens_the_template_form(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, reminder: Campaign
) -> None:
    await slack.driver.slash_command(
        user=AGENT,
        channel=CALL_CENTER,
        text=f"autocall {reminder.campaign_uuid} 0912345678 name=An",
    )
    form = await latest_view(slack, AGENT, "autocall_form")
    blocks = {b.get("block_id"): b for b in form["blocks"]}
    assert {"phone", "param:name", "param:amount", "param:due_date"} <= set(blocks)
    # Each placeholder is labelled by its name, as a person writes it, never as {{amount}}.
    assert "Still needed: *Amount*, *Due date*" in shown(form) and "{{" not in shown(form)
    assert [blocks[f"param:{n}"]["label"]["text"] for n in ("name", "amount", "due_date")] == [
        "Name",
        "Amount",
        "Due date",
    ]
    assert "amount" in shown(blocks["param:amount"]["hint"]).lower()
    assert "dd/mm/yyyy" in shown(blocks["param:due_date"]["hint"])
    await slack.driver.view_submission(
        form["id"],
        {"phone": "12345", "param:name": "An", "param:amount": "150000", "param:due_date": "x"},
    )
    assert "not a phone number" in slack.view_errors(form["id"])["phone"]
    await slack.driver.view_submission(
        form["id"],
        {
            "phone": "0912345678",
            "param:name": "An",
            "param:amount": "150000",
            "param:due_date": "15/12/2026",
        },
    )
    card = await card_in(slack, CALL_CENTER, "0912 *** 678")  # masked where many read
    assert "150000" in shown(card) and "15/12/2026" in shown(card)
    assert pbx.journal(method="POST", path="/v3/autocall/import") == []


@pytest.mark.usefixtures("roles")
async def test_a_blacklisted_number_is_refused_before_anything_is_asked(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, greeting: Campaign
) -> None:
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        number = (await cc.blacklist.list()).data[0].phone_number
    reply = await ask(slack, f"autocall {greeting.campaign_uuid} {number} name=An", user=AGENT)
    assert "blacklist" in shown(reply)
    assert app.storage.approvals.list(TEAM) == []
    reply = await ask(slack, f"autocall {greeting.campaign_uuid} 0912345678 nme=An", user=AGENT)
    assert "has no placeholder nme" in shown(reply) and "name" in shown(reply)
