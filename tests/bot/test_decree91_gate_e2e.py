"""Decree 91 as a gate, end to end through the Slack stand-in against the emulator.

The decree's clock is Vietnam's whatever a workspace displays; the frequency rule claims
its place before the service is called, so approvals clicked at once and concurrent
pushes place one call; what the gate decided is kept as evidence."""

from __future__ import annotations

import asyncio
import csv
import io
from datetime import timedelta

import pytest

from bot.runtime import Runtime
from callcenter.models import Campaign
from commands.approvals.workflow import update_policy
from commands.rules.compliance import EXPORT
from commands.rules.manage import CLASSIFY, CONFIRM_LOOSER
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, APPROVALS, CALL_CENTER, MANAGER, SUPERVISOR, TEAM, SlackStandIn
from storage import Mode
from tests.bot.approval_helpers import (
    approved,
    ask,
    button_ids,
    campaigns,
    card_in,
    card_now,
    click_card,
    confirm,
    prompt_for,
    settled,
    shown,
)
from tests.bot.rule_helpers import hhmm, hours_ahead, minutes, set_rule, vietnam_now
from tests.bot.test_lead_actions_e2e import blacklisted

pytestmark = pytest.mark.usefixtures("approvals")

PUSHES = "/v3/autocall/import"
NEW_YORK = "America/New_York"


def placed(pbx: EmulatorServer) -> int:
    return len([e for e in pbx.journal(method="POST", path=PUSHES) if e["status"] == 200])


async def test_approvals_clicked_at_the_same_instant_place_one_call(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, greeting: Campaign
) -> None:
    pbx.set_call_mode("manual")
    app.storage.calling_rules.set_frequency(TEAM, 1)
    for _ in range(2):
        await confirm(
            slack, await prompt_for(slack, f"autocall {greeting.campaign_uuid} 0912345678 name=An")
        )
    await slack.wait_for(
        lambda: (
            len([m for m in slack.messages(APPROVALS) if "approval_approve" in str(m)]) >= 2 or None
        )
    )
    cards = [m for m in slack.messages(APPROVALS) if "approval_approve" in str(m)][:2]
    await asyncio.gather(
        click_card(slack, cards[0], "approval_approve", SUPERVISOR, APPROVALS),
        click_card(slack, cards[1], "approval_approve", MANAGER, APPROVALS),
    )
    ends = [await card_now(slack, APPROVALS, c["ts"], settled) for c in cards]
    words = sorted(e["text"].rsplit(":", 1)[-1].strip() for e in ends)
    assert words == ["done", "failed"], [shown(e) for e in ends]
    refused = next(shown(e) for e in ends if e["text"].endswith("failed"))
    assert "Decree 91/2020/ND-CP" in refused and "may be called again at" in refused
    assert placed(pbx) == 1
    outcomes = sorted(d.outcome for d in app.storage.gate_log.between(TEAM, 0, 4e9))
    assert outcomes == ["placed", "refused"]


async def test_ten_concurrent_pushes_without_approval_place_one_call(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, greeting: Campaign
) -> None:
    pbx.set_call_mode("manual")
    app.storage.calling_rules.set_frequency(TEAM, 1)
    update_policy(app.storage.policies, TEAM, "autocall.push", mode=Mode.NONE)
    text = f"autocall {greeting.campaign_uuid} 0912345678 name=An"
    deliveries = await asyncio.gather(
        *(slack.driver.slash_command(user=AGENT, channel=CALL_CENTER, text=text) for _ in range(10))
    )
    assert all(d.in_time for d in deliveries)
    await slack.wait_for(lambda: len(app.storage.gate_log.between(TEAM, 0, 4e9)) >= 10 or None)
    assert placed(pbx) == 1
    decisions = app.storage.gate_log.between(TEAM, 0, 4e9)
    assert sorted(d.outcome for d in decisions).count("placed") == 1
    assert {d.rule for d in decisions if d.outcome == "refused"} == {"frequency"}


