"""Scheduled digests end to end: typed in Slack, stored, posted by the scheduler at the
right local time, once per slot, with numbers that match the service's own records.

The scheduler's clock is the ``now`` each test passes to ``run_due``; storage's clock (when
a digest was made) is a ``FakeClock``, so slots in the past (with the emulator's seeded
calls) or across next year's DST changes are plain values."""

from __future__ import annotations

import asyncio
import io
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from PIL import Image

from bot.runtime import Runtime
from bot.server import serving
from bot.settings import Settings
from callcenter import CallCenter
from commands.digests.content import change_words
from commands.digests.schedules import latest_fire, slot_key, trigger_for
from commands.kernel.text import duration, number
from emulators.pbx.testing import EmulatorServer
from emulators.slack import CALL_CENTER, DIGESTS, SUPERVISOR, TEAM, SlackStandIn
from storage import InstallationRecord
from tests.bot.digest_helpers import FakeClock, app_with_clock, digests_in, runtime_on, shown
from tests.bot.test_commands_e2e import ask

HCM = ZoneInfo("Asia/Ho_Chi_Minh")
NEW_YORK = ZoneInfo("America/New_York")


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime.now(UTC) - timedelta(days=20))


@pytest.fixture
async def app(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, clock: FakeClock
) -> AsyncIterator[Runtime]:
    async with app_with_clock(settings, slack, pbx, clock) as rt:
        yield rt


async def add_digest(slack: SlackStandIn, text: str) -> str:
    reply = await ask(slack, f"digest add {text}")
    assert "scheduled" in shown(reply), shown(reply)
    return shown(reply).split("Digest `", 1)[1].split("`", 1)[0]


# --- the command ------------------------------------------------------------------------


async def test_the_bot_must_be_in_the_channel(app: Runtime, slack: SlackStandIn) -> None:
    reply = await ask(slack, "digest add <#C0003|digests> daily 08:00")
    assert "I am not in #digests" in shown(reply) and "/invite @CallOps" in shown(reply)
    assert app.storage.digests.list(TEAM) == []

    slack.set_bot_member(DIGESTS, True)
    digest_id = await add_digest(slack, "<#C0003|digests> daily 08:00")
    digest = app.storage.digests.require(TEAM, digest_id)
    assert (digest.channel, digest.schedule, digest.timezone) == (
        DIGESTS,
        "daily 08:00",
        "Asia/Ho_Chi_Minh",
    )


async def test_schedules_are_read_and_bad_ones_explained(app: Runtime, slack: SlackStandIn) -> None:
    weekly = await add_digest(slack, "#call-center weekly friday 17:30 sections=totals,chart")
    cron = await add_digest(slack, '#call-center "0 9 * * 1-5"')
    stored = {d.id: d for d in app.storage.digests.list(TEAM)}
    assert stored[weekly].schedule == "weekly fri 17:30"
    assert stored[weekly].sections == ("totals", "chart")
    assert stored[cron].schedule == "cron 0 9 * * 1-5"

    for text, words in (
        ("#call-center daily 25:00", "not a time of day"),
        ("#call-center */5 * * * *", "more than once an hour"),
        ("#call-center sometimes", "is not a schedule"),
        ("#call-center daily 08:00 sections=weather", "sections= takes"),
    ):
        reply = await ask(slack, f"digest add {text}")
        assert words in shown(reply) and "Usage" in shown(reply), text
    assert len(app.storage.digests.list(TEAM)) == 2

    listing = await ask(slack, "digest list")
    assert weekly in shown(listing) and "Fridays at 17:30" in shown(listing)
    await ask(slack, f"digest pause {weekly}")
    assert app.storage.digests.require(TEAM, weekly).paused
    await ask(slack, f"digest resume {weekly}")
    assert not app.storage.digests.require(TEAM, weekly).paused
    await ask(slack, f"digest remove {cron}")
    assert app.storage.digests.get(TEAM, cron) is None
    actions = [e.action for e in app.storage.audit.entries(TEAM)]
    for action in ("digest.add", "digest.pause", "digest.resume", "digest.remove"):
        assert action in actions


