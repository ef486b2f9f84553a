"""The two lists of Decree 91/2020/ND-CP, end to end through the Slack stand-in against
the emulator: a refusal on the phone (the button on a call card, a folded message's
select, a pressed opt-out key) puts the number on the company's opt-out list with its
source, and a later push to it is refused; a consent lets a registry number through but
never an opt-out number; the registry's versions stay readable; the export arrives by
direct message with its columns; the commands answer in both languages."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest

from bot.runtime import Runtime
from bot.settings import Settings
from callcenter import CallCenter
from callcenter.models import Cdr
from commands.kernel.phones import normalize_phone, phone_problem
from commands.rules.consent import VIETNAM
from commands.rules.refusals import REFUSED_BUTTON, REFUSED_SELECT, customer_phone
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, CALL_CENTER, MANAGER, SUPERVISOR, TEAM, SlackStandIn
from tests.bot.approval_helpers import autocall_campaign, give_roles, prompt_for
from tests.bot.feed_helpers import callback_url, make_record, post, routed_feed
from tests.bot.test_commands_e2e import ask, shown
from tests.bot.test_shortcuts_e2e import post_as, top_view

REFUSED = "dnc.optout"


@pytest.fixture
async def records(pbx: EmulatorServer) -> AsyncIterator[list[Cdr]]:
    """Call records the service holds, each with a customer's number of its own."""
    found: dict[str, Cdr] = {}
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        async for cdr in cc.cdrs.iterate(page_size=200):
            phone = customer_phone(cdr)
            if phone and cdr.time_started and phone not in found and len(cdr.id) <= 64:
                found[phone] = cdr
            if len(found) >= 6:
                break
    assert len(found) >= 6
    yield list(found.values())


async def send(rt: Runtime, base: str, *bodies: dict[str, Any]) -> None:
    async with httpx.AsyncClient(trust_env=False) as http:
        for body in bodies:
            assert (await post(http, callback_url(rt, base), body)).status_code == 200


def refused_entries(rt: Runtime) -> list[dict[str, Any]]:
    return [
        {"params": json.loads(json.dumps(e.params)), "user": e.user_id}
        for e in rt.storage.audit.entries(TEAM)
        if e.action == REFUSED
    ]


async def test_the_refused_button_adds_the_number_once_and_a_later_push_is_refused(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, records: list[Cdr]
) -> None:
    record = records[0]
    phone = customer_phone(record)
    assert phone is not None
    async with routed_feed(settings, slack, pbx) as (rt, base):
        await send(rt, base, record.model_dump(mode="json"))
        card = await slack.wait_for_message(CALL_CENTER, lambda m: record.id in json.dumps(m))
        # A viewer cannot; the number stays off the list.
        await slack.driver.block_action(
            user=AGENT, action_id=REFUSED_BUTTON, channel=CALL_CENTER, ts=card["ts"]
        )
        refusal = await slack.wait_for(
            lambda: next((m for m in slack.ephemerals(AGENT) if "role" in shown(m)), None)
        )
        assert "operator" in shown(refusal)
        assert rt.storage.call_lists.optouts(TEAM, [phone]) == {}
        give_roles(rt)
        for _ in range(2):  # a double click acts once
            await slack.driver.block_action(
                user=AGENT, action_id=REFUSED_BUTTON, channel=CALL_CENTER, ts=card["ts"]
            )
        await slack.wait_for(lambda: len(refused_entries(rt)) >= 2 or None)
        entry = rt.storage.call_lists.optouts(TEAM, [phone])[phone]
        assert (entry.source, entry.call_id, entry.added_by) == ("call", record.id, AGENT)
        notes = await slack.wait_for(
            lambda: [
                m
                for m in slack.thread(CALL_CENTER, card["ts"])[1:]
                if "recorded that the customer" in shown(m)
            ]
        )
        assert len(notes) == 1 and "company's opt-out list" in shown(notes[0])
        assert "Decree 91/2020/ND-CP" in shown(notes[0])
        assert [e["params"]["added"] for e in refused_entries(rt)] == [True, False]
        campaign = await autocall_campaign(pbx, "Chào hỏi khách hàng")
        reply = await ask(slack, f"autocall {campaign.campaign_uuid} {phone} name=An", user=AGENT)
        assert "company's opt-out list" in shown(reply) and "Nothing was sent" in shown(reply)
        reply = await ask(slack, "dnc list")
        assert "from a call record" in shown(reply) and f"<@{AGENT}>" in shown(reply)
    assert pbx.journal(method="POST", path="/v3/autocall/import") == []