async def test_a_workspace_in_new_york_does_not_move_the_hours(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, greeting: Campaign
) -> None:
    await ask(slack, f"settings timezone {NEW_YORK}")
    now = vietnam_now()
    # Hours that are open now in New York but closed now in Vietnam.
    later, after = hours_ahead()
    app.storage.calling_rules.set_hours(TEAM, minutes(later, after))
    reply = await ask(slack, f"autocall {greeting.campaign_uuid} 0912345678 name=An", user=AGENT)
    said = shown(reply)
    assert "Decree 91/2020/ND-CP" in said and "Vietnam time" in said, said
    assert f"({hhmm(later)} " in said  # Vietnam's time beside the reader's
    assert placed(pbx) == 0 and app.storage.approvals.list(TEAM) == []
    before, since = now - timedelta(hours=1), now + timedelta(hours=1)
    app.storage.calling_rules.set_hours(TEAM, minutes(before, since))
    await prompt_for(slack, f"autocall {greeting.campaign_uuid} 0912345678 name=An")


async def test_a_looser_setting_asks_first_and_is_marked(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, greeting: Campaign
) -> None:
    app.storage.calling_rules.set_hours(TEAM, (8 * 60, 17 * 60))
    app.storage.calling_rules.set_frequency(TEAM, 1)
    asked = await ask(slack, "rules frequency 2")
    said = shown(asked)
    assert "Decree 91/2020/ND-CP allows" in said and CONFIRM_LOOSER in button_ids(asked)
    assert app.storage.calling_rules.rules(TEAM).frequency == 1  # nothing changed yet
    asked = await ask(slack, "rules hours 22:00-02:00")
    assert "08:00–17:00" in shown(asked) and CONFIRM_LOOSER in button_ids(asked)
    assert app.storage.calling_rules.rules(TEAM).hours == (8 * 60, 17 * 60)
    assert "looser than Decree 91" not in shown(await ask(slack, "rules", user=AGENT))

    done = await set_rule(slack, "rules frequency 2")
    assert "looser than Decree 91" in shown(done)
    await set_rule(slack, "rules hours 22:00-02:00")
    rules = app.storage.calling_rules.rules(TEAM)
    assert rules.frequency == 2 and rules.hours == (22 * 60, 2 * 60)
    listing = shown(await ask(slack, "rules", user=AGENT))
    assert "Looser than Decree 91" in listing and f"<@{SUPERVISOR}>" in listing
    assert "22:00–02:00" in listing and "Vietnam's clock (UTC+07)" in listing
    card = shown(await ask(slack, f"campaign {greeting.campaign_uuid}"))
    assert "looser than Decree 91" in card
    digest = shown(await ask(slack, "digest preview"))
    assert "Calling rules looser than Decree 91: hours 22:00–02:00; 2 calls to one" in digest
    looser = [
        e
        for e in app.storage.audit.entries(TEAM)
        if e.action in ("rules.hours", "rules.frequency") and e.params.get("looser_than_decree")
    ]
    assert [(e.action, e.user_id) for e in looser] == [
        ("rules.frequency", SUPERVISOR),
        ("rules.hours", SUPERVISOR),
    ]
    # Back within the decree: set at once, no longer marked.
    reply = await ask(slack, "rules frequency 1")
    assert CONFIRM_LOOSER not in button_ids(reply) and "looser" not in shown(reply)


