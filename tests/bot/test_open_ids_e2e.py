"""Every id a card shows opens: the lead an autocall made (by its button and typed after
``lead``), the pushed call's records, and a call record by its id (``cdr id=``, or the
call id alone)."""

from __future__ import annotations

from typing import Any

from bot.runtime import Runtime
from callcenter import CallCenter
from commands.kernel.phones import show_phone
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, APPROVALS, SUPERVISOR, TEAM, SlackStandIn
from tests.bot.approval_helpers import (
    approved,
    ask,
    button_ids,
    campaigns,
    confirm,
    give_roles,
    prompt_for,
    shown,
    use_approvals_channel,
)

JSON = dict[str, Any]


async def pushed_autocall(app: Runtime, slack: SlackStandIn, pbx: EmulatorServer) -> JSON:
    """An autocall pushed and approved; its card, once done (numbers shown in full: these
    tests are about the ids a card opens, not masking)."""
    app.storage.workspaces.set_mask_phones(TEAM, False)
    give_roles(app)
    use_approvals_channel(app)
    pbx.set_call_mode("manual")
    target = next(
        c
        for c in await campaigns(pbx)
        if c.type == "autocall" and c.template_name == "Chào hỏi khách hàng"
    )
    prompt = await prompt_for(slack, f"autocall {target.campaign_uuid} 0912 345 678 name=An")
    await confirm(slack, prompt)
    return await approved(slack, "0912 345 678")


async def new_reply(slack: SlackStandIn, user: str, seen: set[str]) -> JSON:
    return await slack.wait_for(
        lambda: next((m for m in slack.ephemerals(user) if m["ts"] not in seen), None)
    )


async def test_the_lead_an_autocall_made_opens_from_its_card_and_by_its_uuid(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    done = await pushed_autocall(app, slack, pbx)
    assert done["text"].endswith(": done"), shown(done)
    lead_uuid = app.storage.approvals.list("T0001")[0].result["lead_uuid"]
    assert "lead_open" in button_ids(done)
    assert "call_find_records" in button_ids(done)
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        lead = await cc.leads.get(lead_uuid)

    seen = {m["ts"] for m in slack.ephemerals(SUPERVISOR)}
    await slack.driver.block_action(
        user=SUPERVISOR, action_id="lead_open", channel=APPROVALS, ts=done["ts"]
    )
    card = await new_reply(slack, SUPERVISOR, seen)
    assert "Lead" in card["text"] and show_phone(lead.phone_number) in shown(card)
    assert lead_uuid in shown(card)
    assert {"lead_list_open", "campaign_open_0"} <= set(button_ids(card))
    assert "Calls made" in shown(card)

    typed = await ask(slack, f"lead {lead_uuid}", user=AGENT)
    assert show_phone(lead.phone_number) in shown(typed) and lead_uuid in shown(typed)
    assert "No lead list and no campaign" not in shown(typed)

    # Its list is one click away.
    seen = {m["ts"] for m in slack.ephemerals(AGENT)}
    await slack.driver.block_action(
        user=AGENT, action_id="lead_list_open", ephemeral_ts=typed["ts"]
    )
    listing = await new_reply(slack, AGENT, seen)
    assert lead.list_uuid in shown(listing)


async def test_the_pushed_call_finds_its_record_and_cdr_finds_a_record_by_id(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    done = await pushed_autocall(app, slack, pbx)
    call_id = app.storage.approvals.list("T0001")[0].result["call_id"]
    pbx.hangup(call_id)

    seen = {m["ts"] for m in slack.ephemerals(SUPERVISOR)}
    await slack.driver.block_action(
        user=SUPERVISOR, action_id="call_find_records", channel=APPROVALS, ts=done["ts"]
    )
    records = await new_reply(slack, SUPERVISOR, seen)
    assert records["text"] == "Call records: 1", shown(records)
    assert call_id[:8] in shown(records)

    by_id = await ask(slack, f"cdr id={call_id}")
    assert by_id["text"] == "Call records: 1", shown(by_id)
    assert call_id[:8] in shown(by_id) and "0912 345 678" in shown(by_id)

    by_prefix = await ask(slack, f"cdr id={call_id[:8]}")
    assert by_prefix["text"] == "Call records: 1", shown(by_prefix)

    bare = await ask(slack, f"cdr {call_id}")
    assert bare["text"] == "Call records: 1", shown(bare)
    assert "matches no campaign" not in shown(bare)

    nothing = await ask(slack, "cdr id=00000000-0000-4000-8000-000000000000")
    assert "No call record has the id" in shown(nothing)

    bad = await ask(slack, "cdr id=12")
    assert "id= takes a call record's id" in shown(bad)


async def test_a_viewer_opens_a_lead_by_its_uuid_but_cannot_add_one(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    lead = pbx.state("leads")[0]
    opened = await ask(slack, f"lead {lead['lead_uuid']}", user=AGENT)  # AGENT is a viewer
    # A viewer reads customers' numbers masked, even in their own replies.
    assert show_phone(lead["phone_number"], mask=True) in shown(opened)
    assert show_phone(lead["phone_number"]) not in shown(opened)
    assert "lead_list_open" in button_ids(opened)
    refused = await ask(slack, f"lead {lead['list_uuid']} 0912345678", user=AGENT)
    assert "Adding a lead needs the operator role; you are a viewer" in shown(refused)
    assert pbx.journal(method="POST", path="/v3/lead") == []
