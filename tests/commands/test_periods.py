"""Period words and typed times are read on the workspace's clock."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from commands.kernel.periods import PeriodError, format_moment, parse_moment, parse_period

TZ = ZoneInfo("Asia/Ho_Chi_Minh")
# 2026-11-07 01:30 in Ho Chi Minh City is still 2026-11-06 in UTC.
NOW = datetime(2026, 11, 6, 18, 30, tzinfo=UTC)


def test_today_starts_at_local_midnight_not_utc_midnight() -> None:
    today = parse_period("today", TZ, now=NOW)
    assert today.start == datetime(2026, 11, 7, 0, 0, tzinfo=TZ)
    assert today.end == NOW.astimezone(TZ)
    start, end = today.service_bounds()
    assert start == datetime(2026, 11, 6, 17, 0, tzinfo=UTC)
    assert end == NOW
    assert today.default_interval == "hour"


def test_yesterday_week_and_month_are_whole_local_days() -> None:
    yesterday = parse_period("Yesterday", TZ, now=NOW)
    assert (yesterday.start, yesterday.end) == (
        datetime(2026, 11, 6, 0, 0, tzinfo=TZ),
        datetime(2026, 11, 6, 23, 59, 59, tzinfo=TZ),
    )
    week = parse_period("week", TZ, now=NOW)
    assert week.start == datetime(2026, 11, 1, 0, 0, tzinfo=TZ)
    assert week.default_interval == "day" and week.label == "the last 7 days"
    month = parse_period("month", TZ, now=NOW)
    assert month.start == datetime(2026, 10, 9, 0, 0, tzinfo=TZ)
    assert parse_period(None, TZ, now=NOW).word == "today"


def test_unknown_period_says_what_would_do() -> None:
    with pytest.raises(PeriodError, match="today, yesterday, week, month"):
        parse_period("fortnight", TZ, now=NOW)


@pytest.mark.parametrize(
    ("text", "end", "expected"),
    [
        ("2026-11-01", False, datetime(2026, 11, 1, 0, 0, tzinfo=TZ)),
        ("2026-11-01", True, datetime(2026, 11, 1, 23, 59, 59, tzinfo=TZ)),
        ("2026-11-01 08:15", False, datetime(2026, 11, 1, 8, 15, tzinfo=TZ)),
        ("2026-11-01 08:15:30", True, datetime(2026, 11, 1, 8, 15, 30, tzinfo=TZ)),
        ("today", False, datetime(2026, 11, 7, 0, 0, tzinfo=TZ)),
        ("today", True, datetime(2026, 11, 7, 23, 59, 59, tzinfo=TZ)),
        ("yesterday", False, datetime(2026, 11, 6, 0, 0, tzinfo=TZ)),
    ],
)
def test_typed_times(text: str, end: bool, expected: datetime) -> None:
    assert parse_moment(text, TZ, end=end, now=NOW) == expected


@pytest.mark.parametrize("text", ["2026-13-01", "01/11/2026", "2026-11-01 25:00", "soon"])
def test_bad_times_are_refused(text: str) -> None:
    with pytest.raises(PeriodError):
        parse_moment(text, TZ, now=NOW)


def test_format_moment_round_trips() -> None:
    moment = datetime(2026, 11, 1, 8, 15, 30, tzinfo=TZ)
    assert parse_moment(format_moment(moment, TZ), TZ) == moment


def test_a_rolling_window_made_before_the_reader_is_known_is_said_in_their_language() -> None:
    from commands.kernel.i18n import use_language
    from commands.kernel.periods import Window

    window = Window.back_from(datetime(2026, 11, 29, 3, 7, tzinfo=UTC), 60, ZoneInfo("UTC"))
    with use_language("vi"):
        said = window.label()
    assert "1 giờ gần nhất" in said and "last" not in said
    assert "the last hour" in window.label()
