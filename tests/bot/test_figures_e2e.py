"""One truth: the same figure is the same number on every surface, and says what it covers.

A supervisor reads "answered today" on the wallboard, in ``/callops stats``, in a digest
posted "up to now" and in its full report; all four must be the count of the emulator's
own call records for the same stretch of time, and each names its scope and period the
same way.  A digest scoped to one campaign is that campaign's calls.  The wallboard never
shows more agents in call than calls on the line.

The emulator's clock is frozen, so no call starts or ends while the surfaces are read,
and the workspace's zone is one where it is about noon now, so "today" is hours long
whenever the tests run (a zone where it is 00:03 would make every figure nearly empty).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.runtime import Runtime
from bot.settings import Settings
from callcenter import CallCenter
from commands.kernel.text import escape
from emulators.pbx.testing import EmulatorServer
from emulators.slack import CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from tests.bot.digest_helpers import FakeClock, app_with_clock, bot_posts, shown
from tests.bot.test_commands_e2e import ask
from tests.bot.test_home_e2e import home_after

FIGURES = ("Calls", "Answered", "Busy", "Line busy", "No answer")
_FIELD = re.compile(r"^\*(?::[a-z_]+: )?([A-Za-z ]+)\*\n([\d,]+)")
_CALLS = re.compile(r"\*([\d,]+) calls\*")
_ANSWERED = re.compile(r"\*([\d,]+) answered \(")


def noon_zone() -> ZoneInfo:
    """A fixed-offset zone where the local time is about 12:00 now."""
    offset = 12 - datetime.now(UTC).hour  # -11 .. +12
    if offset == 0:
        return ZoneInfo("Etc/GMT")
    return ZoneInfo(f"Etc/GMT{'-' if offset > 0 else '+'}{abs(offset)}")  # POSIX signs


def _texts(blocks: list[dict[str, Any]]) -> list[str]:
    texts: list[str] = []
    for block in blocks:
        texts += [block["text"]["text"]] if isinstance(block.get("text"), dict) else []
        texts += [f["text"] for f in block.get("fields") or []]
    return texts


def fields_in(blocks: list[dict[str, Any]]) -> dict[str, int]:
    """Every ``*Label*\\n<number> …`` field of a message or view (emoji dropped)."""
    found: dict[str, int] = {}
    for text in _texts(blocks):
        field = _FIELD.match(text)
        if field:
            found[field.group(1)] = int(field.group(2).replace(",", ""))
    return found


def figures_in(blocks: list[dict[str, Any]]) -> dict[str, int]:
    """The call figures a message or view shows: its fields (``*Busy*\\n5 …``) and its
    headline (``*110 calls* · … *64 answered (58.2%)*``)."""
    found = {k: v for k, v in fields_in(blocks).items() if k in FIGURES}
    for text in _texts(blocks):
        for name, pattern in (("Calls", _CALLS), ("Answered", _ANSWERED)):
            match = pattern.search(text)
            if match and name not in found:
                found[name] = int(match.group(1).replace(",", ""))
    return found


async def records_figures(
    cc: CallCenter, start: datetime, end: datetime, campaign_uuid: str | None = None
) -> dict[str, int]:
    """Counted from the emulator's own call records (``/v3/cdr``), started in [start, end]."""
    records = [
        r
        async for r in cc.cdrs.iterate(
            start_date=start.astimezone(UTC).replace(tzinfo=None),
            end_date=end.astimezone(UTC).replace(tzinfo=None),
            campaign_uuid=campaign_uuid,
        )
    ]
    return {
        "Calls": len(records),
        "Answered": sum(r.status == "answered" for r in records),
        "Busy": sum(r.status == "busy" for r in records),
        "Line busy": sum(r.status == "busy-line" for r in records),
        "No answer": sum(r.status == "no-answered" for r in records),
    }


@pytest.fixture
def zone() -> ZoneInfo:
    return noon_zone()


@pytest.fixture
async def app(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, zone: ZoneInfo
) -> AsyncIterator[Runtime]:
    async with app_with_clock(settings, slack, pbx, FakeClock(datetime.now(UTC))) as rt:
        rt.storage.workspaces.set_timezone(TEAM, zone.key)
        yield rt


def seed_today(pbx: EmulatorServer, campaign_uuid: str) -> datetime:
    """More of today's calls, some of each outcome the figures tell apart, then time stops.
    Returns the emulator's (frozen) now."""
    pbx.generate_cdrs(400, days=1)
    pbx.set_call_mode("immediate")  # each call placed here ends at once, with its record
    # The campaign's own ten are enough for its figures at any hour: the generated day is
    # quiet at night, so the hours since midnight may hold few of its calls.
    for outcome in ("busy", "busy-line", "busy-line", "no-answered", "answered"):
        pbx.originate(outcome=outcome)
        for _ in range(2):
            pbx.originate(direction="outbound", campaign_uuid=campaign_uuid, outcome=outcome)
    # Back to timed calls before time stops: in immediate mode every request would let the
    # running campaigns dial (and finish) more calls at the frozen moment.
    pbx.set_call_mode("timed")
    return datetime.fromtimestamp(pbx.freeze_clock(), UTC)


