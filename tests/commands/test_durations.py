"""One grammar for spans of time: an approval's expiry, the monitor's and an alert's window."""

from __future__ import annotations

import pytest

from commands.kernel.durations import (
    DurationError,
    is_duration,
    parse_duration,
    parse_minutes,
    recent_words,
    span_words,
)
from commands.kernel.grammar import UsageError


def test_every_unit_is_read_the_same_way() -> None:
    assert parse_duration("90s") == 90
    assert parse_duration("30m") == parse_duration("30min") == parse_duration("30 MIN") == 1800
    assert parse_duration("2h") == 7200
    assert parse_duration("1d") == 86400
    assert parse_duration("45") == 2700, "a bare number is minutes"


def test_a_window_is_whole_minutes_up_to_its_limit() -> None:
    assert parse_minutes("90", longest_minutes=60 * 24) == 90
    assert parse_minutes("2h", longest_minutes=60 * 24) == 120
    with pytest.raises(DurationError, match="up to 1 day"):
        parse_minutes("2d", longest_minutes=60 * 24)
    with pytest.raises(DurationError, match="30m, 2h or 1d"):
        parse_minutes("90s", longest_minutes=60 * 24)


@pytest.mark.parametrize("text", ["soon", "0m", "", "5w", "-3h", "1.5h"])
def test_what_is_not_a_span_is_refused_with_the_usage(text: str) -> None:
    with pytest.raises(UsageError) as caught:
        parse_duration(text, name="expiry=", usage="policy set ...")
    assert caught.value.message.startswith("expiry= takes a duration such as 90s, 30m")
    assert caught.value.usage == "policy set ..."


def test_only_a_number_with_its_unit_looks_like_a_span() -> None:
    assert is_duration("30m") and is_duration("2H") and is_duration("1d")
    assert not is_duration("2024") and not is_duration("Summer")


def test_spans_are_said_in_words() -> None:
    assert span_words(1800) == "30 minutes"
    assert span_words(3600) == "1 hour"
    assert span_words(7 * 86400) == "7 days"
    assert span_words(90) == "90 seconds"
    assert [recent_words(s) for s in (3600, 86400, 7200, 2 * 86400, 1800)] == [
        "hour",
        "24 hours",
        "2 hours",
        "2 days",
        "30 minutes",
    ]
