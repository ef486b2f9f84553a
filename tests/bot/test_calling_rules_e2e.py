"""Hear it before the customer does, and call only when the rules allow.

Through the Slack stand-in against the emulator: an autocall's prompt and approval card
say what the customer will hear, in Vietnamese words; a value the service would misread
is refused with its field named and nothing asked; the calling rules (hours, do-not-call
list, calls per number) stop a push at once, saying which rule and when calls are next
allowed."""

from __future__ import annotations

import io
import wave
from datetime import timedelta
from typing import Any

import pytest

from bot.runtime import Runtime
from callcenter.models import Campaign
from commands.rules.guard import refused_between
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, APPROVALS, CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from tests.bot.approval_helpers import (
    approved,
    ask,
    button_ids,
    campaigns,
    card_in,
    confirm,
    latest_view,
    prompt_for,
    shown,
)
from tests.bot.rule_helpers import hhmm, hours_ahead, hours_opening_later, set_rule, vietnam_now
from tests.bot.test_commands_e2e import expect_replies

pytestmark = pytest.mark.usefixtures("roles")

PUSHES = "/v3/autocall/import"
JSON = dict[str, Any]


@pytest.mark.usefixtures("approvals")
async def test_the_prompt_and_the_card_say_what_the_customer_will_hear(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, reminder: Campaign
) -> None:
    prompt = await prompt_for(
        slack,
        f"autocall {reminder.campaign_uuid} 0912345678 name=An amount=1500000 due_date=31/12/2026",
    )
    heard = shown(prompt)
    assert "What the customer will hear" in heard
    assert "một triệu năm trăm nghìn" in heard
    assert "ngày ba mươi mốt tháng mười hai năm hai nghìn không trăm hai mươi sáu" in heard
    assert "read as an amount" in heard and "read as a date" in heard
    await confirm(slack, prompt)
    card = await card_in(slack, APPROVALS, "0912 *** 678")  # masked where many read
    assert "một triệu năm trăm nghìn" in shown(card)  # the approver hears it too
    assert pbx.journal(method="POST", path=PUSHES) == []


async def test_listen_reads_every_form_of_value_and_pushes_nothing(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, reminder: Campaign
) -> None:
    reply = await ask(
        slack, f"listen {reminder.campaign_uuid} name=0 9 1 2 amount=#15 due_date=2026-04-01"
    )
    heard = shown(reply)
    assert "không chín một hai" in heard and "read digit by digit" in heard
    assert "mười lăm" in heard and "read as a number" in heard
    # The template says "đến hạn ngày {{due_date}}": no "ngày ngày", and the 1st is "mùng".
    assert "hạn ngày mùng một tháng tư năm hai nghìn không trăm hai mươi sáu" in heard
    assert "ngày ngày" not in heard
    assert "northern forms (linh, nghìn)" in heard  # the template's voice is northern
    assert "Nothing was sent" in heard
    reply = await ask(slack, f"listen {reminder.campaign_uuid} name=Bình amount=9:30")
    assert "read as written" in shown(reply) and "due_date=" in shown(reply)
    # A placeholder the template lacks: the usage shown is listen's own, not autocall's.
    reply = await ask(slack, f"listen {reminder.campaign_uuid} foo=bar")
    assert "no placeholder foo" in shown(reply) and "`/callops listen &lt;campaign&gt;" in (
        shown(reply)
    ), shown(reply)
    assert pbx.journal(method="POST", path=PUSHES) == []


async def test_a_date_that_does_not_exist_is_refused_with_its_field(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, reminder: Campaign
) -> None:
    reply = await ask(
        slack,
        f"autocall {reminder.campaign_uuid} 0912345678 name=An amount=150000 due_date=31/02/2026",
        user=AGENT,
    )
    assert "Due date (due_date=)" in shown(reply) and "not a date" in shown(reply)
    reply = await ask(
        slack,
        f"autocall {reminder.campaign_uuid} 0912345678 name=An amount=1.500.000 due_date=1/1/2027",
        user=AGENT,
    )
    assert "1500000" in shown(reply) and "Amount (amount=)" in shown(reply)
    await slack.driver.slash_command(
        user=AGENT, channel=CALL_CENTER, text=f"autocall {reminder.campaign_uuid} 0912345678"
    )
    form = await latest_view(slack, AGENT, "autocall_form")
    await slack.driver.view_submission(
        form["id"],
        {
            "phone": "0912345678",
            "param:name": "An",
            "param:amount": "150000",
            "param:due_date": "31/02/2026",
        },
    )
    assert "not a date" in slack.view_errors(form["id"])["param:due_date"]
    assert app.storage.approvals.list(TEAM) == []
    assert pbx.journal(method="POST", path=PUSHES) == []


