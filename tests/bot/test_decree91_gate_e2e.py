"""Decree 91 as a gate, end to end through the Slack stand-in against the emulator.

The decree's clock is Vietnam's whatever a workspace displays; the frequency rule claims
its place before the service is called, so approvals clicked at once and concurrent
pushes place one call; what the gate decided is kept as evidence."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from bot.runtime import Runtime
from callcenter.models import Campaign
from commands.approvals.kinds import ActionKind
from commands.approvals.workflow import update_policy
from commands.rules.guard import DECREE_TZ
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, APPROVALS, CALL_CENTER, MANAGER, SUPERVISOR, TEAM, SlackStandIn
from storage import Mode
from tests.bot.approval_helpers import (
    ask,
    card_now,
    click_card,
    confirm,
    prompt_for,
    settled,
    shown,
)

pytestmark = pytest.mark.usefixtures("approvals")

PUSHES = "/v3/autocall/import"
NEW_YORK = "America/New_York"


def hhmm(moment: datetime) -> str:
    return moment.strftime("%H:%M")


def vietnam_now() -> datetime:
    return datetime.now(UTC).astimezone(DECREE_TZ)


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
    update_policy(app.storage.policies, TEAM, ActionKind.AUTOCALL_PUSH, mode=Mode.NONE)
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
    later, after = now + timedelta(hours=2), now + timedelta(hours=3)
    app.storage.calling_rules.set_hours(
        TEAM, (later.hour * 60 + later.minute, after.hour * 60 + after.minute)
    )
    reply = await ask(slack, f"autocall {greeting.campaign_uuid} 0912345678 name=An", user=AGENT)
    said = shown(reply)
    assert "Decree 91/2020/ND-CP" in said and "Vietnam time" in said, said
    assert f"({hhmm(later)} " in said  # Vietnam's time beside the reader's
    assert placed(pbx) == 0 and app.storage.approvals.list(TEAM) == []
    before, since = now - timedelta(hours=1), now + timedelta(hours=1)
    app.storage.calling_rules.set_hours(
        TEAM, (before.hour * 60 + before.minute, since.hour * 60 + since.minute)
    )
    await prompt_for(slack, f"autocall {greeting.campaign_uuid} 0912345678 name=An")
