"""Typing like a person, end to end: names without diacritics, typos, unquoted names and
values, and a "Which one?" choice that keeps what was typed.  Signed slash commands go
in through the Slack stand-in; the app answers from the emulator's seeded campaigns
(Vietnamese names such as "Gọi lại khách hàng CT")."""

from __future__ import annotations

from typing import Any

import pytest

from bot.runtime import Runtime
from callcenter import CallCenter
from callcenter.models import Campaign
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, DIGESTS, TEAM, SlackStandIn
from tests.bot.approval_helpers import button_ids, prompt_for, puts
from tests.bot.test_commands_e2e import ask, expect_replies, shown

JSON = dict[str, Any]


async def campaign_named(pbx: EmulatorServer, name: str) -> Campaign:
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        found = [c async for c in cc.campaigns.iterate() if c.campaign_name == name]
    assert len(found) == 1, f"the seed has one campaign called {name}"
    return found[0]


def buttons(message: JSON) -> list[JSON]:
    return [
        element
        for block in message.get("blocks", [])
        if block.get("type") == "actions"
        for element in block["elements"]
        if element.get("type") == "button"
    ]


def text_lines(message: JSON) -> list[str]:
    return [
        line
        for block in message.get("blocks", [])
        if block.get("type") == "section"
        for line in str(block["text"]["text"]).splitlines()
    ]


async def test_a_mistyped_command_gets_did_you_mean_not_the_whole_help(
    app: Runtime, slack: SlackStandIn
) -> None:
    reply = await ask(slack, "campain")
    assert "I don't know `campain`. Did you mean `campaign` or `campaigns`?" in shown(reply)
    assert "`/callops help`" in shown(reply)
    assert len(text_lines(reply)) == 1, "one line, not 55 lines of help"
    await expect_replies(
        slack,
        ("digest ad #digests daily 08:00", "I don't know `digest ad`. Did you mean `digest add`?"),
        (
            "cdr stauts=busy",
            "'stauts=' is not a filter. Did you mean `status=`?",
            "/callops help writing",
        ),
    )