async def test_viewers_cannot_schedule(app: Runtime, slack: SlackStandIn) -> None:
    reply = await ask(slack, "digest add #call-center daily 08:00", user="U0002")
    assert "needs the operator role" in shown(reply)


# --- slots ------------------------------------------------------------------------------


async def test_daily_digest_posts_once_at_local_time_across_dst_changes(
    app: Runtime, slack: SlackStandIn, clock: FakeClock
) -> None:
    app.storage.workspaces.set_timezone(TEAM, "America/New_York")
    clock.set(datetime(2027, 3, 1, tzinfo=UTC))
    digest_id = await add_digest(slack, "#call-center daily 08:00 sections=totals")
    sched = app.scheduler

    posted_at: list[datetime] = []
    for start in (datetime(2027, 3, 13, tzinfo=NEW_YORK), datetime(2027, 11, 6, tzinfo=NEW_YORK)):
        moment = start.astimezone(UTC)
        while moment < start.astimezone(UTC) + timedelta(days=2):
            report = await sched.run_due(moment)
            posted_at.extend([moment] * report.posted)
            moment += timedelta(minutes=10)

    slots = sorted(run.slot for run in app.storage.digests.runs(TEAM, digest_id))
    # 08:00 in New York is 13:00 UTC in winter and 12:00 UTC in summer.
    assert slots == [
        "2027-03-13T13:00:00Z",
        "2027-03-14T12:00:00Z",
        "2027-11-06T12:00:00Z",
        "2027-11-07T13:00:00Z",
    ]
    assert [m.astimezone(NEW_YORK).strftime("%H:%M") for m in posted_at] == ["08:00"] * 4
    assert len(digests_in(slack, CALL_CENTER)) == 4


async def test_a_restart_over_a_missed_slot_posts_it_once(
    app: Runtime, slack: SlackStandIn, settings: Settings, clock: FakeClock
) -> None:
    digest_id = await add_digest(slack, "#call-center daily 08:00 sections=totals")
    eight = eight_in_two_days()
    before = await app.scheduler.run_due(eight - timedelta(minutes=1))
    assert before.due == 0  # ... and then the process was down at 08:00

    restarted = runtime_on(settings, clock)
    try:
        first = await restarted.scheduler.run_due(eight + timedelta(minutes=20))
        again = await restarted.scheduler.run_due(eight + timedelta(minutes=21))
        later = await app.scheduler.run_due(eight + timedelta(hours=1))
    finally:
        await restarted.close()
        restarted.storage.close()
    assert (first.posted, again.due, later.due) == (1, 0, 0)
    assert [r.slot for r in app.storage.digests.runs(TEAM, digest_id)] == [slot_key(eight)]
    assert len(digests_in(slack, CALL_CENTER)) == 1


def eight_in_two_days() -> datetime:
    """08:00 in Vietnam the day after tomorrow: a slot no digest has reached yet."""
    return datetime.now(HCM).replace(hour=8, minute=0, second=0, microsecond=0) + timedelta(days=2)


async def dies_after_claiming(
    settings: Settings, clock: FakeClock, digest_id: str, slot: datetime, *, posted: bool
) -> None:
    """Another process claims ``slot`` (and posts it, if ``posted``), then dies before it
    records the post."""
    dead = runtime_on(settings, clock)
    try:
        assert dead.storage.digests.claim_slot(TEAM, digest_id, slot_key(slot))
        if posted:
            await dead.digests.post(dead.storage.digests.require(TEAM, digest_id), slot)
    finally:
        await dead.close()
        dead.storage.close()


async def claimed_by_the_dead(
    slack: SlackStandIn, settings: Settings, clock: FakeClock, *, posted: bool
) -> tuple[str, datetime]:
    """A daily 08:00 digest whose slot two days on a process claimed and then died, having
    posted it or not; the digest's id and that slot."""
    digest_id = await add_digest(slack, "#call-center daily 08:00 sections=totals")
    eight = eight_in_two_days()
    await dies_after_claiming(settings, clock, digest_id, eight, posted=posted)
    return digest_id, eight


