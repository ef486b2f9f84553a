"""The one definition of figures: how a window and a scope are said, how a call record is
counted, how people are counted, and which stretch "up to now" covers."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from callcenter.models import ActiveCall, Cdr, StatsRow, User
from commands.digests.schedules import period_up_to, trigger_for
from commands.kernel.periods import Window, parse_period
from commands.reports.figures import CallFigures, Counts, Scope, agent_figures

HCM = ZoneInfo("Asia/Ho_Chi_Minh")
NOW = datetime(2026, 11, 22, 7, 27, 40, tzinfo=UTC)  # Sun 22 Nov 14:27 in Ho Chi Minh City


def test_windows_are_said_one_way_with_their_zone() -> None:
    assert parse_period("today", HCM, now=NOW).window().label() == "today 00:00–14:27 UTC+07"
    yesterday = parse_period("yesterday", HCM, now=NOW).window()
    assert yesterday.label() == "yesterday, Sat 21 Nov UTC+07"
    week = parse_period("week", HCM, now=NOW).window()
    assert week.label() == "the last 7 days, Mon 16 Nov 00:00 → Sun 22 Nov 14:27 UTC+07"
    digest = Window(datetime(2026, 11, 20, 18, tzinfo=HCM), datetime(2026, 11, 21, 18, tzinfo=HCM))
    assert digest.label() == "Fri 20 Nov 18:00 → Sat 21 Nov 18:00 UTC+07"
    assert Window.back_from(NOW, 60, HCM).label() == "the last hour, Sun 22 Nov 13:27–14:27 UTC+07"
    assert Window.instant(NOW, HCM).label() == "now, 14:27 UTC+07"
    paris = Window.instant(NOW, ZoneInfo("Europe/Paris"))
    assert paris.label() == "now, 08:27 CET"


def test_a_scope_names_its_campaigns_escaped() -> None:
    assert Scope().label() == "Whole call center"
    one = Scope.of(["u1"], {"u1": "Telesale <HCM>"})
    assert one.label() == "*Telesale &lt;HCM&gt;*" and one.plain() == "Telesale <HCM>"
    many = Scope.of(["a", "b", "c", "d"], {"a": "A", "b": "B"})
    assert many.plain() == "A, B and 2 more campaigns"
    assert Scope.of(["0123456789ab"], {}).plain() == "campaign 01234567"


def test_a_record_counts_as_the_statistics_count_it() -> None:
    records = [
        Cdr(id="1", status="answered", direction="inbound", billsec=30, duration=40),
        Cdr(id="2", status="busy", direction="outbound", duration=5),
        Cdr(id="3", status="BUSY_LINE", direction="outbound", duration=3),
        Cdr(id="4", status="no-answered", direction="outbound", app="autocall", duration=20),
        Cdr(id="5", status="drop", direction="outbound"),
    ]
    total = sum((Counts.of_record(r) for r in records), Counts())
    row = StatsRow(
        total=5, answered=1, busy=1, busy_line=1, no_answered=1, inbound=1, outbound=4, ivr=1,
        total_billsec=30, total_duration=68, total_waitsec=38,
    )  # fmt: skip
    assert total == Counts.of_row(row)
    assert total.busy == 1 and total.line_busy == 1  # never added together
    assert total.answer_rate == 20.0


def test_a_record_seen_on_two_pages_counts_once() -> None:
    window = parse_period("today", HCM, now=NOW).window()
    record = Cdr(id="x", status="answered", time_started="2026-11-22 03:00:00")
    figures = CallFigures.of_records(Scope(), window, [record, record])
    assert figures.totals.calls == 1
    hours = dict(figures.buckets("hour"))
    assert hours[datetime(2026, 11, 22, 10, tzinfo=HCM)].calls == 1  # 03:00 UTC is 10:00 here
    assert len(hours) == 15  # 00:00 .. 14:00, the quiet hours included


def test_people_are_counted_once_however_many_calls_they_are_on() -> None:
    users = [
        User(user_uuid="a", extension="1001", user_status="Available"),
        User(user_uuid="b", extension="1002", user_status="Available"),
        User(user_uuid="c", extension="1003", user_status="Logged Out"),
        User(user_uuid="d", extension="", user_status="Available"),  # no phone: not staff
    ]
    calls = [
        ActiveCall(call_id="1", source="0912345678", destination="1001", direction="inbound"),
        ActiveCall(call_id="2", source="1001", destination="0987654321", direction="outbound"),
        ActiveCall(call_id="3", source="0911111111", destination="19001234", direction="inbound"),
    ]
    agents = agent_figures(users, calls, Window.instant(NOW, HCM))
    assert (agents.staffed, agents.logged_in, agents.in_call, agents.free) == (3, 2, 1, 1)


def test_up_to_now_runs_from_the_last_slot_and_compares_like_with_like() -> None:
    trigger = trigger_for("daily 18:00", HCM)
    period = period_up_to(trigger, NOW, HCM)
    assert period.start == datetime(2026, 11, 21, 18, tzinfo=HCM)
    assert period.end == datetime(2026, 11, 22, 14, 27, 41, tzinfo=HCM)  # now included
    assert period.previous_start == datetime(2026, 11, 20, 18, tzinfo=HCM)
    assert period.previous_until == datetime(2026, 11, 21, 14, 27, 41, tzinfo=HCM)
    assert period.previous_label() == "Fri 20 Nov 18:00 → Sat 21 Nov 14:27"