async def test_every_outbound_campaign_has_a_class_set_by_someone(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    everything = await campaigns(pbx)
    otp = next(c for c in everything if c.type_autocall == "autocall_voice_otp")
    listing = shown(await ask(slack, "rules", user=AGENT))
    assert "OTP calls are service calls" in listing  # exempt, listed, not hidden
    reminders = [c for c in everything if "Nhắc lịch hẹn" in c.campaign_name]
    assert len(reminders) >= 2 and otp.campaign_uuid
    asked = await ask(slack, "rules advertising match=nhac lich hen off")
    said = shown(asked)
    assert all(c.campaign_name in said for c in reminders), said
    assert CLASSIFY in button_ids(asked)
    rules = app.storage.calling_rules.rules(TEAM)
    assert all(rules.of(c.campaign_uuid).advertising is None for c in reminders)
    seen = {m["ts"] for m in slack.ephemerals(SUPERVISOR)}
    await slack.driver.block_action(user=SUPERVISOR, action_id=CLASSIFY, ephemeral_ts=asked["ts"])
    done = await slack.wait_for(
        lambda: next((m for m in slack.ephemerals(SUPERVISOR) if m["ts"] not in seen), None)
    )
    assert "service campaigns" in shown(done)
    rules = app.storage.calling_rules.rules(TEAM)
    assert all(rules.of(c.campaign_uuid).advertising is False for c in reminders)
    two = [c for c in everything if c.type == "autodialer"][:2]
    reply = await ask(slack, f"rules advertising {two[0].campaign_uuid} {two[1].campaign_uuid} off")
    assert "service campaigns" in shown(reply)
    rules = app.storage.calling_rules.rules(TEAM)
    assert [rules.of(c.campaign_uuid).advertising for c in two] == [False, False]
    set_by = rules.of(two[0].campaign_uuid).advertising_set
    assert set_by is not None and set_by.user_id == SUPERVISOR and set_by.at
    listing = shown(await ask(slack, "rules", user=AGENT))
    assert f"service (set by <@{SUPERVISOR}>" in listing
    reply = await ask(slack, "rules advertising match=nothing like this on")
    assert "Nothing was changed" in shown(reply)


async def the_one_call_allowed(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, greeting: Campaign
) -> None:
    """One advertising call a day per number, and that one placed to 0912345678 after
    approval: the next to that number is refused by frequency."""
    pbx.set_call_mode("manual")
    app.storage.calling_rules.set_frequency(TEAM, 1)
    await confirm(
        slack, await prompt_for(slack, f"autocall {greeting.campaign_uuid} 0912345678 name=An")
    )
    done = await approved(slack, "0912 *** 678")
    assert done["text"].endswith(": done"), shown(done)


async def test_dnc_check_answers_every_rule_with_a_verdict_per_class(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, greeting: Campaign
) -> None:
    await the_one_call_allowed(app, slack, pbx, greeting)
    await ask(slack, "dnc add 0987654321", user=AGENT)
    blocked = await blacklisted(pbx)
    reply = shown(await ask(slack, "dnc check 0912345678", user=AGENT))
    assert "1 advertising call in the last 24 hours, of 1 allowed; next allowed at" in reply
    assert "Company opt-out list: not on it" in reply
    assert "National Do Not Advertise registry: not on it" in reply
    assert "Blacklist (the service's): not on it" in reply
    assert "Calling hours: 00:00–00:00 Vietnam time, open now" in reply
    assert "May receive an advertising call now:* no, until" in reply
    assert "May receive a service call now:* yes" in reply
    # Hours closed now: the verdict waits for them too.
    later, after = hours_ahead()
    app.storage.calling_rules.set_hours(TEAM, minutes(later, after))
    reply = shown(await ask(slack, "dnc check 0356789012", user=AGENT))
    assert "0 advertising calls in the last 24 hours, of 1 allowed" in reply
    assert f"closed now; next allowed at {hhmm(later)}" in reply
    assert f"advertising call now:* no, until {hhmm(later)}" in reply
    reply = shown(await ask(slack, "dnc check 0987654321", user=AGENT))
    assert "Company opt-out list: on it" in reply
    assert "advertising call now:* no, not while the number is on a list" in reply
    assert "service call now:* no" in reply
    reply = shown(await ask(slack, f"dnc check {blocked}", user=AGENT))
    assert "Blacklist (the service's): on it" in reply


async def test_an_advertising_autocall_without_the_brand_first_is_warned_not_refused(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, greeting: Campaign
) -> None:
    reply = await ask(slack, 'rules brand "Ngân hàng ACB"')
    assert "Ngân hàng ACB" in shown(reply)
    prompt = await prompt_for(slack, f"autocall {greeting.campaign_uuid} 0912345678 name=An")
    warning = "Brand name (Decree 91/2020/ND-CP)"
    assert warning in shown(prompt)
    await confirm(slack, prompt)
    card = await card_in(slack, APPROVALS, "0912 *** 678")
    assert warning in shown(card)  # the approver sees it too; nothing was refused
    # The brand said first (here through the greeting's name): no warning.
    prompt = await prompt_for(
        slack, f"autocall {greeting.campaign_uuid} 0987654321 name=Ngân hàng ACB"
    )
    assert warning not in shown(prompt)
    # A service campaign is not held to it.
    await ask(slack, f"rules advertising {greeting.campaign_uuid} off")
    prompt = await prompt_for(slack, f"autocall {greeting.campaign_uuid} 0356789012 name=An")
    assert warning not in shown(prompt)
    assert "Brand name*\\nNgân hàng ACB" in shown(await ask(slack, "rules", user=AGENT))


async def test_compliance_counts_the_events_and_exports_one_row_per_decision(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, greeting: Campaign
) -> None:
    # One call placed after approval, then refused by frequency, by the list, by the hours.
    await the_one_call_allowed(app, slack, pbx, greeting)
    push = f"autocall {greeting.campaign_uuid} {{}} name=An"
    assert "Calls per number" in shown(await ask(slack, push.format("0912345678"), user=AGENT))
    await ask(slack, "dnc add 0987654321", user=AGENT)
    assert "Decree 91" in shown(await ask(slack, push.format("0987654321"), user=AGENT))
    # 22 hours that leave out now: looser than the decree's 08:00-17:00 at any time of day.
    now = vietnam_now()
    later, after = now + timedelta(hours=1), now + timedelta(hours=23)
    await set_rule(slack, f"rules hours {hhmm(later)}-{hhmm(after)}")
    assert "Calling hours" in shown(await ask(slack, push.format("0356789012"), user=AGENT))

    report = await ask(slack, "compliance week")
    said = shown(report)
    assert "Advertising calls asked through callops:* 4" in said
    assert "placed: 1 · refused: 3 · not taken by the service: 0 · answer lost: 0" in said
    for rule in ("company opt-out list: 1", "calling hours: 1", "calls per number: 1"):
        assert rule in said, rule
    assert "blacklist: 0" in said
    assert f"<@{SUPERVISOR}> set hours" in said  # the looser hours, and who set them
    assert "company opt-out list: 1 number" in said
    assert "needs the admin role" in shown(await ask(slack, "compliance week", user=AGENT))

    seen = len(slack.dm(SUPERVISOR))
    await slack.driver.block_action(user=SUPERVISOR, action_id=EXPORT, ephemeral_ts=report["ts"])
    sent = await slack.wait_for(
        lambda: next(
            (m for m in slack.dm(SUPERVISOR)[seen:] if m.get("files")),
            None,
        )
    )
    _, content = slack.file(sent["files"][0]["id"])
    rows = list(csv.DictReader(io.StringIO((content or b"").decode())))
    assert len(rows) == 4
    assert sorted(r["outcome"] for r in rows) == ["placed", "refused", "refused", "refused"]
    placed = next(r for r in rows if r["outcome"] == "placed")
    assert placed["number"] == "0912 345 678" and placed["approvers"] == SUPERVISOR
    assert placed["requester"] == AGENT and placed["request"]
    assert {r["refused_by"] for r in rows} == {"", "frequency", "optout", "hours"}
    assert not [m for m in slack.messages(CALL_CENTER) if m.get("files")]


async def test_a_push_the_service_refused_gives_its_place_back_a_lost_answer_keeps_it(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, greeting: Campaign
) -> None:
    pbx.set_call_mode("manual")
    app.storage.calling_rules.set_frequency(TEAM, 1)
    update_policy(app.storage.policies, TEAM, "autocall.push", mode=Mode.NONE)

    async def push(phone: str) -> list[str]:
        before = len(app.storage.gate_log.between(TEAM, 0, 4e9))
        await slack.driver.slash_command(
            user=AGENT,
            channel=CALL_CENTER,
            text=f"autocall {greeting.campaign_uuid} {phone} name=An",
        )
        await slack.wait_for(
            lambda: len(app.storage.gate_log.between(TEAM, 0, 4e9)) > before or None
        )
        return [d.outcome for d in app.storage.gate_log.between(TEAM, 0, 4e9)[before:]]

    pbx.fail_next("POST", PUSHES, 400, body={"error": "phone_number is invalid"})
    assert await push("0912345678") == ["failed"]
    assert await push("0912345678") == ["placed"]  # the place was given back
    pbx.fail_next("POST", PUSHES, 502, drop=True)
    assert await push("0987654321") == ["unknown"]
    assert await push("0987654321") == ["refused"]  # it may be ringing: its place is kept