async def dialer_campaign(pbx: EmulatorServer) -> tuple[str, str]:
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        found = [
            c
            async for c in cc.campaigns.iterate(type="autodialer")
            if c.status == "start" and '"' not in c.campaign_name
        ]
    return found[0].campaign_uuid, found[0].campaign_name


async def run_up_to_now(slack: SlackStandIn, digest_id: str) -> dict[str, Any]:
    """``digest run``, then its Up to now button: the digest posted for today so far."""
    reply = await ask(slack, f"digest run {digest_id}")
    assert "the last complete period of this digest (every day at 00:00)" in shown(reply)
    posted = len(bot_posts(slack, CALL_CENTER))
    for _ in range(2):  # clicked twice: posted once
        await slack.driver.block_action(
            user=SUPERVISOR, action_id="digest_up_to_now", ephemeral_ts=reply["ts"]
        )
    told = await slack.wait_for(
        lambda: [m for m in slack.ephemerals(SUPERVISOR) if "up to now." in shown(m)]
    )
    assert ":mailbox:" in shown(told[0])
    await slack.wait_for(
        lambda: any("posted already" in shown(m) for m in slack.ephemerals(SUPERVISOR))
    )
    ups = [m for m in bot_posts(slack, CALL_CENTER)[posted:] if "up to now" in shown(m)]
    assert len(ups) == 1, [shown(m)[:200] for m in ups]
    return ups[0]


async def full_report_of(slack: SlackStandIn, digest: dict[str, Any]) -> dict[str, Any]:
    await slack.driver.block_action(
        user=SUPERVISOR, channel=CALL_CENTER, ts=digest["ts"], action_id="digest_full_report"
    )
    thread: list[dict[str, Any]] = await slack.wait_for(
        lambda: [
            m for m in slack.thread(CALL_CENTER, digest["ts"])[1:] if "Full report" in m["text"]
        ]
    )
    return thread[0]


async def seeded_today(pbx: EmulatorServer, zone: ZoneInfo) -> tuple[str, str, datetime, datetime]:
    """A dialer campaign with today's calls seeded: its id and name, and the day so far
    (local midnight to the frozen moment)."""
    campaign_uuid, name = await dialer_campaign(pbx)
    frozen = seed_today(pbx, campaign_uuid)
    midnight = frozen.astimezone(zone).replace(hour=0, minute=0, second=0, microsecond=0)
    return campaign_uuid, name, midnight, frozen


async def test_the_same_figure_is_equal_on_every_surface(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, zone: ZoneInfo
) -> None:
    _, _, midnight, frozen = await seeded_today(pbx, zone)
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        expected = await records_figures(cc, midnight, frozen)
    assert expected["Calls"] > 20 and expected["Busy"] and expected["Line busy"]
    today = "Whole call center · today 00:00–"

    await slack.driver.app_home_opened(SUPERVISOR)
    home = await home_after(slack, SUPERVISOR, 1)
    assert figures_in(home["blocks"]) == expected
    assert today in shown(home)

    stats = await ask(slack, "stats today")
    assert figures_in(stats["blocks"]) == expected
    assert today in shown(stats)

    added = await ask(slack, "digest add #call-center daily 00:00")
    digest_id = shown(added).split("Digest `", 1)[1].split("`", 1)[0]
    digest = await run_up_to_now(slack, digest_id)
    assert figures_in(digest["blocks"]) == expected
    assert f"Whole call center · {midnight:%a %d %b} 00:00–" in shown(digest)
    assert "up to now, asked for by" in shown(digest)

    report = await full_report_of(slack, digest)
    assert figures_in(report["blocks"]) == expected
    assert f"Whole call center · {midnight:%a %d %b} 00:00–" in shown(report)


async def test_a_digest_scoped_to_a_campaign_is_that_campaigns_calls(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, zone: ZoneInfo
) -> None:
    campaign_uuid, name, midnight, frozen = await seeded_today(pbx, zone)
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        expected = await records_figures(cc, midnight, frozen, campaign_uuid)
        everyone = await records_figures(cc, midnight, frozen)
    assert expected["Calls"] >= 10 and expected["Calls"] < everyone["Calls"]

    added = await ask(slack, f'digest add #call-center daily 00:00 "{name}" sections=totals,chart')
    digest_id = shown(added).split("Digest `", 1)[1].split("`", 1)[0]
    digest = await run_up_to_now(slack, digest_id)
    assert figures_in(digest["blocks"]) == expected
    assert f"*{escape(name)}* · {midnight:%a %d %b} 00:00–" in shown(digest)
    assert "from the call records" in shown(digest)
    assert "Whole call center" not in shown(digest)

    # Its chart is that campaign's, and says so (drawn by Slack, its whole title in the
    # summary beside it: the block's own title is cut to 50 characters).
    blocks = digest["blocks"]
    [chart] = [i for i, b in enumerate(blocks) if b["type"] == "data_visualization"]
    assert blocks[chart - 1]["elements"][0]["text"].startswith(f"*Calls per hour, {escape(name)}")

    report = await full_report_of(slack, digest)
    assert figures_in(report["blocks"]) == expected


