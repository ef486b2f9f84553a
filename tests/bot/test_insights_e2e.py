"""``/callops insights`` end to end, over call records seeded in the emulator for chosen
days (Mondays of May and June 2026, Vietnam time): every figure in the reply is counted
by hand below, whatever the time of day the test runs at."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.runtime import Runtime
from bot.settings import Settings
from callcenter import CallCenter
from callcenter.models import ActiveCallList, Campaign
from commands.kernel.i18n import use_language
from commands.reports.insights import gather_insights, usual_levels
from commands.reports.wallboard import Snapshot, Unavailable, wallboard_view
from commands.rules.guard import DECREE_HOURS
from emulators.pbx.fakedata import cdr_row
from emulators.pbx.schema import CDR_INSERT
from emulators.pbx.testing import EmulatorServer
from emulators.slack import CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from storage import Role
from tests.bot.digest_helpers import FakeClock, app_with_clock, digests_in
from tests.bot.test_commands_e2e import ask, campaigns_of, shown
from tests.bot.test_home_e2e import home_after
from tests.contexts import command_context

VN = ZoneInfo("Asia/Ho_Chi_Minh")
DAY = date(2026, 6, 1)
"""A Monday long before the emulator's seeded month: only these records are in it."""
WEEKS_BEFORE = [DAY - timedelta(weeks=w) for w in (4, 3, 2, 1)]
VIETTEL, VINAPHONE = "0961234567", "0912345678"


def record(
    day: date, hour: int, n: int, campaign: str, *, answered: bool, **kw: Any
) -> tuple[Any, ...]:
    """One call at ``hour``:``n`` Vietnam time on ``day``."""
    start = datetime(day.year, day.month, day.day, hour, n % 60, tzinfo=VN).timestamp()
    talk = int(kw.pop("billsec", 60)) if answered else 0
    wait = int(kw.pop("wait", 10))
    fields = {
        "id": f"ins-{campaign[:8]}-{day}-{hour}-{n}",
        "direction": kw.pop("direction", "outbound"),
        "status": "answered" if answered else "no-answered",
        "billsec": talk,
        "duration": talk + wait,
        "campaign_uuid": campaign,
        "time_started": datetime.fromtimestamp(start, VN)
        .astimezone(ZoneInfo("UTC"))
        .strftime("%Y-%m-%d %H:%M:%S"),
        **kw,
    }
    return (int(start), int(start) + talk + wait, fields)


def seed(pbx: EmulatorServer, rows: list[tuple[Any, ...]]) -> None:
    emu = pbx.emulator
    domain = emu.domain_by_name("demo")
    assert domain is not None
    with emu.store.tx() as conn:
        conn.executemany(
            CDR_INSERT, [cdr_row(domain.domain_uuid, s, e, fields) for s, e, fields in rows]
        )


def outbound_month(campaign: str) -> list[tuple[Any, ...]]:
    """Four usual Mondays: at 09:00 20 calls, half to Viettel, answered 10, 10, 12, 10
    (5, 5, 6, 5 on each network); at 10:00 20 calls, 14 answered; at 07:00, before the
    calling hours, 20 calls, 18 answered.  Then the day: at
    09:00 20 calls, 6 answered: Viettel 1 of 10, Vinaphone 5 of 10; extension 1001 takes
    five answered calls of 60 s, 1002 one of 240 s."""
    rows = []
    for day, answered in zip(WEEKS_BEFORE, (10, 10, 12, 10), strict=True):
        for n in range(20):
            viettel = n % 2 == 0
            per_network = answered // 2
            rows.append(
                record(day, 9, n, campaign, answered=n // 2 < per_network,
                       to_number=VIETTEL if viettel else VINAPHONE, extension="1001")
            )  # fmt: skip
            rows.append(record(day, 10, n, campaign, answered=n < 14, to_number=VIETTEL))
            rows.append(record(day, 7, n, campaign, answered=n < 18, to_number=VIETTEL))
    for n in range(10):  # Viettel: the first one answered, by 1002 in 240 s
        rows.append(
            record(DAY, 9, n, campaign, answered=n == 0, to_number=VIETTEL,
                   extension="1002" if n == 0 else "1001", billsec=240)
        )  # fmt: skip
    for n in range(10, 20):  # Vinaphone: five answered, by 1001 in 60 s
        rows.append(
            record(DAY, 9, n, campaign, answered=n < 15, to_number=VINAPHONE, extension="1001")
        )
    return rows


