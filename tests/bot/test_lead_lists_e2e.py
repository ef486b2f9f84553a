"""Lead lists are found where they are needed: ``lead`` and ``leads upload`` take a
campaign (its default list) as well as a list UUID, and the campaign card shows its list
(name, totals, UUID) with Add lead, Upload leads and Open list.  All through the Slack
stand-in against the emulator; what is asserted is what people see and what reached the
service."""

from __future__ import annotations

import json

import pytest

from bot.runtime import Runtime
from callcenter import CallCenter
from callcenter.models import Campaign, LeadList
from commands.kernel.text import number
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, CALL_CENTER, TEAM, SlackStandIn
from tests.bot.approval_helpers import (
    approved,
    ask,
    button_ids,
    campaigns,
    confirm,
    prompt_for,
    shown,
)

pytestmark = pytest.mark.usefixtures("roles")

JSON = dict[str, object]


async def with_list(pbx: EmulatorServer, kind: str = "autodialer") -> Campaign:
    return next(c for c in await campaigns(pbx) if c.type == kind and c.default_list_uuid)


async def with_its_list(pbx: EmulatorServer) -> tuple[Campaign, LeadList]:
    """A campaign with a default lead list, and that list as the service has it now."""
    campaign = await with_list(pbx)
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        return campaign, await cc.lists.get(campaign.default_list_uuid)


def quoted(name: str) -> str:
    return f'"{name}"'