async def test_a_pressed_opt_out_key_adds_the_number_by_itself(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    async with routed_feed(settings, slack, pbx) as (rt, base):
        reply = await ask(slack, "notify add <#C0001|call-center> optout-key=x")
        assert "optout-key= takes one key" in shown(reply)
        reply = await ask(slack, "notify add <#C0001|call-center> optout-key=9")
        assert "key `9` puts the number on the company's opt-out list" in shown(reply)
        said_no = make_record(to_number="0987000111", press_key="9")
        other = make_record(to_number="0987000222", press_key="1")
        await send(rt, base, said_no, other, said_no)  # the same record twice counts once
        found = rt.storage.call_lists.optouts(TEAM, ["0987000111", "0987000222"])
        assert list(found) == ["0987000111"]
        assert (found["0987000111"].source, found["0987000111"].call_id) == ("key", said_no["id"])
        assert [(e["params"]["source"], e["user"]) for e in refused_entries(rt)] == [("key", None)]
        give_roles(rt)
        campaign = await autocall_campaign(pbx, "Chào hỏi khách hàng")
        reply = await ask(
            slack, f"autocall {campaign.campaign_uuid} 0987 000 111 name=An", user=AGENT
        )
        assert "company's opt-out list" in shown(reply) and "Nothing was sent" in shown(reply)
        await prompt_for(slack, f"autocall {campaign.campaign_uuid} 0987000222 name=An")


async def test_a_folded_message_offers_the_refusal_for_each_of_its_records(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, records: list[Cdr]
) -> None:
    async with routed_feed(settings, slack, pbx, virtual=True) as (rt, base):
        give_roles(rt)
        await rt.call_feed.stop()
        # Ordinary records (no key pressed, no agent's call) are what a fold lists.
        quiet = {"extension": "", "username": "", "press_key": "", "digits": "", "status": "busy"}
        await send(rt, base, *(r.model_dump(mode="json") | quiet for r in records[:4]))
        rt.call_feed.start()
        await rt.call_feed.drained()
        [fold] = slack.messages(CALL_CENTER)
        select = next(
            e
            for b in fold["blocks"]
            if b["type"] == "actions"
            for e in b["elements"]
            if e["action_id"] == REFUSED_SELECT
        )
        assert len(select["options"]) == 4
        chosen = records[2]
        option = next(o for o in select["options"] if chosen.id in o["value"])
        await slack.driver.block_action(
            user=AGENT,
            action_id=REFUSED_SELECT,
            channel=CALL_CENTER,
            ts=fold["ts"],
            value=option["value"],
        )
        await slack.wait_for(lambda: refused_entries(rt) or None)
        phone = customer_phone(chosen)
        assert phone is not None
        listed = rt.storage.call_lists.optouts(TEAM, [customer_phone(r) or "" for r in records])
        assert list(listed) == [phone] and listed[phone].call_id == chosen.id


@pytest.mark.usefixtures("roles")
async def test_a_consent_lets_a_registry_number_through_but_never_an_opt_out_number(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    campaign = await autocall_campaign(pbx, "Chào hỏi khách hàng")
    rows = ["so_dien_thoai,ngay_dang_ky", "0912345678,01/03/2025", "0987654321,2025-04-02"]
    await slack.driver.file_share(
        user=SUPERVISOR, channel=CALL_CENTER, name="dnc.csv", content="\n".join(rows).encode()
    )
    reply = await ask(slack, "dnc upload")
    assert "version 1" in shown(reply) and "2 rows had a registration date" in shown(reply)
    await ask(slack, "dnc add 0987654321 reason=said no on the phone", user="U0002")
    push = f"autocall {campaign.campaign_uuid}"
    reply = await ask(slack, f"{push} 0912345678 name=An", user=AGENT)
    assert "national Do Not Advertise registry" in shown(reply)
    assert "Decree 91/2020/ND-CP" in shown(reply) and "Nothing was sent" in shown(reply)
    reply = await ask(slack, "consent add 0912 345 678 until=01/01/2020 source=form", user=AGENT)
    assert "has passed" in shown(reply)
    reply = await ask(slack, "consent add 0912 345 678 until=31/12/2099", user=AGENT)
    assert "source=" in shown(reply)
    reply = await ask(
        slack, "consent add 0912 345 678 until=31/12/2099 source=signed form 12", user=AGENT
    )
    assert "Recorded the consent" in shown(reply) and "signed form 12" in shown(reply)
    await prompt_for(slack, f"{push} 0912345678 name=An")
    await ask(slack, "consent add 0987654321 source=signed form 13", user=AGENT)
    reply = await ask(slack, f"{push} 0987654321 name=An", user=AGENT)
    assert "company's opt-out list" in shown(reply) and "Nothing was sent" in shown(reply)
    reply = await ask(slack, "consent check 0987654321")
    assert "no call, whatever its consents" in shown(reply)
    reply = await ask(slack, "consent check 0912345678")
    assert "lets advertising calls of every campaign through" in shown(reply)
    reply = await ask(slack, "consent list")
    assert "0912 345 678" in shown(reply) and "signed form 12" in shown(reply)
    reply = await ask(slack, "consent remove 0912345678", user=AGENT)
    assert "Removed 1 consent" in shown(reply)
    reply = await ask(slack, f"{push} 0912345678 name=An", user=AGENT)
    assert "national Do Not Advertise registry" in shown(reply)
    # A service call is not the registry's business; the opt-out list refuses it still.
    await ask(slack, f"rules advertising {campaign.campaign_uuid} off")
    await prompt_for(slack, f"{push} 0912345678 name=An")
    reply = await ask(slack, f"{push} 0987654321 name=An", user=AGENT)
    assert "company's opt-out list" in shown(reply)
    actions = [e.action for e in app.storage.audit.entries(TEAM)]
    assert {"dnc.upload", "dnc.add", "consent.add", "consent.remove"} <= set(actions)


@pytest.mark.usefixtures("roles")
async def test_registry_versions_stay_readable_and_the_export_arrives_by_direct_message(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    first = ["0912345678,01/03/2025", "0987654321,", "0356789012,2025-01-05"]
    second = ["0987654321", "0911222333"]
    for name, rows in (("may.csv", first), ("june.csv", second)):
        await slack.driver.file_share(
            user=SUPERVISOR, channel=CALL_CENTER, name=name, content="\n".join(rows).encode()
        )
        reply = await ask(slack, "dnc upload")
    assert "june.csv is version 2" in shown(reply)
    assert "2 numbers, 1 added and 2 removed" in shown(reply)
    await ask(slack, "dnc add 0977 888 999 reason=asked on the phone", user=AGENT)
    listing = shown(await ask(slack, "dnc list", user=AGENT))
    assert "Company opt-out list*: 1 number" in listing and "asked on the phone" in listing
    assert "National Do Not Advertise registry*: 2 numbers" in listing
    assert "Version 2" in listing and "Version 1" in listing and "may.csv" in listing

    reply = await ask(slack, "dnc export", user=AGENT)  # customers' numbers: admins only
    assert "needs the admin role" in shown(reply)

    async def exported(command: str, name: str) -> list[list[str]]:
        reply = await ask(slack, command, user=MANAGER)
        assert "direct message" in shown(reply)
        message = await slack.wait_for(
            lambda: next(
                (
                    m
                    for m in slack.dm(MANAGER)
                    if any(f["name"] == name for f in m.get("files", []))
                ),
                None,
            )
        )
        file = next(f for f in message["files"] if f["name"] == name)
        _, content = slack.file(file["id"])
        return list(csv.reader(io.StringIO((content or b"").decode())))

    table = await exported("dnc export", "do-not-call-lists.csv")
    assert table[0] == ["number", "list", "source", "date", "who"]
    assert table[1][:3] == ["0977888999", "optout", "typed"] and table[1][4] == AGENT
    assert {r[0] for r in table[1:] if r[1] == "registry"} == {"0987654321", "0911222333"}
    old = await exported("dnc export version=1", "registry-v1.csv")
    dates = {r[0]: r[3] for r in old[1:]}
    assert dates["0912345678"] == "2025-03-01" and dates["0356789012"] == "2025-01-05"
    assert set(dates) == {"0912345678", "0987654321", "0356789012"}
    channel_files = [f["name"] for m in slack.messages(CALL_CENTER) for f in m.get("files", [])]
    assert channel_files == ["may.csv", "june.csv"]  # customers' numbers never to a channel
    reply = await ask(slack, "dnc export version=7", user=MANAGER)
    assert "no version 7" in shown(reply)


@pytest.mark.usefixtures("roles")
async def test_the_list_and_consent_commands_answer_in_vietnamese(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    await ask(slack, "language vi", user=AGENT)
    reply = shown(await ask(slack, "khong-goi them 0912 345 678 reason=khách từ chối", user=AGENT))
    assert "danh sách khách từ chối nhận cuộc gọi" in reply and "Nghị định 91/2020/NĐ-CP" in reply
    reply = shown(await ask(slack, "khong-goi danh-sach", user=AGENT))
    assert "Danh sách không quảng cáo" in reply and "khách từ chối nhận cuộc gọi" in reply
    reply = shown(await ask(slack, "dong-y them 0987 654 321 source=phiếu ký tên", user=AGENT))
    assert "phiếu ký tên" in reply and "Nghị định 91/2020/NĐ-CP" in reply
    reply = shown(await ask(slack, "dong-y danh-sach", user=AGENT))
    assert "0987 654 321" in reply
    await ask(slack, "dnc list")  # and in English for whoever reads English
    assert "Company opt-out list" in shown(await ask(slack, "dnc list"))


@pytest.mark.usefixtures("roles")
async def test_consents_ending_within_a_week_are_in_the_digests_rules_line(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    soon = (datetime.now(VIETNAM) + timedelta(days=3)).strftime("%d/%m/%Y")
    later = (datetime.now(VIETNAM) + timedelta(days=30)).strftime("%d/%m/%Y")
    await ask(slack, f"consent add 0912 345 678 until={soon} source=form", user=AGENT)
    await ask(slack, f"consent add 0987 654 321 until={later} source=form", user=AGENT)
    await ask(slack, "digest add <#C0001|call-center> daily 08:00")
    preview = shown(await ask(slack, "digest preview", user=AGENT))
    assert "1 customer's consent to advertising calls ends within 7 days" in preview
    assert "0912 345 678" in preview and "0987 654 321" not in preview


@pytest.mark.usefixtures("roles")
async def test_the_lead_card_and_the_call_back_shortcut_record_a_refusal(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    lead = next(
        row
        for row in pbx.state("leads")
        if (phone := normalize_phone(str(row["phone_number"]))) and not phone_problem(phone)
    )
    phone = normalize_phone(str(lead["phone_number"]))
    card = await ask(slack, f"lead {lead['lead_uuid']}", user=AGENT)
    await slack.driver.block_action(user=AGENT, action_id=REFUSED_BUTTON, ephemeral_ts=card["ts"])
    entry = (await slack.wait_for(lambda: app.storage.call_lists.optouts(TEAM, [phone])))[phone]
    assert (entry.source, entry.added_by) == ("call", AGENT)
    said = await slack.wait_for(
        lambda: next((m for m in slack.ephemerals(AGENT) if "refused further" in shown(m)), None)
    )
    assert "company's opt-out list" in shown(said)
    # The shortcut on a message that names a number offers the same, beside the call back.
    message = post_as(slack, SUPERVISOR, "Khách 0356 789 012 nói không muốn nhận cuộc gọi nữa")
    await slack.driver.message_shortcut(
        user=AGENT, channel=CALL_CENTER, ts=message["ts"], callback_id="call_back"
    )
    view = await top_view(slack, AGENT, "Customer refused further calls")
    await slack.driver.block_action(user=AGENT, action_id=REFUSED_BUTTON, view_id=view["id"])
    await top_view(slack, AGENT, "recorded that the customer")
    entry = app.storage.call_lists.optouts(TEAM, ["0356789012"])["0356789012"]
    assert entry.added_by == AGENT and entry.source in ("call", "typed")
    assert pbx.journal(method="POST", path="/v3/autocall/import") == []


async def test_a_refusal_on_a_reply_card_is_told_in_its_thread(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, records: list[Cdr]
) -> None:
    record = records[1]
    first = make_record(
        to_number=record.to_number,
        from_number=record.from_number,
        direction=record.direction,
        time_started=record.time_started,
    )
    async with routed_feed(settings, slack, pbx) as (rt, base):
        give_roles(rt)
        await send(rt, base, first)
        parent = await slack.wait_for_message(CALL_CENTER, lambda m: first["id"] in json.dumps(m))
        await send(rt, base, record.model_dump(mode="json"))
        reply = await slack.wait_for(
            lambda: next(
                (
                    m
                    for m in slack.thread(CALL_CENTER, parent["ts"])[1:]
                    if record.id in json.dumps(m)
                ),
                None,
            )
        )
        await slack.driver.block_action(
            user=AGENT, action_id=REFUSED_BUTTON, channel=CALL_CENTER, ts=reply["ts"]
        )
        note = await slack.wait_for(
            lambda: next(
                (
                    m
                    for m in slack.thread(CALL_CENTER, parent["ts"])
                    if "recorded that the customer" in shown(m)
                ),
                None,
            )
        )
        assert note["thread_ts"] == parent["ts"]
        # Slack asks for the thread's first message, not the reply, as thread_ts.
        [sent] = [
            e
            for e in slack.journal("chat.postMessage")
            if "recorded that the customer" in json.dumps(e.params)
        ]
        assert sent.params["thread_ts"] == parent["ts"]
