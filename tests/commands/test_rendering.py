"""Renderers given hostile or huge values: nothing pings, nothing breaks Slack's limits.

The emulator refuses most of these values (group names, usernames), yet a real service
may hold anything, so the renderers are fed model instances directly.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from callcenter.models import (
    ActiveCall,
    AgentTime,
    AutodialerStats,
    BlacklistEntry,
    Carrier,
    Cdr,
    ExtensionCounters,
    Gateway,
    Group,
    LeadList,
    Prompt,
    StatsRow,
    Template,
    User,
)
from commands.calls.live import calls_reply
from commands.directory.listings import (
    blacklist_reply,
    carriers_reply,
    gateways_reply,
    gather_groups,
    groups_reply,
    templates_reply,
    users_reply,
)
from commands.kernel.periods import Window, parse_period
from commands.kernel.reply import Reply
from commands.leads.lists import list_card
from commands.reports.cdr import parse_query, records_reply
from commands.reports.figures import CallFigures, DialerFigures, DialerTotals, Scope
from commands.reports.stats import (
    agents_reply,
    extensions_reply,
    monitor_reply,
    stats_reply,
)
from tests.commands.conftest import MakeContext
from tests.commands.helpers import dumps, payload, raw_cells, table_rows, visible

TZ = ZoneInfo("Asia/Ho_Chi_Minh")
PING = "<!channel> <@U123> <#C1|x>"
LONG = "Ω" * 5000


def _mrkdwn(node: object) -> list[str]:
    """Texts Slack parses for mentions: mrkdwn objects (plain_text is never parsed)."""
    if isinstance(node, dict):
        if node.get("type") == "mrkdwn":
            return [str(node["text"])]
        return [t for v in node.values() for t in _mrkdwn(v)]
    if isinstance(node, list):
        return [t for v in node for t in _mrkdwn(v)]
    return []


def _assert_no_ping(reply: Reply) -> None:
    data = payload(reply)
    text = "\n".join([data["text"], *_mrkdwn(data["blocks"])])
    assert "<!channel>" not in text and "<@U123>" not in text and "<#C1" not in text
    assert "&lt;!channel&gt;" in text


def _assert_shown_as_typed(reply: Reply) -> None:
    """A listing drawn as a table: the hostile value is in a raw_text cell, which Slack
    shows as it is and never reads as mrkdwn, and in no mrkdwn text anywhere."""
    data = payload(reply)
    text = "\n".join([data["text"], *_mrkdwn(data["blocks"])])
    assert "<!channel>" not in text and "<@U123>" not in text and "<#C1" not in text
    assert any(PING in cell for cell in raw_cells(reply))


def test_live_calls_escape_and_page(unconnected: MakeContext) -> None:
    now = datetime(2026, 11, 7, 8, 0, tzinfo=UTC)
    calls = [
        ActiveCall(
            call_id=f"call-{i}",
            source=PING,
            destination=LONG,
            direction="outbound",
            state="CS_EXECUTE",
            created_time=(now - timedelta(seconds=185 + i)).strftime("%Y-%m-%d %H:%M:%S"),
        )
        for i in range(40)
    ]
    # A user whose extension is the calls' source is their agent; their name is escaped.
    agent = User(user_uuid="u-1", username="x", first_name=PING, extension=PING)
    reply = calls_reply(calls, unconnected(), users=[agent], now=now)
    _assert_no_ping(reply)
    text = visible(reply)
    assert "Live calls: 40" in text and "Showing 1–15 of 40 live calls." in text
    assert "3m 44s" in text  # the oldest call first: 185 + 39 seconds
    assert text.count("agent *&lt;!channel&gt;") == 15


def test_lead_list_card_escapes_names(unconnected: MakeContext) -> None:
    card = list_card(
        LeadList(
            list_uuid="0" * 36,
            list_name=PING,
            campaign_name=PING,
            description=LONG,
            total_leads=1234,
            total_upload=10,
            total_success=8,
            total_fail=2,
        ),
        unconnected(),
    )
    _assert_no_ping(card)
    text = visible(card)
    assert "*1,234*" in text and "8 (80.0%)" in text and "2 (20.0%)" in text


def test_call_record_rows_escape_and_link_only_web_recordings(unconnected: MakeContext) -> None:
    query = parse_query([], TZ)
    records = [
        Cdr(
            id="1",
            from_number=PING,
            to_number="0912345678",
            status="busy",
            cause="USER_BUSY",
            direction="outbound",
            duration=65,
            recording_url="https://rec.example/a?x=1&y=<2>",
            extension="1001",
            fullname=PING,
            time_started="2026-11-07 01:00:00",
        ),
        Cdr(id="2", status="answered", billsec=30, recording_url="javascript:alert(1)"),
    ]
    reply = records_reply(records, total=2, query=query, ctx=unconnected())
    _assert_shown_as_typed(reply)
    header, first, second = table_rows(reply)
    row = dict(zip(header, first, strict=True))
    assert row["Status"] == "Busy"  # in words; the usual cause of a busy call goes unsaid
    assert row["Recording"] == "recording <https://rec.example/a?x=1&y=<2>>"
    assert dict(zip(header, second, strict=True))["Recording"] == "–"
    assert "javascript" not in dumps(reply)
    assert row["Time"] == "Sat 07 Nov 08:00:00"  # the service's UTC shown in Ho Chi Minh City


def test_reports_escape_names(unconnected: MakeContext) -> None:
    ctx = unconnected()
    period = parse_period("week", TZ)
    rows = [StatsRow(time=f"2026-11-0{d} 00:00:00", total=10, answered=5) for d in range(1, 8)]
    stats = stats_reply(CallFigures.of_rows(Scope(), period.window(), rows), "day")
    assert "*70 calls*" in visible(stats) and "35 answered (50.0%)" in visible(stats)
    window = Window.back_from(datetime(2026, 11, 7, 8, tzinfo=UTC), 60, TZ)
    dialer = AutodialerStats(
        campaign_name=PING,
        campaign_uuid="c1",
        status="running",
        total_calls=50,
        total_connected_customers=40,
        dropped_calls=3,
    )
    items = [DialerFigures.of(dialer, window)] * 30
    monitor = monitor_reply(
        items, DialerTotals.of(items, Scope(), window), command="monitor", ctx=ctx
    )
    _assert_no_ping(monitor)
    assert ":warning: dropped *7.5%*" in visible(monitor)
    assert "connected *80.0%*" in visible(monitor)
    assert "All autodialer campaigns · the last hour, Sat 07 Nov 14:00–15:00 UTC+07" in (
        visible(monitor)
    )
    agents = agents_reply(
        [AgentTime(username=f"a{i}", first_name=PING, total_talk_sec=i * 60) for i in range(30)],
        period.window(),
        command="agents week",
        ctx=ctx,
    )
    _assert_shown_as_typed(agents)
    usernames = [row[1] for row in table_rows(agents)[1:]]
    assert usernames[:2] == ["a29", "a28"] and len(usernames) == 15
    extensions = extensions_reply(
        [ExtensionCounters(extension=PING, total=3, answered=1)],
        period.window(),
        command="x",
        ctx=ctx,
    )
    _assert_shown_as_typed(extensions)
    assert table_rows(extensions)[1][2:5] == ["3", "1", "33.3%"]


def test_stats_breakdown_of_a_month_by_hour_stays_within_limits() -> None:
    period = parse_period("month", TZ)
    start = datetime(2026, 10, 1, tzinfo=UTC)
    rows = [
        StatsRow(
            time=(start + timedelta(hours=h)).strftime("%Y-%m-%d %H:%M:%S"),
            total=h % 5,
            answered=h % 3,
        )
        for h in range(720)
    ]
    reply = stats_reply(CallFigures.of_rows(Scope(), period.window(), rows), "hour")
    payload(reply)
    assert "quiet ones left out" in visible(reply)


def test_directory_listings_escape_and_never_show_api_keys() -> None:
    user = User(
        user_uuid="u1",
        username="agent1",
        first_name=PING,
        api_key="SECRET-KEY-123",
        user_status="Available",
        extension="1001",
        level="agent",
        groups=[Group(group_uuid="g1", group_name=PING)],
    )
    people = users_reply([user], total=1, offset=0)
    _assert_shown_as_typed(people)
    assert "SECRET-KEY-123" not in dumps(people)
    groups = groups_reply(
        gather_groups([user, user.model_copy(update={"username": "b"})]), offset=0
    )
    _assert_no_ping(groups)
    assert "2 members" in visible(groups)
    template = Template(
        template_uuid="t1",
        template_name=PING,
        content="Xin chào {{name}}, khoản {{ amount }} đến hạn {{due_date}}. {{name}}",
        press_options=[{"1": Prompt(voice_type="tts", content="Gọi {{agent}}")}],
        enable_option=True,
    )
    templates = templates_reply([template], total=1, offset=0)
    _assert_no_ping(templates)
    text = visible(templates)
    assert "`{{name}}` `{{amount}}` `{{due_date}}` `{{agent}}`" in text
    assert ":1234: 1 press option\n" in text
    carriers = carriers_reply(
        [
            Carrier(
                carrier_uuid="c",
                carrier_name=PING,
                concurrent_call=30,
                remaining_concurrent_call=12,
            )
        ],
        total=1,
        offset=0,
    )
    _assert_no_ping(carriers)
    assert "*12* of 30 lines free" in visible(carriers)
    _assert_no_ping(gateways_reply([Gateway(gateway_uuid="g", gateway=PING)], total=1, offset=0))
    entries = [BlacklistEntry(id=str(i), phone_number=PING, description=LONG) for i in range(15)]
    blocked = blacklist_reply(entries, total=40, offset=15)
    _assert_no_ping(blocked)
    assert "Showing 16–30 of 40 blocked numbers." in visible(blocked)


def test_days_are_the_workspaces_days_not_the_services() -> None:
    # 20:00 UTC on 1 Nov is 03:00 on 2 Nov in Ho Chi Minh City.
    rows = [
        StatsRow(time="2026-11-01 16:00:00", total=1, answered=1),  # 23:00 on 1 Nov locally
        StatsRow(time="2026-11-01 20:00:00", total=2, answered=0),
        StatsRow(time="2026-11-02 03:00:00", total=4, answered=4),  # 10:00 on 2 Nov
    ]
    window = Window(datetime(2026, 11, 1, tzinfo=TZ), datetime(2026, 11, 3, tzinfo=TZ))
    figures = CallFigures.of_rows(Scope(), window, rows)
    buckets = figures.buckets("day")
    assert [(start.strftime("%d %b"), c.calls) for start, c in buckets] == [
        ("01 Nov", 1),
        ("02 Nov", 6),
    ]
    weeks = figures.buckets("week")
    assert [(start.strftime("%a %d %b"), c.answered) for start, c in weeks] == [
        ("Mon 26 Oct", 1),
        ("Mon 02 Nov", 4),
    ]