async def seeded_campaign(
    pbx: EmulatorServer, month: Callable[[str], list[tuple[Any, ...]]] = outbound_month
) -> Campaign:
    """An outbound campaign of the seed, with ``month``'s call records in the emulator."""
    campaign: Campaign = next(c for c in await campaigns_of(pbx) if c.type != "inbound")
    seed(pbx, month(campaign.campaign_uuid))
    return campaign


async def test_insights_of_a_chosen_day_in_both_languages(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    campaign = await seeded_campaign(pbx)
    app.storage.calling_rules.set_hours(TEAM, DECREE_HOURS)
    reply = shown(await ask(slack, f"insights {campaign.campaign_uuid} 2026-06-01"))
    assert campaign.campaign_name in reply and "01/06/2026" in reply
    assert "20 calls that day" in reply and "usual levels from 240 call records" in reply
    # 09:00: 6 of 20 answered, 30%; usual 50, 50, 60, 50: median 50, MAD 0, so the
    # least half width, 45-55%; 30% is (45 - 30) / 10 = 1.5 band widths below.
    assert "Mon 09:00" in reply
    assert "*30.0%* · usual 50.0% (45.0%–55.0%) · :arrow_down: 1.5 band widths below" in reply
    # Calls: 20 each week, band 16-24 (20 % of the usual), and 20 now.
    assert "this hour *20* · usual 20 (16–24) · within it" in reply
    # Best hours on Mondays within 08:00-17:00: 10:00 (70%) then 09:00 (50%); 07:00's
    # 90% is outside the calling hours.
    assert "Mon: 10:00 70%, 09:00 50%" in reply and "08:00–17:00" in reply
    assert "07:00" not in reply
    # Viettel answered 1 of 10 against 45-55% (5, 5, 6, 5 of 10): 3.5 widths below;
    # Vinaphone's 50% is usual.
    assert "*Viettel*: 10.0% of 10 calls · usual 50.0% (45.0%–55.0%)" in reply
    assert ":arrow_down: 3.5 band widths below" in reply and "*Vinaphone*" not in reply
    # Team AHT (5 × 60 + 240) / 6 = 90 s; 1001 alone answered five.
    assert "team AHT 1m 30s, answer rate 30.0%" in reply
    assert "`1001`: AHT 1m 00s · answer rate 26.3% · 5 answered" in reply
    assert "`1002`" not in reply
    assert "wrap-up" in reply

    await ask(slack, "ngon-ngu vi")
    vietnamese = shown(await ask(slack, f"phan-tich {campaign.campaign_uuid} 2026-06-01"))
    assert "Giờ gọi tốt nhất" in vietnamese and "T2 09:00" in vietnamese
    assert "30,0%" in vietnamese and "Best hours" not in vietnamese


def inbound_month(campaign: str) -> list[tuple[Any, ...]]:
    """Four usual Mondays at 10:00: 60 inbound calls, all answered by 1003 after 10 s, in
    180 s; at 11:00, 30 calls.  The day itself: no calls."""
    rows = []
    for day in WEEKS_BEFORE:
        for n in range(60):
            rows.append(
                record(day, 10, n, campaign, answered=True, direction="inbound",
                       from_number=VIETTEL, extension="1003", billsec=180)
            )  # fmt: skip
        for n in range(30):
            rows.append(
                record(day, 11, n, campaign, answered=True, direction="inbound",
                       from_number=VINAPHONE, extension="1003", billsec=180)
            )  # fmt: skip
    return rows


async def test_insights_of_an_inbound_queue_staff_its_busiest_hour(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    campaign = next(c for c in await campaigns_of(pbx) if c.type == "inbound")
    seed(pbx, inbound_month(campaign.campaign_uuid))
    reply = shown(await ask(slack, f"insights {campaign.campaign_uuid} 2026-06-01"))
    # 60 calls an hour of 180 s: 3 erlangs; Erlang C gives 80% within 20 s with 5.
    assert "the usual busiest hour (Mon 10:00): usual 60 calls, AHT 3m 00s" in reply
    assert "*5 agents* needed for 80% answered within 20 s" in reply
    assert "No calls that day yet." in reply and "Best hours" not in reply


@pytest.fixture
async def clocked(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> AsyncIterator[Runtime]:
    """The app with storage's clock in May 2026: a digest made then is due in June."""
    clock = FakeClock(datetime(2026, 5, 1, tzinfo=VN))
    async with app_with_clock(settings, slack, pbx, clock) as rt:
        yield rt


async def test_a_digest_with_the_insights_section(
    clocked: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    campaign = await seeded_campaign(pbx)
    clocked.storage.calling_rules.set_hours(TEAM, DECREE_HOURS)
    made = shown(
        await ask(
            slack,
            f"digest add #call-center daily 08:00 {campaign.campaign_uuid} "
            "sections=totals,insights",
        )
    )
    assert "Sections: totals, insights." in made
    report = await clocked.scheduler.run_due(datetime(2026, 6, 2, 8, 0, tzinfo=VN))
    assert report.posted == 1
    digest = shown(digests_in(slack, CALL_CENTER)[-1])
    # The same figures as the insights reply of that Monday (counted above).
    assert f"*Insights* · {campaign.campaign_name}, Mon 01/06/2026" in digest
    assert "Outside the usual at 09:00: Answer rate 30.0% (usual 50.0% (45.0%–55.0%))" in digest
    assert "Best hours to call: Mon 10:00 70%, 09:00 50%" in digest
    assert "Below their usual answer rate: Viettel 10.0% (usual 50.0%)" in digest
    # The day's KPIs beside it: ASR 30%, ACD and AHT 90 s.
    assert "*ASR*\\n30.0%" in digest and "*AHT*\\n1m 30s" in digest
    assert "Top agents" not in digest  # only the sections asked for


async def test_the_home_tab_has_the_insights_tile(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    days = {datetime.now(VN).strftime("%d/%m/%Y")}
    await slack.driver.app_home_opened(SUPERVISOR)
    home = await home_after(slack, SUPERVISOR, 1)
    days.add(datetime.now(VN).strftime("%d/%m/%Y"))  # the test may straddle midnight
    assert any(
        "*Insights* · the whole call center, " in shown(home) and day in shown(home) for day in days
    )
    assert "`/callops insights` shows the whole analysis" in shown(home)
    # The Home tab never walks four weeks itself; once insights learned them, it uses them.
    assert "The usual levels are not learned yet today" in shown(home)
    await ask(slack, "insights")
    await slack.driver.block_action(user=SUPERVISOR, action_id="home_refresh", view_id=home["id"])
    refreshed = await home_after(slack, SUPERVISOR, 2)
    assert "*Insights* · the whole call center, " in shown(refreshed)
    assert "not learned yet" not in shown(refreshed)


async def test_the_home_tile_of_a_chosen_day_in_both_languages(
    app: Runtime, pbx: EmulatorServer
) -> None:
    campaign = await seeded_campaign(pbx)
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        found = await gather_insights(cc, DAY, campaign=campaign)
    ctx = command_context(
        app.storage, team_id=TEAM, user_id=SUPERVISOR, channel_id=None, role=Role.VIEWER, tz=VN
    )
    snap = Snapshot([], [], ActiveCallList(), [], Unavailable("–"), datetime.now(VN), found)
    english = json.dumps(wallboard_view(snap, ctx).to_dict(), ensure_ascii=False)
    assert f"*Insights* · {campaign.campaign_name}, Mon 01/06/2026" in english
    assert "Best hours to call: Mon 10:00 70%, 09:00 50%" in english
    with use_language("vi"):
        vietnamese = json.dumps(wallboard_view(snap, ctx).to_dict(), ensure_ascii=False)
    assert "*Phân tích* · " in vietnamese and "Giờ gọi tốt nhất: T2 10:00 70%" in vietnamese
    assert "Viettel 10,0% (thường lệ 50,0%)" in vietnamese


async def test_today_staffs_the_next_hour_against_the_agents_free_now(
    pbx: EmulatorServer,
) -> None:
    campaign = next(c for c in await campaigns_of(pbx) if c.type == "inbound")
    rows = inbound_month(campaign.campaign_uuid)
    rows += [
        record(DAY, 9, n, campaign.campaign_uuid, answered=True, direction="inbound",
               from_number=VIETTEL, extension="1003", billsec=180)
        for n in range(30)
    ]  # fmt: skip
    seed(pbx, rows)
    users = pbx.state("users")
    busy = {p for call in pbx.live_calls("demo") for p in (call["source"], call["destination"])}
    free = [
        u
        for u in users
        if u["extension"] and u["user_status"] == "Available" and u["extension"] not in busy
        and u.get("user_enabled") != "false"
    ]  # fmt: skip
    # "Now" is 09:30 on that Monday: the hour is in progress and the next is 10:00.
    now = datetime(2026, 6, 1, 9, 30, tzinfo=VN)
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        found = await gather_insights(cc, DAY, campaign=campaign, now=now)
    assert found.today and found.in_progress and found.hour == 9
    calls = next(line for line in found.lines if line.key == "calls")
    assert (calls.hour_value, calls.hour_band, calls.day_value) == (None, None, 30)
    assert found.staffing is not None
    assert (found.staffing.hour, found.staffing.calls, found.staffing.aht) == (10, 60, 180)
    assert found.staffing.next_hour and found.staffing.needed == 5
    assert free and found.staffing.ready == len(free)


def charted_month(campaign: str) -> list[tuple[Any, ...]]:
    """Four usual Mondays at 09:00 and 10:00: 20 calls, 10 answered (band 45-55%).  The
    day: at 09:00 10 of 20 answered, at 10:00 2 of 20."""
    rows = []
    for day in WEEKS_BEFORE:
        for hour in (9, 10):
            rows += [record(day, hour, n, campaign, answered=n < 10) for n in range(20)]
    rows += [record(DAY, 9, n, campaign, answered=n < 10) for n in range(20)]
    rows += [record(DAY, 10, n, campaign, answered=n < 2) for n in range(20)]
    return rows


def charts_in(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for b in message.get("blocks", []) if b.get("type") == "data_visualization"]


async def test_insights_draws_the_day_inside_its_usual_band_natively(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    campaign = await seeded_campaign(pbx, charted_month)
    reply = await ask(slack, f"insights {campaign.campaign_uuid} 2026-06-01")
    (chart,) = charts_in(reply)
    assert chart["title"] == "Answer rate by hour against the usual"
    assert chart["chart"]["axis_config"]["categories"] == ["09:00", "10:00"]
    series = {s["name"]: [p["value"] for p in s["data"]] for s in chart["chart"]["series"]}
    assert series == {
        "that day": [50.0, 10.0],
        "usual low": [45.0, 45.0],
        "usual high": [55.0, 55.0],
    }

    # A workspace that reads charts as images gets the figures in words only: an
    # ephemeral reply cannot carry a file.
    app.storage.workspaces.set_chart_mode(TEAM, "image")
    words = await ask(slack, f"insights {campaign.campaign_uuid} 2026-06-01")
    assert charts_in(words) == [] and "*10.0%*" in shown(words)


async def test_askers_at_once_share_one_walk_of_the_four_weeks(pbx: EmulatorServer) -> None:
    campaign = await seeded_campaign(pbx)
    pbx.clear_journal()
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        (first, n), (second, m) = await asyncio.gather(
            usual_levels(cc, DAY, campaign.campaign_uuid),
            usual_levels(cc, DAY, campaign.campaign_uuid),
        )
        again, _ = await usual_levels(cc, DAY, campaign.campaign_uuid)
    assert first is second is again and n == m == 240
    limits = [e["query"].get("limit") for e in pbx.journal(method="GET", path="/v3/cdr")]
    # Three counts (one record asked for), and one walk of the 240 records.
    assert sorted(str(v) for v in limits).count("1") == 3 and len(limits) == 4, limits


async def test_help_explains_insights_in_both_languages(app: Runtime, slack: SlackStandIn) -> None:
    english = shown(await ask(slack, "help insights"))
    assert "insights [campaign] [today|yesterday|YYYY-MM-DD]" in english
    assert "best hours to call" in english
    await ask(slack, "ngon-ngu vi")
    vietnamese = shown(await ask(slack, "tro-giup phan-tich"))
    assert "phan-tich [chiến dịch] [hom-nay|hom-qua|YYYY-MM-DD]" in vietnamese
    assert "giờ gọi tốt nhất" in vietnamese and "best hours" not in vietnamese