@pytest.mark.usefixtures("approvals")
async def test_lead_for_a_campaign_goes_into_its_default_list(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    campaign, before = await with_its_list(pbx)
    prompt = await prompt_for(slack, f"lead {quoted(campaign.campaign_name)} 0912 345 678")
    assert before.list_name in shown(prompt) and campaign.default_list_uuid in shown(prompt)
    # Unquoted, the name runs up to the number (its longest exact match wins, so a
    # campaign named like this one plus "đợt 2" is not taken).
    unquoted = await prompt_for(slack, f"lead {campaign.campaign_name} 0987654321")
    assert campaign.default_list_uuid in shown(unquoted) and "0987 654 321" in shown(unquoted)
    await confirm(slack, prompt)
    done = await approved(slack, "0912 *** 678")  # the card masks the customer's number
    assert str(done["text"]).endswith(": done"), shown(done)
    [sent] = pbx.journal(method="POST", path="/v3/lead")
    assert sent["body"]["list_uuid"] == campaign.default_list_uuid
    [approval] = [a for a in app.storage.approvals.list(TEAM) if a.result]
    lead_uuid = approval.result["lead_uuid"]
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        lead = await cc.leads.get(lead_uuid)
        after = await cc.lists.get(campaign.default_list_uuid)
    assert (lead.phone_number, lead.list_uuid) == ("0912345678", campaign.default_list_uuid)
    assert after.total_leads == before.total_leads + 1


async def test_a_list_uuid_still_works_and_wrong_targets_are_explained(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    campaign = await with_list(pbx, "manual")
    prompt = await prompt_for(slack, f"lead {campaign.default_list_uuid} 0987654321")
    assert campaign.default_list_uuid in shown(prompt)
    inbound = await with_list_less(pbx)
    reply = await ask(slack, f"lead {quoted(inbound.campaign_name)} 0912345678", user=AGENT)
    assert "has no lead list" in shown(reply) and "Give a list UUID instead" in shown(reply)
    reply = await ask(slack, f"leads upload {quoted(inbound.campaign_name)}", user=AGENT)
    assert "has no lead list" in shown(reply)
    reply = await ask(slack, "lead Nowhere 0912345678", user=AGENT)
    assert "No campaign is called or starts with *Nowhere*" in shown(reply)
    reply = await ask(slack, "lead 00000000-0000-4000-8000-000000000000 0912345678", user=AGENT)
    assert "No lead list and no campaign has the UUID" in shown(reply)
    assert len(app.storage.approvals.list(TEAM)) == 1  # only the first, by list UUID
    assert pbx.journal(method="POST", path="/v3/lead") == []


async def with_list_less(pbx: EmulatorServer) -> Campaign:
    return next(c for c in await campaigns(pbx) if not c.default_list_uuid)


async def test_an_ambiguous_campaign_offers_choices_that_keep_the_number(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    first = await with_list(pbx)
    prefix = first.campaign_name.split()[0]
    matching = [c for c in await campaigns(pbx) if c.campaign_name.startswith(prefix)]
    assert len(matching) > 1, "the seed has campaigns that share a first word"
    reply = await ask(slack, f"lead {prefix} 0912345678 lead_name='An Nguyen'", user=AGENT)
    assert "Which one?" in shown(reply)
    choice = next(id_ for id_ in button_ids(reply) if id_.startswith("campaign_choose"))
    await slack.driver.block_action(user=AGENT, action_id=choice, ephemeral_ts=reply["ts"])
    prompt = await slack.wait_for(  # the choice is answered in place of the question
        lambda: next(
            (m for m in slack.ephemerals(AGENT) if "approval_confirm" in button_ids(m)), None
        )
    )
    assert "0912 345 678" in shown(prompt) and "An Nguyen" in shown(prompt)


@pytest.mark.usefixtures("approvals")
async def test_the_campaign_card_shows_its_list_and_its_buttons_lead_to_it(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    campaign, lead_list = await with_its_list(pbx)
    card = await ask(slack, f"campaign {campaign.campaign_uuid}", user=AGENT)
    text = shown(card)
    assert f"Lead list: {lead_list.list_name}" in text
    assert lead_list.list_uuid in text and f"*{number(lead_list.total_leads)}* leads" in text
    assert {"lead_list_add", "lead_list_upload", "lead_list_open"} <= set(button_ids(card))

    before = len(slack.ephemerals(AGENT))
    await slack.driver.block_action(user=AGENT, action_id="lead_list_open", ephemeral_ts=card["ts"])
    opened = await slack.wait_for(
        lambda: next(
            (m for m in slack.ephemerals(AGENT)[before:] if "Reset time" in shown(m)), None
        )
    )
    assert lead_list.list_name in shown(opened)

    await slack.driver.block_action(user=AGENT, action_id="lead_list_add", ephemeral_ts=card["ts"])
    form = await slack.wait_for(
        lambda: next((v for v in slack.views(AGENT) if v.get("callback_id") == "lead_form"), None)
    )
    assert json.loads(form["private_metadata"])["list_uuid"] == lead_list.list_uuid
    await slack.driver.view_submission(form["id"], {"phone": "12345"})
    assert "not a phone number" in slack.view_errors(form["id"])["phone"]
    await slack.driver.view_submission(form["id"], {"phone": "0356 789 012", "lead_name": "Chi"})
    done = await approved(slack, "0356 *** 012")  # the card masks the customer's number
    assert str(done["text"]).endswith(": done"), shown(done)
    [sent] = pbx.journal(method="POST", path="/v3/lead")
    assert sent["body"]["list_uuid"] == lead_list.list_uuid
    assert sent["body"]["lead_name"] == "Chi"

    before = len(slack.ephemerals(AGENT))
    await slack.driver.block_action(
        user=AGENT, action_id="lead_list_upload", ephemeral_ts=card["ts"]
    )
    how = await slack.wait_for(
        lambda: next(
            (m for m in slack.ephemerals(AGENT)[before:] if "Share the file" in shown(m)), None
        )
    )
    assert f"/callops leads upload {quoted(campaign.campaign_name)}" in shown(how)
    await slack.driver.file_share(
        user=AGENT,
        channel=CALL_CENTER,
        name="june.csv",
        content=b"phone_number,lead_name\n0912000001,An\n0912000002,Binh\n123,Bad\n",
    )
    before = len(slack.ephemerals(AGENT))
    await slack.driver.block_action(
        user=AGENT, action_id="lead_list_upload", ephemeral_ts=card["ts"]
    )
    prompt = await slack.wait_for(
        lambda: next(
            (m for m in slack.ephemerals(AGENT)[before:] if "approval_confirm" in button_ids(m)),
            None,
        )
    )
    assert "Upload *2 leads* from *june.csv*" in shown(prompt)
    assert lead_list.list_uuid in shown(prompt)


@pytest.mark.usefixtures("approvals")
async def test_leads_upload_by_campaign_name_uploads_into_its_list(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    campaign = await with_list(pbx, "manual")
    await slack.driver.file_share(
        user=AGENT,
        channel=CALL_CENTER,
        name="july.csv",
        content=b"phone_number\n0912000003\n0912000004\n0912000005\n",
    )
    prompt = await prompt_for(slack, f"leads upload {campaign.campaign_name}")
    assert "Upload *3 leads* from *july.csv*" in shown(prompt)
    await confirm(slack, prompt)
    done = await approved(slack, "july.csv")
    assert str(done["text"]).endswith(": done"), shown(done)
    [upload] = pbx.journal(method="POST", path="/v3/lead/file")
    assert upload["body"]["list_uuid"] == campaign.default_list_uuid


async def test_lead_without_a_number_opens_the_form_for_the_campaigns_list(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    campaign = await with_list(pbx)
    delivery = await slack.driver.slash_command(
        user=AGENT, channel=CALL_CENTER, text=f"lead {quoted(campaign.campaign_name)} lead_name=An"
    )
    assert delivery.in_time
    form = await slack.wait_for(
        lambda: next((v for v in slack.views(AGENT) if v.get("callback_id") == "lead_form"), None)
    )
    assert json.loads(form["private_metadata"])["list_uuid"] == campaign.default_list_uuid
    name = next(b for b in form["blocks"] if b.get("block_id") == "lead_name")
    assert name["element"]["initial_value"] == "An"
    reply = await ask(slack, f"lead {quoted(campaign.campaign_name)} address=Hue", user=AGENT)
    assert "The phone number is missing" in shown(reply)