async def test_hours_that_exclude_now_refuse_with_the_next_allowed_time(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, greeting: Campaign
) -> None:
    now = vietnam_now()  # the rules read Vietnam's clock
    later, after = hours_ahead()
    reply = await set_rule(slack, f"rules hours {hhmm(later)}-{hhmm(after)}")
    assert "now allowed" in shown(reply)
    reply = await ask(slack, f"autocall {greeting.campaign_uuid} 0912345678 name=An", user=AGENT)
    assert "allowed only" in shown(reply) and f"next allowed at {hhmm(later)}" in shown(reply)
    assert app.storage.approvals.list(TEAM) == []
    outcomes = [e.outcome for e in app.storage.audit.entries(TEAM) if "refused" in e.action]
    assert outcomes == ["refused"]
    hour = timedelta(hours=1)
    assert await refused_between(app.storage, TEAM, now - hour, now + hour) == 1  # digests
    before, since = now - timedelta(hours=1), now + timedelta(hours=1)
    await set_rule(slack, f"rules hours {hhmm(before)}-{hhmm(since)}")
    await prompt_for(slack, f"autocall {greeting.campaign_uuid} 0912345678 name=An")
    shown_rules = shown(await ask(slack, "rules", user=AGENT))
    assert f"{hhmm(before)}–{hhmm(since)}" in shown_rules


async def test_a_number_on_the_do_not_call_list_is_refused_however_written(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, greeting: Campaign
) -> None:
    reply = await ask(slack, "dnc add 0912 345 678", user=AGENT)
    assert "Added 1 number to the company's opt-out list" in shown(reply)
    reply = await ask(slack, "dnc check 0912345678 0987654321")
    assert shown(reply).count("Company opt-out list: on it") == 1
    assert shown(reply).count("Company opt-out list: not on it") == 1
    assert (
        shown(reply).index("0912 345 678")
        < shown(reply).index("opt-out list: on it")
        < shown(reply).index("0987 654 321")
    )
    reply = await ask(slack, f"autocall {greeting.campaign_uuid} 0912345678 name=An", user=AGENT)
    assert "company's opt-out list" in shown(reply) and "Nothing was sent" in shown(reply)
    assert "Decree 91/2020/ND-CP" in shown(reply)
    reply = await ask(slack, "dnc remove 0912345678", user=AGENT)
    assert "needs the admin role" in shown(reply)
    await ask(slack, "dnc remove 0912345678")
    await prompt_for(slack, f"autocall {greeting.campaign_uuid} 0912345678 name=An")


@pytest.mark.usefixtures("approvals")
async def test_a_second_advertising_call_within_a_day_is_refused(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, greeting: Campaign
) -> None:
    pbx.set_call_mode("manual")
    await ask(slack, "rules frequency 1")
    prompt = await prompt_for(slack, f"autocall {greeting.campaign_uuid} 0912345678 name=An")
    await confirm(slack, prompt)
    done = await approved(slack, "0912 *** 678")  # masked where many read
    assert done["text"].endswith(": done"), shown(done)
    assert len(pbx.journal(method="POST", path=PUSHES)) == 1
    reply = await ask(slack, f"autocall {greeting.campaign_uuid} 0912 345 678 name=An", user=AGENT)
    assert "already had 1 advertising call in the last 24 hours" in shown(reply)
    assert len(pbx.journal(method="POST", path=PUSHES)) == 1
    # Other numbers are still called.
    await prompt_for(slack, f"autocall {greeting.campaign_uuid} 0987654321 name=An")


async def test_rules_are_admins_to_change_and_a_campaign_can_be_taken_out(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, greeting: Campaign
) -> None:
    await expect_replies(slack, ("rules hours 08:00-17:00", "needs the admin role"), user=AGENT)
    await expect_replies(
        slack,
        ("rules hours 8 until 5", "HH:MM-HH:MM"),
        ("rules hours 08:00 - 16:30", "allowed 08:00–16:30"),
    )
    await hours_opening_later(slack)
    reply = await ask(slack, f"rules advertising {greeting.campaign_uuid} off")
    assert "no longer apply" in shown(reply)
    await prompt_for(slack, f"autocall {greeting.campaign_uuid} 0912345678 name=An")
    actions = [e.action for e in app.storage.audit.entries(TEAM)]
    assert "rules.hours" in actions and "rules.advertising" in actions


