"""App Home: the wallboard against the emulator, its failure modes, and the welcome tab."""

from __future__ import annotations

import json
import socket
from collections import Counter
from datetime import UTC, datetime
from typing import Any

from slack_sdk.models.views import View

from callcenter import CallCenter
from callcenter.models import ActiveCall, ActiveCallList, Campaign, StatsRow
from commands.admin.connection import HOME_CONNECT_ACTION as CONNECT_ACTION
from commands.kernel.periods import parse_period
from commands.kernel.text import duration, escape, number, percent, ratio_percent
from commands.reports.figures import CallFigures, Scope
from commands.reports.wallboard import (
    MAX_CALL_ROWS,
    MAX_CAMPAIGN_ROWS,
    REFRESH_ACTION,
    Snapshot,
    Unavailable,
    not_connected_home,
    wallboard,
    wallboard_view,
)
from emulators.pbx.testing import EmulatorServer
from storage import Role, Storage
from tests.commands.conftest import TZ, MakeContext
from tests.contexts import command_context


def serialize(view: View) -> dict[str, Any]:
    """As ``views.publish`` would send it: ``to_dict`` enforces Block Kit's limits."""
    data = view.to_dict()
    assert data["type"] == "home"
    assert 0 < len(data["blocks"]) <= 100
    return data


def texts(node: Any) -> list[str]:
    if isinstance(node, dict):
        found: list[str] = []
        for key, value in node.items():
            found.extend([value] if key == "text" and isinstance(value, str) else texts(value))
        return found
    if isinstance(node, list):
        return [t for item in node for t in texts(item)]
    return []


def visible(view: View) -> str:
    return "\n".join(texts(serialize(view)["blocks"]))


def buttons(view: View) -> list[dict[str, Any]]:
    return [
        element
        for block in serialize(view)["blocks"]
        if block["type"] == "actions"
        for element in block["elements"]
    ]