async def test_a_slot_posted_by_a_process_that_died_is_not_posted_again(
    app: Runtime, slack: SlackStandIn, settings: Settings, clock: FakeClock
) -> None:
    digest_id, eight = await claimed_by_the_dead(slack, settings, clock, posted=True)
    assert len(digests_in(slack, CALL_CENTER)) == 1
    clock.now += 60  # the claim may still be a live process's: left alone
    assert (await app.scheduler.run_due(eight + timedelta(minutes=1))).recovered == 0
    clock.now += 200
    report = await app.scheduler.run_due(eight + timedelta(minutes=5))
    assert (report.recovered, report.due, report.posted) == (1, 0, 0)
    assert len(digests_in(slack, CALL_CENTER)) == 1
    [run] = app.storage.digests.runs(TEAM, digest_id)
    assert run.outcome == "posted" and run.detail is not None and run.detail.endswith("(found)")
    [message] = digests_in(slack, CALL_CENTER)
    assert message["metadata"]["event_payload"] == {"digest_id": digest_id, "slot": run.slot}


async def test_a_slot_claimed_by_a_process_that_died_before_posting_is_posted_once(
    app: Runtime, slack: SlackStandIn, settings: Settings, clock: FakeClock
) -> None:
    digest_id, eight = await claimed_by_the_dead(slack, settings, clock, posted=False)
    clock.now += 200
    first = await app.scheduler.run_due(eight + timedelta(minutes=5))
    again = await app.scheduler.run_due(eight + timedelta(minutes=6))
    assert (first.recovered, again.recovered, again.due) == (1, 0, 0)
    assert len(digests_in(slack, CALL_CENTER)) == 1
    [run] = app.storage.digests.runs(TEAM, digest_id)
    assert run.outcome == "posted"


async def test_hourly_digest_down_for_hours_posts_only_the_latest_slot(
    app: Runtime, slack: SlackStandIn
) -> None:
    digest_id = await add_digest(slack, "#call-center hourly sections=totals")
    noon = datetime.now(HCM).replace(hour=12, minute=0, second=0, microsecond=0) + timedelta(days=2)
    sched = app.scheduler
    await sched.run_due(noon + timedelta(seconds=5))
    report = await sched.run_due(noon + timedelta(hours=5, minutes=7))
    assert report.posted == 1
    slots = sorted(r.slot for r in app.storage.digests.runs(TEAM, digest_id))
    assert slots == [slot_key(noon), slot_key(noon + timedelta(hours=5))]


async def test_two_schedulers_on_one_database_do_not_double_post(
    app: Runtime, slack: SlackStandIn, settings: Settings, clock: FakeClock
) -> None:
    await add_digest(slack, "#call-center daily 08:00 sections=totals")
    await add_digest(slack, "#call-center daily 08:00 sections=totals,chart")
    other = runtime_on(settings, clock)
    eight = eight_in_two_days()
    try:
        one, two = await asyncio.gather(
            app.scheduler.run_due(eight + timedelta(seconds=3)),
            other.scheduler.run_due(eight + timedelta(seconds=3)),
        )
    finally:
        await other.close()
        other.storage.close()
    assert one.posted + two.posted == 2
    # Every slot a scheduler found due and did not post, it found taken by the other.
    # (Whether the second looks before the first has finished is the event loop's
    # business: with a native chart a digest is posted in fewer steps.)
    assert one.taken + two.taken == one.due + two.due - 2
    assert one.failed + two.failed == 0
    assert len(digests_in(slack, CALL_CENTER)) == 2


async def test_a_paused_digest_skips_its_slot_and_resuming_does_not_replay_it(
    app: Runtime, slack: SlackStandIn, clock: FakeClock
) -> None:
    digest_id = await add_digest(slack, "#call-center daily 08:00 sections=totals")
    eight = eight_in_two_days()
    await ask(slack, f"digest pause {digest_id}")
    sched = app.scheduler
    assert (await sched.run_due(eight + timedelta(minutes=1))).due == 0
    clock.set(eight + timedelta(minutes=30))
    await ask(slack, f"digest resume {digest_id}")
    assert (await sched.run_due(eight + timedelta(minutes=31))).due == 0
    assert (await sched.run_due(eight + timedelta(days=1, seconds=1))).posted == 1