async def test_do_not_call_numbers_are_left_out_of_uploads_and_inserts(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    list_uuid = str(pbx.state("lists")[0]["list_uuid"])
    await ask(slack, "dnc add +84 987 654 321", user=AGENT)
    rows = ["phone_number,lead_name", "0912345678,An", "0987654321,Binh", "0356789012,Chi"]
    await slack.driver.file_share(
        user=AGENT, channel=CALL_CENTER, name="dnc.csv", content="\n".join(rows).encode()
    )
    prompt = await prompt_for(slack, f"leads upload {list_uuid}")
    text = shown(prompt)
    assert "Upload *2 leads*" in text and "1 number on the do-not-call list" in text
    assert "Line 3: 0987 654 321 is on the do-not-call list." in text
    reply = await ask(slack, f"lead {list_uuid} 0987 654 321", user=AGENT)
    assert "do-not-call list" in shown(reply) and "Nothing was sent" in shown(reply)
    assert pbx.journal(method="POST", path="/v3/lead") == []


async def test_a_registry_file_is_added_whole_by_an_admin(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    rows = ["so_dien_thoai", "0912345678", "+84 987 654 321", "035.678.9012", "not a number", ""]
    await slack.driver.file_share(
        user=SUPERVISOR, channel=CALL_CENTER, name="registry.csv", content="\n".join(rows).encode()
    )
    reply = await ask(slack, "dnc upload", user=AGENT)
    assert "needs the admin role" in shown(reply)
    await slack.driver.file_share(
        user=SUPERVISOR, channel=CALL_CENTER, name="registry.csv", content="\n".join(rows).encode()
    )
    reply = await ask(slack, "dnc upload")
    assert "registry.csv is version 1 of the national Do Not Advertise registry" in shown(reply)
    assert "3 numbers, 3 added and 0 removed" in shown(reply), shown(reply)
    assert "1 row was left out" in shown(reply)
    assert "Line 5: It has no phone number the service would accept." in shown(reply)
    reply = await ask(slack, "dnc check 0987654321 0356789012")
    assert shown(reply).count("National Do Not Advertise registry: on it") == 2
    await expect_replies(slack, ("rules", "National Do Not Advertise registry: 3"))


@pytest.mark.usefixtures("approvals")
async def test_a_start_is_approved_with_its_dialing_hours_brought_inside(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    await ask(slack, "rules hours 08:00-17:00")
    target = next(
        c
        for c in await campaigns(pbx)
        if c.type in ("autocall", "autodialer")
        and c.type_autocall != "autocall_voice_otp"
        and c.status != "start"
        and (c.local_end_time > "17:00" or c.schedules)
    )
    prompt = await prompt_for(slack, f"start {target.campaign_uuid}")
    said = shown(prompt)
    assert "reach outside the calling hours (08:00–17:00, Vietnam time" in said, said
    assert "Decree 91/2020/ND-CP" in said
    await confirm(slack, prompt)
    done = await approved(slack, target.campaign_uuid)
    assert done["text"].endswith(": done"), shown(done)
    puts = pbx.journal(method="PUT", path=f"/v3/campaign/{target.campaign_uuid}")
    assert len(puts) == 1
    body = puts[0]["body"]
    assert body["status"] == "start"
    if body.get("local_start_time"):
        assert "08:00:00" <= body["local_start_time"] < body["local_end_time"] <= "17:00:00"
    minute = 60 * 1_000_000_000
    for schedule in body.get("schedules") or []:
        for key, value in schedule.items():
            if key.endswith("_end_time") and value:
                assert value <= 17 * 60 * minute, (key, value)
            if key.endswith("_start_time") and value:
                assert value >= 8 * 60 * minute, (key, value)


async def test_the_campaign_card_says_whether_the_rules_apply_and_admins_switch_them(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, greeting: Campaign
) -> None:
    card = await ask(slack, f"campaign {greeting.campaign_uuid}")
    assert "Calling rules apply" in shown(card)
    assert "rules_advertising_switch" in button_ids(card)
    seen = await ask(slack, f"campaign {greeting.campaign_uuid}", user=AGENT)
    assert "Calling rules apply" in shown(seen)
    assert "rules_advertising_switch" not in button_ids(seen)  # only admins switch
    await slack.driver.block_action(
        user=SUPERVISOR, action_id="rules_advertising_switch", ephemeral_ts=card["ts"]
    )
    after = await slack.wait_for(
        lambda: next((m for m in slack.ephemerals(SUPERVISOR) if "do not apply" in shown(m)), None)
    )
    assert "an admin said it is not advertising" in shown(after)
    rules = app.storage.calling_rules.rules(TEAM)
    assert rules.of(greeting.campaign_uuid).advertising is False
    assert "rules.advertising" in [e.action for e in app.storage.audit.entries(TEAM)]


async def test_listen_sends_the_preview_spoken_to_the_asker_alone(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, reminder: Campaign
) -> None:
    reply = await ask(
        slack, f"listen {reminder.campaign_uuid} name=An amount=1500000 due_date=31/12/2026"
    )
    assert "autocall_listen" in button_ids(reply)
    await slack.driver.block_action(
        user=SUPERVISOR, action_id="autocall_listen", ephemeral_ts=reply["ts"]
    )
    sent = await slack.wait_for(
        lambda: next(
            (
                m
                for m in slack.dm(SUPERVISOR)
                if any(f["name"] == "callops-preview.wav" for f in m.get("files", []))
            ),
            None,
        )
    )
    _, content = slack.file(sent["files"][0]["id"])
    with wave.open(io.BytesIO(content or b"")) as audio:
        seconds = audio.getnframes() / audio.getframerate()
    assert seconds > 2.0  # a name, an amount in words and a date in words are said
    assert "approximation" in shown(sent)
    assert not [m for m in slack.messages(CALL_CENTER) if m.get("files")]