async def test_a_campaign_typed_without_diacritics_resolves(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target = await campaign_named(pbx, "Gọi lại khách hàng CT")
    reply = await ask(slack, "campaign goi lai khach hang ct")
    assert "Gọi lại khách hàng CT" in shown(reply) and target.campaign_uuid in shown(reply)
    assert "Which one?" not in shown(reply) and "matched" not in shown(reply)


async def test_a_campaign_with_one_typo_resolves_when_only_reading(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target = await campaign_named(pbx, "Gọi lại khách hàng CT")
    reply = await ask(slack, "campaign goi lai khach hagn ct")
    assert target.campaign_uuid in shown(reply)
    assert "“goi lai khach hagn ct” matched “Gọi lại khách hàng CT”" in shown(reply)
    records = await ask(slack, "cdr campaign=Goi lai khach hagn CT from=2020-01-01")
    assert "campaign *Gọi lại khách hàng CT*" in shown(records)
    assert "matched “Gọi lại khách hàng CT”" in shown(records)


@pytest.mark.usefixtures("roles")
async def test_a_typo_in_an_action_is_offered_and_the_choice_asks_to_confirm(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target = await campaign_named(pbx, "Gọi lại khách hàng CT")
    assert target.status == "start"
    offer = await ask(slack, "stop goi lai khach hagn ct", user=AGENT)
    assert "No campaign is called *goi lai khach hagn ct*. Did you mean" in shown(offer)
    choices = {b["text"]["text"]: b for b in buttons(offer)}
    assert choices["Gọi lại khách hàng CT"]["value"] == f"stop {target.campaign_uuid}"
    assert puts(pbx, f"/v3/campaign/{target.campaign_uuid}") == []
    await slack.driver.block_action(
        user=AGENT,
        action_id=choices["Gọi lại khách hàng CT"]["action_id"],
        ephemeral_ts=offer["ts"],
    )
    prompt = await slack.wait_for(
        lambda: next(
            (
                m
                for m in slack.ephemerals(AGENT)
                if "approval_confirm" in button_ids(m) and target.campaign_uuid in shown(m)
            ),
            None,
        )
    )
    assert "Stop campaign *Gọi lại khách hàng CT*" in shown(prompt)
    assert puts(pbx, f"/v3/campaign/{target.campaign_uuid}") == []


@pytest.mark.usefixtures("roles")
async def test_autocall_takes_an_unquoted_campaign_and_an_unquoted_value(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target = await campaign_named(pbx, "Nhắc thanh toán HN")
    prompt = await prompt_for(slack, "autocall Nhắc thanh toán HN 0912 345 678 name=Nguyễn Văn An")
    assert "0912 345 678" in shown(prompt) and "Nguyễn Văn An" in shown(prompt)
    assert target.campaign_name in shown(prompt)
    assert app.storage.approvals.list(TEAM)[0].params["param"] == {"name": "Nguyễn Văn An"}


@pytest.mark.usefixtures("roles")
async def test_which_one_keeps_the_phone_and_the_values(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target = await campaign_named(pbx, "Nhắc thanh toán HN")
    offer = await ask(slack, "autocall nhac thanh toan 0912345678 name=Nguyễn Văn An", user=AGENT)
    assert "Which one?" in shown(offer)
    choices = {b["text"]["text"]: b for b in buttons(offer)}
    assert {"Nhắc thanh toán HN", "Nhắc thanh toán HN đợt 2"} <= set(choices)
    assert choices[target.campaign_name]["value"] == (
        f"autocall {target.campaign_uuid} 0912345678 name=Nguyễn Văn An"
    )
    await slack.driver.block_action(
        user=AGENT, action_id=choices[target.campaign_name]["action_id"], ephemeral_ts=offer["ts"]
    )
    prompt = await slack.wait_for(
        lambda: next(
            (m for m in slack.ephemerals(AGENT) if "approval_confirm" in button_ids(m)), None
        )
    )
    assert "0912 345 678" in shown(prompt) and "Nguyễn Văn An" in shown(prompt)
    approval = app.storage.approvals.list(TEAM)[0]
    assert approval.params["campaign_uuid"] == target.campaign_uuid
    assert approval.params["phone_number"] == "0912345678"
    assert approval.params["param"] == {"name": "Nguyễn Văn An"}


async def test_digest_and_monitor_take_unquoted_names(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    slack.set_bot_member(DIGESTS, True)
    callback = await campaign_named(pbx, "Gọi lại khách hàng CT")
    loans = await campaign_named(pbx, "Vay tiêu dùng HCM")
    reply = await ask(
        slack, "digest add <#C0003|digests> daily 08:00 goi lai khach hang ct, vay tieu dung hcm"
    )
    assert "scheduled for 2 campaigns" in shown(reply), shown(reply)
    (digest,) = app.storage.digests.list(TEAM)
    assert list(digest.campaigns) == [callback.campaign_uuid, loans.campaign_uuid]
    # Two autodialers one after the other, unquoted: the longest runs that name one.
    monitor = await ask(slack, "monitor telesale the tin dung hcm Vay tiêu dùng HCM")
    assert "of 2 campaigns running" in shown(monitor), shown(monitor)
    assert "*Telesale thẻ tín dụng HCM*" in shown(monitor) and "*Vay tiêu dùng HCM*" in shown(
        monitor
    )


@pytest.mark.usefixtures("roles")
async def test_lead_name_with_spaces_needs_no_quotes(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    list_uuid = str(pbx.state("lists")[0]["list_uuid"])
    prompt = await prompt_for(
        slack, f"lead {list_uuid} 0912345678 lead_name=Nguyễn Văn An address=12 Lê Lợi, Q1"
    )
    fields = app.storage.approvals.list(TEAM)[0].params["fields"]
    assert fields == {"lead_name": "Nguyễn Văn An", "address": "12 Lê Lợi, Q1"}
    assert "Nguyễn Văn An" in shown(prompt)
    # Fields are named as people name them, not by the service's keys.
    assert "• Customer's name: Nguyễn Văn An" in shown(prompt)
    assert "• Address: 12 Lê Lợi, Q1" in shown(prompt) and "`lead_name`" not in shown(prompt)
