"""Values Slack sends back, read through typed models: what parses, and what is out of
date (forged, or made by an older version) with words for the person and none of the
forged value in the log line."""

from __future__ import annotations

import pytest

from commands.digests.content import read_full_report_value
from commands.kernel.paging import page_value, read_page_value
from commands.kernel.values import (
    FORM_OUT_OF_DATE,
    OUT_OF_DATE,
    STEP_INPUTS_WRONG,
    Metadata,
    OutOfDate,
    Token,
    command_text,
    read_metadata,
    read_step_inputs,
    token,
)


def test_a_page_value_round_trips_and_a_forged_one_is_out_of_date() -> None:
    assert read_page_value(page_value("campaigns autodialer", 20)) == ("campaigns autodialer", 20)
    for forged in ("", "not json", "[]", '{"offset": 1}', '{"command": "x", "offset": -1}'):
        with pytest.raises(OutOfDate) as caught:
            read_page_value(forged)
        assert caught.value.words == OUT_OF_DATE
    with pytest.raises(OutOfDate) as caught:
        read_page_value('{"command": "secret-ish", "offset": "x", "extra": 1}')
    assert "secret-ish" not in str(caught.value)


def test_a_full_report_value_needs_four_or_five_ordered_parts_of_this_century() -> None:
    from zoneinfo import ZoneInfo

    tz = ZoneInfo("Asia/Ho_Chi_Minh")
    digest, period = read_full_report_value("-|1700000000|1700086400|1699913600", tz)
    assert digest is None and period.end > period.start
    assert read_full_report_value("d1|1700000000|1700086400|1699913600|1700000000", tz)[0] == "d1"
    for forged in (
        "-|1700000000|1700086400",
        "-|1|2|3|4|5",
        "-|1700000000|99999999999999999999|1699913600",
        "-|1700086400|1700000000|1699913600",
        "-|0|1700000000|0",
        "a b|1700000000|1700086400|1699913600",
    ):
        with pytest.raises(OutOfDate):
            read_full_report_value(forged, tz)


def test_ids_and_commands() -> None:
    assert token("3c250fe1-52c5-4367-8300-fbff46c2a968") == "3c250fe1-52c5-4367-8300-fbff46c2a968"
    for forged in ("", "two words", "a|b", "x" * 201):
        with pytest.raises(OutOfDate):
            token(forged)
    assert command_text("start Telesale") == "start Telesale"
    with pytest.raises(OutOfDate):
        command_text("")


class FormMeta(Metadata):
    list_uuid: Token


def test_form_metadata_ignores_the_channel_and_refuses_what_is_missing() -> None:
    assert read_metadata(FormMeta, {"list_uuid": "L1", "channel": "C1"}).list_uuid == "L1"
    with pytest.raises(OutOfDate) as caught:
        read_metadata(FormMeta, {})
    assert caught.value.words == FORM_OUT_OF_DATE


def test_step_inputs_must_be_what_the_step_declares() -> None:
    declared = {"campaign": ("string", True), "values_object": ("object", False)}
    read_step_inputs("push", declared, {"campaign": "Telesale", "interactivity": {}})
    read_step_inputs("push", declared, {"campaign": "T", "values_object": {"a": 1}})
    for forged in (
        {},
        {"campaign": ["a"]},
        {"campaign": "T", "values_object": "not an object"},
    ):
        with pytest.raises(OutOfDate) as caught:
            read_step_inputs("push", declared, forged)
        assert caught.value.words == STEP_INPUTS_WRONG
