"""Threshold alerts end to end: made in Slack, checked by the digests family's alert job
(``AlertWatch``, on the runtime's job ports) against the emulator's autodialer
statistics (steered with scripted answers), told once per crossing, re-armed by a
recovery, silenced by Snooze."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.jobs import env_of
from bot.runtime import Runtime
from bot.settings import Settings
from callcenter import CallCenter
from commands.digests.alert_watch import AlertWatch
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from tests.bot.digest_helpers import FakeClock, app_with_clock, shown
from tests.bot.test_commands_e2e import ask

DIALER_PATH = "/v3/monitor-stats/campaign/autodialer"
HCM = ZoneInfo("Asia/Ho_Chi_Minh")


@pytest.fixture
async def app(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> AsyncIterator[Runtime]:
    async with app_with_clock(settings, slack, pbx, FakeClock(datetime.now(UTC))) as rt:
        yield rt


@pytest.fixture
async def campaign(pbx: EmulatorServer) -> Any:
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        async for c in cc.campaigns.iterate():
            if c.type == "autodialer":
                return c
    raise AssertionError("the emulator's seed has autodialer campaigns")


def answer_with(pbx: EmulatorServer, campaign: Any, *, dropped: float, ready: int = 3) -> None:
    """The next autodialer statistics request gets exactly these figures."""
    item = {
        "campaign_name": campaign.campaign_name,
        "campaign_uuid": campaign.campaign_uuid,
        "type": "autodialer",
        "status": "running",
        "total_leads": 500,
        "leads_in_progress": 12,
        "total_calls": 200,
        "total_connected_customers": 80,
        "customer_connection_rate": 40.0,
        "dropped_calls": round(80 * dropped / 100),
        "dropped_call_rate": dropped,
        "agents_ready": ready,
        "agents_in_call": 4,
        "total_agents": 8,
    }
    body = {"data": [item], "limit": 50, "offset": 0, "total": 1}
    pbx.fail_next("GET", DIALER_PATH, 200, body)


def alert_posts(slack: SlackStandIn) -> list[dict[str, Any]]:
    return [m for m in slack.messages(CALL_CENTER) if "alert_snooze_1h" in shown(m)]


async def test_an_alert_fires_once_and_rearms_after_recovery(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, campaign: Any
) -> None:
    reply = await ask(slack, "alert add <#C0001|call-center> dropped_rate &gt; 5")
    assert "every running campaign" in shown(reply), shown(reply)
    alert = app.storage.alerts.list(TEAM)[0]
    assert (alert.metric, alert.op, alert.threshold, alert.window_minutes) == (
        "dropped_rate",
        ">",
        5.0,
        60,
    )
    sched = AlertWatch(env_of(app))
    now = datetime.now(UTC)

    answer_with(pbx, campaign, dropped=7.5)
    assert (await sched.tick(now)).fired == 1
    first = alert_posts(slack)
    assert len(first) == 1
    assert "Dropped-call rate is 7.5%" in shown(first[0])
    assert campaign.campaign_name in shown(first[0])

    answer_with(pbx, campaign, dropped=8.0)
    assert (await sched.tick(now + timedelta(minutes=1))).fired == 0
    assert len(alert_posts(slack)) == 1

    answer_with(pbx, campaign, dropped=2.0)
    assert (await sched.tick(now + timedelta(minutes=2))).recovered == 1
    thread = slack.thread(CALL_CENTER, first[0]["ts"])
    assert any("Back to normal" in shown(m) for m in thread[1:])

    answer_with(pbx, campaign, dropped=9.0)
    assert (await sched.tick(now + timedelta(minutes=3))).fired == 1
    assert len(alert_posts(slack)) == 2


async def test_snooze_silences_then_reminds_once(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, campaign: Any
) -> None:
    await ask(slack, "alert add #call-center dropped_rate > 5")
    alert = app.storage.alerts.list(TEAM)[0]
    sched = AlertWatch(env_of(app))
    now = datetime.now(UTC)
    answer_with(pbx, campaign, dropped=12.0)
    await sched.tick(now)
    posted = alert_posts(slack)[0]

    await slack.driver.block_action(
        user=AGENT, channel=CALL_CENTER, ts=posted["ts"], action_id="alert_snooze_1h"
    )
    refusal = await slack.wait_for(lambda: slack.ephemerals(AGENT))
    assert "needs the operator role" in shown(refusal[-1])
    assert app.storage.alerts.require(TEAM, alert.id).snoozed_until is None

    await slack.driver.block_action(
        user=SUPERVISOR, channel=CALL_CENTER, ts=posted["ts"], action_id="alert_snooze_1h"
    )
    note = await slack.wait_for(
        lambda: [m for m in slack.thread(CALL_CENTER, posted["ts"]) if "snoozed" in m["text"]]
    )
    assert "<@U0001> snoozed alert" in note[0]["text"]
    until = app.storage.alerts.require(TEAM, alert.id).snoozed_until
    assert until is not None and abs(until - (now.timestamp() + 3600)) < 60

    pbx.clear_journal()
    quiet = await sched.tick(now + timedelta(minutes=30))
    assert quiet.checked == 0 and pbx.journal(path=DIALER_PATH) == []
    assert len(alert_posts(slack)) == 1

    answer_with(pbx, campaign, dropped=11.0)
    assert (await sched.tick(now + timedelta(minutes=62))).fired == 1
    assert len(alert_posts(slack)) == 2
    assert "alert.snooze" in [e.action for e in app.storage.audit.entries(TEAM)]


async def test_snooze_until_tomorrow_ends_at_local_midnight(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, campaign: Any
) -> None:
    await ask(slack, "alert add #call-center agents_ready below 5")
    sched = AlertWatch(env_of(app))
    answer_with(pbx, campaign, dropped=0.0, ready=1)
    assert (await sched.tick(datetime.now(UTC))).fired == 1
    posted = alert_posts(slack)[0]
    assert "Agents ready is 1" in shown(posted)
    await slack.driver.block_action(
        user=SUPERVISOR, channel=CALL_CENTER, ts=posted["ts"], action_id="alert_snooze_tomorrow"
    )
    alert = app.storage.alerts.list(TEAM)[0]
    await slack.wait_for(lambda: app.storage.alerts.require(TEAM, alert.id).snoozed_until)
    until = datetime.fromtimestamp(app.storage.alerts.require(TEAM, alert.id).snoozed_until or 0)
    local = until.astimezone(HCM)
    assert (local.hour, local.minute) == (0, 0)
    assert local.date() == (datetime.now(HCM) + timedelta(days=1)).date()


async def test_alert_grammar(app: Runtime, slack: SlackStandIn, campaign: Any) -> None:
    name = campaign.campaign_name
    reply = await ask(slack, f'alert add #call-center agents_ready < 2 "{name}" 30m')
    assert "Alert `" in shown(reply), shown(reply)
    stored = app.storage.alerts.list(TEAM)[0]
    assert (stored.campaign_uuid, stored.window_minutes) == (campaign.campaign_uuid, 30)

    for text, words in (
        ("#call-center happiness > 5", "is not a metric"),
        ("#call-center dropped_rate ~ 5", "is not an operator"),
        ("#call-center dropped_rate > lots", "is not a number"),
        ("#call-center dropped_rate > 150", "percentage"),
        ("<#C0003|digests> dropped_rate > 5", "I am not in #digests"),
    ):
        reply = await ask(slack, f"alert add {text}")
        assert words in shown(reply), (text, shown(reply))
    listing = await ask(slack, "alert list")
    assert stored.id in shown(listing) and "agents ready &lt; 2" in shown(listing)
    await ask(slack, f"alert remove {stored.id}")
    assert app.storage.alerts.list(TEAM) == []