def closed_port() -> int:
    """A loopback port nobody listens on (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_wallboard_shows_what_the_service_says(
    pbx: EmulatorServer, cc: CallCenter, make_ctx: MakeContext
) -> None:
    campaigns = [c async for c in cc.campaigns.iterate(page_size=100)]
    dialer_uuid = next(
        c.campaign_uuid for c in campaigns if c.type == "autodialer" and c.status == "start"
    )
    pbx.originate(
        direction="outbound", campaign_uuid=dialer_uuid, outcome="answered", talk_seconds=30
    )
    pbx.advance(60)  # that call has ended and counts in the autodialer's last hour
    for _ in range(3):
        pbx.originate()
    pbx.freeze_clock()  # nothing may start or end between the wallboard and the check
    now = datetime.now(UTC)

    view = await wallboard(make_ctx(base_url=pbx.base_url), now=now)
    text = visible(view)

    counts = Counter(c.status for c in campaigns)
    assert (
        f":large_green_circle: running *{counts['start']}* · "
        f":large_yellow_circle: paused *{counts['pause']}* · "
        f":red_circle: stopped *{counts['stop']}*"
    ) in text
    running = [c for c in campaigns if c.status == "start"]
    assert running
    for campaign in running:
        assert f"*{escape(campaign.campaign_name)}*" in text

    dialer = [s async for s in cc.reports.iterate_autodialer(interval=60)]
    stats = next(s for s in dialer if s.campaign_uuid == dialer_uuid)
    assert stats.total_calls > 0
    assert f"connected *{percent(stats.customer_connection_rate)}*" in text
    assert f"dropped *{percent(stats.dropped_call_rate)}*" in text
    assert f"{stats.agents_ready} ready · {stats.agents_pause} paused" in text

    live = await cc.calls.list()
    assert live.total >= 3
    assert f"*Live calls* · *{number(live.total)}* on the line" in text

    # Agents, each counted once, from the emulator's own state of who is on which call.
    people = [u for u in pbx.state("users") if u["extension"]]
    on_call = {c["extension"] for c in pbx.live_calls("demo")} & {u["extension"] for u in people}
    logged_in = {u["extension"] for u in people if u["user_status"] == "Available"}
    assert on_call, "the answered customer calls have their agents"
    assert f"*:large_green_circle: Logged in*\n{number(len(logged_in))}" in text
    assert f"*:telephone_receiver: In call*\n{number(len(on_call))}" in text
    assert f"*:white_circle: Free*\n{number(len(logged_in - on_call))}" in text
    assert len(on_call) <= live.total

    today = parse_period("today", TZ, now=now).window()
    start, end = today.service_bounds()
    rows = (await cc.reports.stats(start, end, interval="hour")).data
    total, answered = sum(r.total for r in rows), sum(r.answered for r in rows)
    assert total > 0
    assert f"*:phone: Calls*\n{number(total)}" in text
    assert (
        f"*:white_check_mark: Answered*\n{number(answered)} ({ratio_percent(answered, total)})"
        in text
    )
    assert f"*:no_entry: Busy*\n{number(sum(r.busy for r in rows))}" in text
    assert f"*:no_entry_sign: Line busy*\n{number(sum(r.busy_line for r in rows))}" in text
    assert f"*:hourglass: No answer*\n{number(sum(r.no_answered for r in rows))}" in text
    assert duration(sum(r.total_billsec for r in rows)) in text
    assert f"Whole call center · {today.label()}" in text

    assert f":large_green_circle: Connected to *{pbx.base_url}*" in text
    assert f"Updated {now.astimezone(TZ):%H:%M} UTC+07" in text
    assert [b["action_id"] for b in buttons(view)] == [REFRESH_ACTION]
    assert pbx.api_key not in json.dumps(serialize(view))


async def test_the_four_reads_go_out_together(pbx: EmulatorServer, make_ctx: MakeContext) -> None:
    """The reads overlap on the service side: each starts before the others finish.
    (Read from the emulator's journal, not from a stopwatch.)"""
    pbx.set_faults(latency_ms=300)  # every request, the token request included
    pbx.clear_journal()
    view = await wallboard(make_ctx(base_url=pbx.base_url))
    pbx.clear_faults()
    reads = [e for e in pbx.journal(method="GET")]
    assert len(reads) >= 4
    spans = [(e["epoch"] - e["duration_ms"] / 1000, e["epoch"]) for e in reads]
    latest_start = max(start for start, _ in spans)
    earliest_end = min(end for _, end in spans)
    assert latest_start < earliest_end, "the wallboard's reads ran one after another"
    assert "unavailable" not in visible(view)


async def test_a_failing_section_is_unavailable_and_the_rest_renders(
    pbx: EmulatorServer, cc: CallCenter, make_ctx: MakeContext
) -> None:
    pbx.fail_next("GET", "/v1/call", 500, {"error": "boom"}, times=5)
    view = await wallboard(make_ctx(base_url=pbx.base_url))
    pbx.clear_faults()
    text = visible(view)
    assert (
        ":warning: *Live calls unavailable*: the call-center service failed (boom, HTTP 500)."
        in text
    )
    assert ":large_yellow_circle: Connected to" in text and "some figures are unavailable" in text
    campaigns = [c async for c in cc.campaigns.iterate(page_size=100)]
    for campaign in (c for c in campaigns if c.status == "start"):
        assert escape(campaign.campaign_name) in text
    # Who is in call is read from the live calls, so the agents are unavailable with them.
    assert "*Agents unavailable*" in text and "*Today*" in text
    assert [b["action_id"] for b in buttons(view)] == [REFRESH_ACTION]


async def test_dialer_statistics_down_leaves_campaigns_listed_without_rates(
    pbx: EmulatorServer, make_ctx: MakeContext
) -> None:
    pbx.fail_next("GET", "/v3/monitor-stats/campaign/autodialer", 503, times=5)
    view = await wallboard(make_ctx(base_url=pbx.base_url))
    pbx.clear_faults()
    text = visible(view)
    assert "Dialer rates unavailable" in text and "rates unavailable" in text
    # The agents are counted from the directory and the live calls, not the dialer.
    assert "*Agents*" in text and "*Agents unavailable*" not in text
    assert ":large_green_circle: running *" in text  # the campaign counts still show


async def test_a_slow_section_is_cut_off_at_its_deadline(
    pbx: EmulatorServer, make_ctx: MakeContext
) -> None:
    # A deadline long enough for the healthy sections on a loaded machine (the suite runs
    # beside a browser and several servers), far shorter than the slow one's delay.
    pbx.fail_next("GET", "/v2/stats", 500, delay_ms=5000)
    view = await wallboard(make_ctx(base_url=pbx.base_url), section_seconds=1.5)
    text = visible(view)
    assert (
        "*Today's totals unavailable*: the call-center service gave no answer within 1.5s" in text
    )
    assert "*Live calls*" in text


async def test_unreachable_service_says_so_and_still_offers_refresh(storage: Storage) -> None:
    base = f"http://127.0.0.1:{closed_port()}"
    async with CallCenter(base, "some-key", max_retries=0, timeout=2) as down:
        ctx = command_context(storage, channel_id=None, tz=TZ, cc=down)
        view = await wallboard(ctx)
    text = visible(view)
    assert f":red_circle: *{base}*: the call-center service cannot be reached" in text
    for title in ("Campaigns", "Live calls", "Agents", "Today's totals"):
        assert f"*{title} unavailable*" in text
    assert "some-key" not in json.dumps(serialize(view))
    assert [b["action_id"] for b in buttons(view)] == [REFRESH_ACTION]


async def test_a_refused_key_is_the_connection_state(pbx: EmulatorServer, storage: Storage) -> None:
    async with CallCenter(pbx.base_url, "not-the-key", max_retries=0) as refused:
        ctx = command_context(
            storage, channel_id=None, role=Role.ADMIN, tz=TZ, cc=refused,
            base_url=f"http://user:secret@127.0.0.1:{pbx.port}/?api_key=leak",
        )  # fmt: skip
        view = await wallboard(ctx)
    text = visible(view)
    assert text.count(":red_circle: *http://127.0.0.1:") == 1
    assert "refused this workspace's API key" in text and "/callops connect" in text
    dumped = json.dumps(serialize(view))
    assert "secret" not in dumped and "leak" not in dumped and "not-the-key" not in dumped


async def test_campaign_names_cannot_ping_anyone(
    pbx: EmulatorServer, cc: CallCenter, make_ctx: MakeContext
) -> None:
    campaigns = [c async for c in cc.campaigns.iterate(page_size=100)]
    target = next(c for c in campaigns if c.type == "autodialer" and c.status == "start")
    await cc.campaigns.set_fields(target.campaign_uuid, campaign_name="<!channel> & <@U123> sale")
    dumped = json.dumps(serialize(await wallboard(make_ctx())), ensure_ascii=False)
    assert "<!channel>" not in dumped and "<@U123>" not in dumped
    assert "&lt;!channel&gt; &amp; &lt;@U123&gt; sale" in dumped


def _campaign(i: int, status: str) -> Campaign:
    return Campaign(
        campaign_uuid=f"uuid-{i}", campaign_name=f"<b>{'x' * 3000}{i}", type="autodialer",
        status=status,
    )  # fmt: skip


def test_huge_call_center_stays_within_view_limits(make_ctx: MakeContext) -> None:
    now = datetime.now(UTC)
    calls = [
        ActiveCall(call_id=f"c{i}", source="9" * 500, destination="<!here>" * 100,
                   created_time="2024-05-01 08:00:00", direction="inbound", state="CS_EXECUTE")
        for i in range(300)
    ]  # fmt: skip
    today = parse_period("today", TZ, now=now).window()
    rows = [StatsRow(total=10**9, answered=5 * 10**8, total_billsec=10**9)]
    snap = Snapshot(
        campaigns=[_campaign(i, "start" if i % 2 else "pause") for i in range(500)],
        dialer=[],
        calls=ActiveCallList(data=calls, total=300),
        users=[],
        today=CallFigures.of_rows(Scope(), today, rows),
        now=now.astimezone(TZ),
    )
    view = wallboard_view(snap, make_ctx())
    text = visible(view)
    assert f"Showing {MAX_CAMPAIGN_ROWS} of 500 running and paused campaigns" in text
    assert f"Showing the {MAX_CALL_ROWS} longest of 300 live calls" in text
    assert "<!here>" not in json.dumps(serialize(view))
    assert "1,000,000,000" in text


def test_unavailable_is_rendered_from_a_snapshot_too(make_ctx: MakeContext) -> None:
    now = datetime.now(UTC)
    down = Unavailable("the call-center service cannot be reached (refused)")
    snap = Snapshot(
        campaigns=down, dialer=down, calls=down, users=down, today=down, now=now.astimezone(TZ),
    )  # fmt: skip
    text = visible(wallboard_view(snap, make_ctx(base_url="https://pbx.example.com/")))
    assert ":red_circle: *https://pbx.example.com*: the call-center service cannot be" in text


async def test_unconnected_workspace_gets_the_welcome(unconnected: MakeContext) -> None:
    admin = not_connected_home(Role.ADMIN)
    assert "Welcome to callops" in visible(admin)
    assert [b["action_id"] for b in buttons(admin)] == [CONNECT_ACTION]
    viewer = not_connected_home(Role.VIEWER)
    assert buttons(viewer) == []
    assert "Ask a callops admin" in visible(viewer)
    ctx = unconnected(Role.OPERATOR, channel_id=None)
    assert visible(await wallboard(ctx)) == visible(viewer)
