"""Numbers, amounts, spans and days in the reader's language: Vietnamese writes
``1.234.567``, ``12,5%`` and ``Thứ Năm, 26/11 14:27``; English keeps exactly what
callops always wrote."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from commands.calls.autocall import AutocallParams, describe_autocall
from commands.kernel.i18n import Audience, use_audience
from commands.kernel.periods import Window
from commands.kernel.text import (
    clock,
    day,
    day_time,
    duration,
    mode_label,
    money,
    number,
    percent,
    ratio_percent,
    signed_change,
    status_label,
    status_word,
    when,
)
from commands.reports.stats import bucket_label

HCM = ZoneInfo("Asia/Ho_Chi_Minh")
THURSDAY = datetime(2026, 11, 26, 14, 27, 5, tzinfo=HCM)


@pytest.fixture
def vietnamese() -> Iterator[None]:
    with use_audience(Audience(language="vi")):
        yield


SAID_BOTH_WAYS: list[tuple[Callable[..., str], tuple[Any, ...], str, str]] = [
    # (what writes it, its arguments, in English as callops always wrote, in Vietnamese)
    (number, (1234567,), "1,234,567", "1.234.567"),
    (number, (12.5,), "12.5", "12,5"),
    (percent, (12.5,), "12.5%", "12,5%"),
    (ratio_percent, (1, 8), "12.5%", "12,5%"),
    (signed_change, (112, 100), "▲ 12%", "▲ 12%"),
    (money, (1_500_000,), "₫1,500,000", "1.500.000\xa0₫"),
    (day_time, (THURSDAY,), "Thu 26 Nov 14:27", "Thứ Năm, 26/11 14:27"),
    (day, (THURSDAY,), "Thu 26 Nov", "Thứ Năm, 26/11"),
    (clock, (THURSDAY,), "14:27", "14:27"),
]


@pytest.mark.parametrize(("write", "args", "english", "vietnamese"), SAID_BOTH_WAYS)
def test_each_language_writes_figures_its_own_way(
    write: Callable[..., str], args: tuple[Any, ...], english: str, vietnamese: str
) -> None:
    assert write(*args) == english
    with use_audience(Audience(language="vi")):
        assert write(*args) == vietnamese


def test_english_is_written_as_it_always_was() -> None:
    assert number(3.0) == "3"
    assert duration(7620) == "2h 07m"
    assert duration(185) == "3m 05s"
    assert duration(3 * 86400 + 4 * 3600, one_call=True) == "3d 4h"
    assert duration(52 * 3600) == "52h 00m"  # a total is counted in hours
    assert day_time(THURSDAY, seconds=True) == "Thu 26 Nov 14:27:05"


@pytest.mark.usefixtures("vietnamese")
def test_vietnamese_groups_thousands_with_dots_and_decimals_with_a_comma() -> None:
    assert number(1234.5) == "1.234,5"
    assert percent(None) == "–"


@pytest.mark.usefixtures("vietnamese")
def test_vietnamese_names_the_weekday_and_writes_day_then_month() -> None:
    assert day_time(THURSDAY, seconds=True) == "Thứ Năm, 26/11 14:27:05"
    assert day(THURSDAY + timedelta(days=3)) == "Chủ nhật, 29/11"
    assert clock(THURSDAY) == "14:27"
    assert day_time(THURSDAY.astimezone(UTC), HCM) == "Thứ Năm, 26/11 14:27"
    assert when(THURSDAY, HCM, now=THURSDAY + timedelta(days=1)) == "Thứ Năm, 26/11 14:27"
    assert when(THURSDAY, HCM, now=THURSDAY) == "14:27"


@pytest.mark.usefixtures("vietnamese")
def test_a_window_over_two_days_is_written_with_vietnamese_days() -> None:
    start = datetime(2026, 11, 20, 18, 0, tzinfo=HCM)
    label = Window(start, start + timedelta(days=1)).label()
    assert label == "Thứ Sáu, 20/11 18:00 → Thứ Bảy, 21/11 18:00 giờ Việt Nam"


def test_the_languages_do_not_leak_into_each_other() -> None:
    with use_audience(Audience(language="vi")):
        assert number(1000) == "1.000"
    assert number(1000) == "1,000"
    assert day(THURSDAY) == "Thu 26 Nov"


def test_an_amount_on_an_autocall_card_is_also_shown_as_money() -> None:
    params = AutocallParams(
        campaign_uuid="c",
        campaign_name="Nhắc thanh toán",
        phone_number="0912345678",
        param={"amount": "1500000", "name": "An", "code": "1500000"},
    )
    with use_audience(Audience(language="vi")):
        card = describe_autocall(params)
    # Labels in the reader's language; a code is not written as money.
    assert "Số tiền: 1500000 (1.500.000\xa0₫)" in card and "Tên khách hàng: An" in card
    assert card.endswith("• Mã: 1500000") and "0912 345 678" in card


def test_weeks_and_months_in_a_table_follow_the_language() -> None:
    monday = datetime(2026, 11, 23, tzinfo=HCM)
    assert bucket_label(monday, "week", multi_day=True) == "wk 23 Nov"
    assert bucket_label(monday, "month", multi_day=True) == "Nov 2026"
    with use_audience(Audience(language="vi")):
        assert bucket_label(monday, "month", multi_day=True) == "11/2026"
        assert bucket_label(monday, "day", multi_day=True) == "Thứ Hai, 23/11"
        assert "23/11" in bucket_label(monday, "week", multi_day=True)


def test_a_campaign_s_status_and_mode_are_worded_through_the_catalog() -> None:
    assert status_label("start") == ":large_green_circle: running"
    assert status_word("pause") == "paused" and mode_label("parralel") == "parallel"
    assert status_label("odd") == "odd" and status_word("") == "unknown"


def test_vietnamese_durations_are_prose_without_padding_or_day_totals() -> None:
    with use_audience(Audience(language="vi")):
        assert duration(45 * 60) == "45 phút"
        assert duration(12 * 60 + 1) == "12 phút 1 giây"
        assert duration(52 * 3600) == "52 giờ"
        assert duration(2 * 3600 + 7 * 60) == "2 giờ 7 phút"
        assert duration(3 * 86400 + 4 * 3600, one_call=True) == "3 ngày 4 giờ"


def test_a_day_of_another_year_says_its_year_and_dates_are_never_iso() -> None:
    from commands.kernel.formats import write_date

    long_ago = datetime.now(HCM).replace(hour=9, minute=4) - timedelta(days=400)
    assert str(long_ago.year) in day_time(long_ago)
    assert str(datetime.now(HCM).year) not in day_time(datetime.now(HCM))
    with use_audience(Audience(language="vi")):
        assert f"/{long_ago.year} 09:04" in day_time(long_ago)
        assert write_date(datetime(2026, 12, 5).date()) == "05/12/2026"
    assert write_date(datetime(2026, 12, 5).date()) == "05 Dec 2026"