async def test_agents_in_call_are_people_and_never_outnumber_the_calls(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    campaign_uuid, _ = await dialer_campaign(pbx)
    pbx.set_call_mode("manual")
    for _ in range(3):
        pbx.answer(pbx.originate()["call_id"])
    for _ in range(3):
        pbx.answer(pbx.originate(direction="outbound", campaign_uuid=campaign_uuid)["call_id"])
    pbx.originate()  # still ringing: no agent yet
    pbx.freeze_clock()
    live = pbx.live_calls("demo")
    extensions = {u["extension"] for u in pbx.state("users") if u["extension"]}
    agents = {c["extension"] for c in live} & extensions
    assert len(agents) >= 6

    await slack.driver.app_home_opened(SUPERVISOR)
    home = await home_after(slack, SUPERVISOR, 1)
    text = shown(home)
    on_line = re.search(r"\*Live calls\* · \*([\d,]+)\* on the line", text)
    assert on_line is not None
    in_call = fields_in(home["blocks"])["In call"]
    assert int(on_line.group(1)) == len(live)
    assert in_call == len(agents)
    assert in_call <= int(on_line.group(1))
    assert "each person counted once" in text


async def test_digest_run_says_which_period_and_why(
    app: Runtime, slack: SlackStandIn, zone: ZoneInfo
) -> None:
    added = await ask(slack, "digest add #call-center weekly fri 18:00 sections=totals")
    digest_id = shown(added).split("Digest `", 1)[1].split("`", 1)[0]
    reply = await ask(slack, f"digest run {digest_id}")
    now = datetime.now(zone)
    friday = now - timedelta(days=(now.weekday() - 4) % 7)
    slot = friday.replace(hour=18, minute=0, second=0, microsecond=0)
    if slot > now:
        slot -= timedelta(days=7)
    start = slot - timedelta(days=7)
    period = f"{start:%a %d %b} 18:00 → {slot:%a %d %b} 18:00"
    assert period in shown(reply)
    assert "the last complete period of this digest (Fridays at 18:00)" in shown(reply)
    assert "Up to now" in shown(reply) and f"from {slot:%a %d %b} 18:00" in shown(reply)
    posted = [m for m in bot_posts(slack, CALL_CENTER) if "digest:" in m["text"]]
    assert period in shown(posted[-1]) and "the last complete period" in shown(posted[-1])


_CAMPAIGN_CALLS = re.compile(r":phone: \*([\d,.]+) calls?\* · answered \*([\d,.]+)\*")


async def test_a_digest_has_one_window_for_its_totals_and_its_campaigns(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, zone: ZoneInfo
) -> None:
    campaign_uuid, name, midnight, frozen = await seeded_today(pbx, zone)
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        expected = await records_figures(cc, midnight, frozen, campaign_uuid)
    added = await ask(
        slack, f'digest add #call-center daily 00:00 "{name}" sections=totals,campaigns'
    )
    assert f"for 1 campaign (*{escape(name)}*)" in shown(added)  # it names what it scheduled
    digest_id = shown(added).split("Digest `", 1)[1].split("`", 1)[0]
    digest = await run_up_to_now(slack, digest_id)
    text = shown(digest)
    # The campaign's calls are its records over the digest's own period: its totals'.
    found = _CAMPAIGN_CALLS.search(text)
    assert found is not None, text
    assert int(found.group(1).replace(",", "")) == expected["Calls"]
    assert int(found.group(2).replace(",", "")) == expected["Answered"]
    window = f"{midnight:%a %d %b} 00:00–"
    captions = [
        str(e.get("text"))
        for b in digest["blocks"]
        if b.get("type") == "context"
        for e in b.get("elements") or []
    ]
    # The totals' caption and the campaigns' caption name the same period.
    assert sum(window in c for c in captions) >= 2, captions
    assert "agents and leads in progress: now" in text
    opens = [b for b in button_ids_of(digest) if b.startswith("campaign_open")]
    assert len(opens) == text.count(":phone: *")  # every campaign listed has its Open
    weekdays = await ask(slack, "digest add #call-center weekdays 08:00")
    assert "for the whole call center" in shown(weekdays)
    weekday_id = shown(weekdays).split("Digest `", 1)[1].split("`", 1)[0]
    preview = await ask(slack, f"digest preview {weekday_id}")
    assert "Weekday digest" in shown(preview)  # titled by its schedule as set


def button_ids_of(message: dict[str, Any]) -> list[str]:
    return [
        str(e.get("action_id"))
        for b in message.get("blocks") or []
        for e in b.get("elements") or []
        if e.get("type") == "button"
    ]
