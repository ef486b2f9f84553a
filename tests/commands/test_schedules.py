"""``<when>`` grammar, fire times across DST, and the period each post covers."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from commands.digests.schedules import (
    ScheduleError,
    latest_fire,
    next_fire,
    parse_schedule,
    parse_when,
    period_for_slot,
    slot_key,
    trigger_for,
)

NEW_YORK = ZoneInfo("America/New_York")
BERLIN = ZoneInfo("Europe/Berlin")


@pytest.mark.parametrize(
    ("words", "stored", "described"),
    [
        ("daily 8:05", "daily 08:05", "every day at 08:05"),
        ("weekdays 18:00", "weekdays 18:00", "weekdays at 18:00"),
        ("weekly Monday 09:30", "weekly mon 09:30", "Mondays at 09:30"),
        ("hourly", "hourly", "every hour"),
        ("0 7 * * 1-5", "cron 0 7 * * 1-5", "cron 0 7 * * 1-5"),
        ("cron 15 6 1 * *", "cron 15 6 1 * *", "cron 15 6 1 * *"),
    ],
)
def test_every_form_of_when_is_read_and_stored(words: str, stored: str, described: str) -> None:
    schedule, rest = parse_when([*words.split(), "Summer", "sale"])
    assert (schedule.text, schedule.describe(), rest) == (stored, described, ["Summer", "sale"])
    assert parse_schedule(schedule.text) == schedule


def test_a_quoted_cron_expression_is_one_word() -> None:
    schedule, rest = parse_when(["0 8 * * 0,6", "Spring"])
    assert schedule.text == "cron 0 8 * * 0,6" and rest == ["Spring"]


@pytest.mark.parametrize(
    ("words", "message"),
    [
        ("daily", "needs a time"),
        ("daily 24:00", "not a time of day"),
        ("weekly someday 08:00", "not a day of the week"),
        ("*/10 * * * *", "more than once an hour"),
        ("0,30 9 * * *", "more than once an hour"),
        ("0 0 30 2 *", "never fires"),
        ("0 8 * * 9", "not a weekday"),
        ("tomorrow", "is not a schedule"),
    ],
)
def test_bad_schedules_say_what_is_wrong(words: str, message: str) -> None:
    with pytest.raises(ScheduleError, match=message):
        parse_when(words.split())


def test_cron_weekdays_keep_crons_numbering() -> None:
    """APScheduler 3 counts Monday as 0; a crontab's 0 is Sunday and must stay Sunday."""
    trigger = trigger_for("cron 0 8 * * 0", BERLIN)
    fire = next_fire(trigger, datetime(2027, 1, 1, tzinfo=BERLIN))
    assert fire is not None and fire.strftime("%A") == "Sunday"
    weekdays = trigger_for("cron 0 8 * * 1-5", BERLIN)
    moment = datetime(2027, 1, 1, tzinfo=BERLIN)
    days = []
    for _ in range(7):
        found = next_fire(weekdays, moment)
        assert found is not None
        days.append(found.strftime("%a"))
        moment = found
    assert days == ["Fri", "Mon", "Tue", "Wed", "Thu", "Fri", "Mon"]  # 1 Jan 2027 is a Friday


def test_fire_times_stay_at_local_time_across_dst() -> None:
    trigger = trigger_for("daily 08:00", NEW_YORK)
    spring = [latest_fire(trigger, datetime(2027, 3, day, 14, tzinfo=UTC)) for day in (13, 14, 15)]
    assert [slot_key(f) for f in spring if f] == [
        "2027-03-13T13:00:00Z",
        "2027-03-14T12:00:00Z",
        "2027-03-15T12:00:00Z",
    ]
    autumn = latest_fire(trigger, datetime(2027, 11, 7, 14, tzinfo=UTC))
    assert autumn is not None and slot_key(autumn) == "2027-11-07T13:00:00Z"


def test_a_period_runs_from_the_previous_slot_and_is_compared_with_the_one_before() -> None:
    trigger = trigger_for("daily 08:00", NEW_YORK)
    slot = datetime(2027, 3, 14, 8, tzinfo=NEW_YORK)
    period = period_for_slot(trigger, slot, NEW_YORK)
    assert period.start == datetime(2027, 3, 13, 8, tzinfo=NEW_YORK)
    assert period.end == slot
    assert period.previous_start == datetime(2027, 3, 12, 8, tzinfo=NEW_YORK)
    assert period.seconds == 23 * 3600  # the night the clocks went forward
    start, end = period.service_bounds()
    assert (start.hour, end.hour, end.minute, end.second) == (13, 11, 59, 59)
    assert period.interval == "hour"


def test_monday_post_of_a_weekday_digest_covers_the_weekend() -> None:
    trigger = trigger_for("weekdays 07:00", BERLIN)
    monday = datetime(2027, 6, 7, 7, tzinfo=BERLIN)
    period = period_for_slot(trigger, monday, BERLIN)
    assert period.start == datetime(2027, 6, 4, 7, tzinfo=BERLIN)
    assert period.interval == "day"
    assert without_year(period.label()) == "Fri 04 Jun 07:00 → Mon 07 Jun 07:00"


def test_a_midnight_daily_period_is_labelled_as_the_day() -> None:
    trigger = trigger_for("daily 00:00", BERLIN)
    period = period_for_slot(trigger, datetime(2027, 6, 8, tzinfo=BERLIN), BERLIN)
    assert without_year(period.label()) == "Mon 07 Jun"
    assert period.end - period.start == timedelta(days=1)


def without_year(label: str) -> str:
    """A label of 2027 says its year until 2027 comes (``write_day``); the rest of it is
    what these tests are about."""
    return re.sub(r" 2027\b", "", label)


@pytest.mark.parametrize(
    ("typed", "stored"),
    [
        ("hang-ngay 08:00", "daily 08:00"),
        ("Hằng ngày 08:00", "daily 08:00"),
        ("t2-t6 07:30", "weekdays 07:30"),
        ("ngày làm việc 07:30", "weekdays 07:30"),
        ("hang-tuan T2 08:00", "weekly mon 08:00"),
        ("hằng tuần thứ-sáu 17:00", "weekly fri 17:00"),
        ("hang-tuan CN 09:00", "weekly sun 09:00"),
        ("hang-gio", "hourly"),
    ],
)
def test_a_vietnamese_reader_types_the_schedule_in_vietnamese(typed: str, stored: str) -> None:
    schedule, rest = parse_when(typed.split())
    assert (schedule.text, rest) == (stored, [])
