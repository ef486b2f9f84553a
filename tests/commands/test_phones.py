"""Customer numbers as people write them: one parser for every way of typing a
Vietnamese mobile number, refusals that name the service's rule, and one way of showing
a number (grouped, masked where many read)."""

from __future__ import annotations

import pytest

from callcenter.rules import is_valid_phone
from commands.kernel.grammar import split_options
from commands.kernel.i18n import Audience, use_audience
from commands.kernel.phones import (
    find_phones,
    normalize_phone,
    parse_phone,
    phone_problem,
    record_number,
    show_phone,
)
from commands.kernel.resolve import is_phone_like

RULE = "10 digits starting 03, 05, 07, 08 or 09, or 84 followed by 8 digits or more"


@pytest.mark.parametrize(
    "typed",
    [
        "0912345678",
        "0912 345 678",
        "0912.345.678",
        "0912-345-678",
        "(091) 234-5678",
        "+84912345678",
        "+84 912 345 678",
        "+84 (912) 345-678",
        "84912345678",
        "84 912 345 678",
        "0084 912 345 678",
        " 0912345678 ",
    ],
)
def test_every_way_of_writing_a_mobile_number_reads_as_the_national_form(typed: str) -> None:
    assert parse_phone(typed) == "0912345678"
    assert normalize_phone(typed) == "0912345678"
    assert is_valid_phone(normalize_phone(typed)), "the form the service's rule accepts"
    assert phone_problem(normalize_phone(typed)) is None


@pytest.mark.parametrize(
    ("typed", "why"),
    [
        ("12345", "'12345' is not a phone number the service accepts"),
        ("0123456789", "'0123456789' is not a phone number the service accepts"),
        ("+1 212 555 0100", "is not a phone number the service accepts"),
        ("091234567", "'091234567' is not a phone number the service accepts"),
        ("09123456789", "'09123456789' is not a phone number the service accepts"),
        ("abc", "'abc' is not a phone number the service accepts"),
        ("024 3823 4567", "'02438234567' is a landline number; the service calls only mobile"),
        ("+84 28 7300 8888", "'02873008888' is a landline number"),
    ],
)
def test_what_is_no_mobile_number_is_refused_naming_the_rule(typed: str, why: str) -> None:
    assert parse_phone(typed) is None
    problem = phone_problem(normalize_phone(typed))
    assert problem is not None
    assert why in problem and f"({RULE})" in problem


def test_a_missing_number_says_so() -> None:
    assert phone_problem("") == "The phone number is missing."
    assert parse_phone("  ") is None


def test_the_service_rule_s_short_international_form_stays_as_the_service_takes_it() -> None:
    assert parse_phone("8412345678") == "8412345678"


def test_call_records_are_searched_by_any_vietnamese_number_in_national_form() -> None:
    assert record_number("+84 912 345 678") == "0912345678"
    assert record_number("(028) 7300 8888") == "02873008888"
    assert record_number("1900 6868") == "19006868"
    assert show_phone("19006868") == "1900 6868"
    assert record_number("+1 212 555 0100") is None
    assert record_number("1001") is None


@pytest.mark.parametrize(
    ("stored", "grouped", "masked"),
    [
        ("0912345678", "0912 345 678", "0912 *** 678"),
        ("0356789013", "0356 789 013", "0356 *** 013"),
        ("+84912345678", "0912 345 678", "0912 *** 678"),
        ("02873008888", "028 7300 8888", "028 *** 8888"),
        ("1001", "1001", "1001"),
        ("", "", ""),
    ],
)
def test_a_number_is_shown_grouped_and_masked_for_a_wide_audience(
    stored: str, grouped: str, masked: str
) -> None:
    assert show_phone(stored) == grouped
    with use_audience(Audience(mask_phones=True)):
        assert show_phone(stored) == masked
    assert show_phone(stored, mask=True) == masked


def test_a_number_found_in_a_message_is_read_the_same_way() -> None:
    text = "Khách gọi lại số +84 912 345 678 hoặc 0987.654.321, không gọi 024 3823 4567"
    assert find_phones(text) == ["0912345678", "0987654321"]


def test_numbers_in_a_message_are_found_by_the_service_s_rule_not_the_numbering_plan() -> None:
    # An extension is no part of the number dialled; 0992 is no carrier's yet but the
    # service accepts it; 8 digits are not a Vietnamese mobile number with 84 left out.
    text = "0912345678 ext. 12, 0987.654.321#3; 0992 012 117 và 12066183"
    assert find_phones(text) == ["0912345678", "0987654321", "0992012117"]


def test_the_refusal_is_in_the_reader_s_language() -> None:
    with use_audience(Audience(language="vi")):
        problem = phone_problem("12345")
    assert problem is not None and "12345" in problem


def test_a_phone_value_runs_over_its_spaced_groups_and_no_further() -> None:
    words = ["phone=+84", "912", "345", "678", "Summer", "status=busy"]
    positional, options = split_options(words, numbers=("phone",))
    assert options == {"phone": "+84 912 345 678", "status": "busy"}
    assert positional == ["Summer"]


def test_a_country_code_begins_a_number_after_a_campaign_name() -> None:
    assert is_phone_like("+84") and is_phone_like("0912")
    assert not is_phone_like("2") and not is_phone_like("+")
