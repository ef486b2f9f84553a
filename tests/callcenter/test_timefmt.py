"""Time formats sent to and read from the service."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from callcenter.timefmt import format_cdr_date, format_datetime, parse_time


def test_format_datetime_accepts_datetime_date_and_string() -> None:
    assert format_datetime(datetime(2024, 5, 1, 7, 5, 9, 999)) == "2024-05-01 07:05:09"
    assert format_datetime(date(2024, 5, 1)) == "2024-05-01 00:00:00"
    assert format_datetime(date(2024, 5, 1), end_of_day=True) == "2024-05-01 23:59:59"
    assert format_datetime("2024-05-01", end_of_day=True) == "2024-05-01 23:59:59"
    assert format_datetime(" 2024-05-01 10:00:00 ") == "2024-05-01 10:00:00"


def test_aware_datetime_is_sent_as_its_own_wall_clock() -> None:
    hanoi = timezone(timedelta(hours=7))
    assert format_datetime(datetime(2024, 5, 1, 9, 0, tzinfo=hanoi)) == "2024-05-01 09:00:00"


def test_cdr_dates_keep_a_bare_date() -> None:
    assert format_cdr_date(date(2024, 5, 1)) == "2024-05-01"
    assert format_cdr_date("2024-05-01") == "2024-05-01"
    assert format_cdr_date(datetime(2024, 5, 1, 23, 0)) == "2024-05-01 23:00:00"


@pytest.mark.parametrize("bad", ["01/05/2024", "2024-05-01T10:00:00", "yesterday", ""])
def test_strings_the_service_would_not_understand_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        format_cdr_date(bad)
    with pytest.raises(ValueError):
        format_datetime(bad)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-05-01 10:11:12", datetime(2024, 5, 1, 10, 11, 12)),
        ("2024-05-01", datetime(2024, 5, 1)),
        (
            "2024-05-01T10:11:12+07:00",
            datetime(2024, 5, 1, 10, 11, 12, tzinfo=timezone(timedelta(hours=7))),
        ),
        (
            "2024-05-01T03:11:12.123456789Z",
            datetime(2024, 5, 1, 3, 11, 12, 123456, tzinfo=UTC),
        ),
        ("", None),
        ("   ", None),
        (None, None),
        ("0001-01-01T00:00:00Z", None),
    ],
)
def test_parse_time_reads_every_format_the_service_sends(
    text: str | None, expected: datetime | None
) -> None:
    assert parse_time(text) == expected


def test_parse_time_refuses_unknown_formats() -> None:
    with pytest.raises(ValueError):
        parse_time("1 May 2024")