# --- content ----------------------------------------------------------------------------


async def _expected(cc: CallCenter, start: datetime, end: datetime) -> dict[str, int]:
    """Counted from the call records themselves, not from the statistics endpoint."""
    records = [
        c
        async for c in cc.cdrs.iterate(
            start_date=start.astimezone(UTC).replace(tzinfo=None),
            end_date=(end - timedelta(seconds=1)).astimezone(UTC).replace(tzinfo=None),
        )
    ]
    return {
        "calls": len(records),
        "answered": sum(c.status == "answered" for c in records),
        "busy": sum(c.status == "busy" for c in records),
        "line_busy": sum(c.status == "busy-line" for c in records),
        "no_answer": sum(c.status == "no-answered" for c in records),
        "invalid": sum(c.status == "invalid" for c in records),
        "inbound": sum(c.direction == "inbound" for c in records),
        "outbound": sum(c.direction == "outbound" for c in records),
        "talk": sum(c.billsec for c in records),
    }


async def test_digest_numbers_are_the_call_records_of_the_period(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    await add_digest(slack, "#call-center daily 08:00")
    trigger = trigger_for("daily 08:00", HCM)
    slot = latest_fire(trigger, datetime.now(HCM) - timedelta(days=1))
    assert slot is not None
    report = await app.scheduler.run_due(slot + timedelta(seconds=30))
    assert report.posted == 1, report.outcomes

    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        now = await _expected(cc, slot - timedelta(days=1), slot)
        before = await _expected(cc, slot - timedelta(days=2), slot - timedelta(days=1))
        stats = await cc.reports.stats(
            (slot - timedelta(days=1)).astimezone(UTC),
            (slot - timedelta(seconds=1)).astimezone(UTC),
            interval="hour",
        )
    assert now["calls"] > 0, "the emulator's seed has calls every day"
    assert sum(r.total for r in stats.data) == now["calls"]

    digest = digests_in(slack, CALL_CENTER)[0]
    text = shown(digest)
    assert f"{number(now['calls'])} calls" in digest["text"]
    assert f"{number(now['answered'])} answered" in digest["text"]
    assert f"*{number(now['calls'])} calls* _{change_words(now['calls'], before['calls'])}_" in (
        text
    )
    for label, key in (
        ("Busy", "busy"),
        ("Line busy", "line_busy"),
        ("No answer", "no_answer"),
        ("Invalid", "invalid"),
        ("Inbound", "inbound"),
        ("Outbound", "outbound"),
    ):
        assert f"*{label}*\\n{number(now[key])} _{change_words(now[key], before[key])}_" in text
    assert f"*Talk time*\\n{duration(now['talk'])} " in text
    assert "Top agents" in text
    assert "campaign_open_0" in text or "no activity" in text
    assert "digest_full_report" in text


async def test_the_chart_is_a_png_uploaded_in_three_steps(
    app: Runtime, slack: SlackStandIn
) -> None:
    """With ``settings charts image`` (native charts: ``test_native_charts_e2e.py``)."""
    assert "sent as images" in shown(await ask(slack, "settings charts image"))
    await add_digest(slack, "#call-center daily 08:00 sections=totals,chart")
    slot = latest_fire(trigger_for("daily 08:00", HCM), datetime.now(HCM) - timedelta(days=1))
    assert slot is not None
    await app.scheduler.run_due(slot + timedelta(seconds=30))

    steps = [
        e.method
        for e in slack.journal()
        if e.method in ("files.getUploadURLExternal", "files.completeUploadExternal")
        or e.kind == "upload"
    ]
    assert steps[0] == "files.getUploadURLExternal" and steps[-1] == "files.completeUploadExternal"
    assert len(steps) == 3
    shared = [m for m in slack.messages(CALL_CENTER) if m.get("upload")]
    assert len(shared) == 1
    file_id = shared[0]["files"][0]["id"]
    info, content = slack.file(file_id)
    assert content is not None and content.startswith(b"\x89PNG\r\n\x1a\n")
    image = Image.open(io.BytesIO(content))
    image.verify()
    assert image.size == (960, 420)
    assert "Calls per hour" in str(info.get("title"))
    posts = slack.messages(CALL_CENTER)
    assert posts.index(shared[0]) == posts.index(digests_in(slack, CALL_CENTER)[0]) + 1


async def test_run_now_full_report_and_preview(app: Runtime, slack: SlackStandIn) -> None:
    digest_id = await add_digest(slack, "#call-center daily 08:00 sections=totals,agents")
    reply = await ask(slack, f"digest run {digest_id}")
    assert "posted in <#C0001>" in shown(reply)
    digest = digests_in(slack, CALL_CENTER)[0]

    for _ in range(2):  # clicked twice: one report in the thread
        await slack.driver.block_action(
            user=SUPERVISOR, channel=CALL_CENTER, ts=digest["ts"], action_id="digest_full_report"
        )
    thread = await slack.wait_for(
        lambda: [
            m for m in slack.thread(CALL_CENTER, digest["ts"])[1:] if "Full report" in m["text"]
        ]
    )
    await slack.wait_for(
        lambda: any("already in this digest" in shown(m) for m in slack.ephemerals(SUPERVISOR))
    )
    assert len(thread) == 1 and "Call statistics" in shown(thread[0])

    preview = await ask(slack, "digest preview", user="U0002")
    assert "only you can see it" in shown(preview) and "Daily digest" in shown(preview)
    # One thing said about the chart: Slack draws it in the preview itself (as an image
    # it would follow the posted digest), never "below" a preview.
    assert '"type": "data_visualization"' in shown(preview)
    assert "when posted, the digest is followed by its chart" not in shown(preview)
    assert "chart below" not in shown(preview)
    assert [e.action for e in app.storage.audit.entries(TEAM)][-1] == "digest.run"


async def test_a_broken_workspace_is_told_once_and_holds_up_nobody(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    other = slack.add_team("Other Center", id="T0002")
    slack.add_channel("T0002", "reports", id="C0200", bot_member=True)
    app.storage.installations.save(
        InstallationRecord(
            user_id="U9",
            team_id="T0002",
            bot_token=other.bot_tokens[0],
            bot_user_id=other.bot_user_id,
            bot_id=other.bot_id,
            installed_at=1.0,
        )
    )
    app.storage.workspaces.connect("T0002", pbx.base_url, "revoked-api-key")
    app.storage.workspaces.set_timezone("T0002", "Asia/Ho_Chi_Minh")
    app.storage.digests.add(
        "T0002",
        channel="C0200",
        schedule="hourly",
        timezone="Asia/Ho_Chi_Minh",
        created_by="U9",
        sections=["totals"],
    )
    await add_digest(slack, "#call-center hourly sections=totals")
    sched = app.scheduler
    noon = datetime.now(HCM).replace(minute=0, second=0, microsecond=0) + timedelta(days=2)

    for hour in range(3):
        report = await sched.run_due(noon + timedelta(hours=hour, seconds=10))
        assert report.posted == 1 and report.failed == 1, report.outcomes
    assert len(digests_in(slack, CALL_CENTER)) == 3
    notices = slack.messages("C0200", team="T0002")
    assert len(notices) == 1
    assert "refused this workspace's API key" in shown(notices[0])

    app.storage.workspaces.connect("T0002", pbx.base_url, pbx.api_key)
    report = await sched.run_due(noon + timedelta(hours=3, seconds=10))
    assert report.posted == 2
    assert app.storage.notices.list("T0002") == []
    assert len(digests_in(slack, "C0200", team="T0002")) == 1


async def test_serving_runs_the_scheduler_unless_told_not_to(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, clock: FakeClock
) -> None:
    rt = runtime_on(settings, clock)
    async with serving(rt, port=0) as _:
        assert rt.scheduler.running
    assert not rt.scheduler.running
    async with serving(rt, port=0, scheduler=False):
        assert not rt.scheduler.running
    rt.storage.close()
