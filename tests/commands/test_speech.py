"""An autocall's values read aloud as a Vietnamese speaker says them (spec §4.5)."""

from __future__ import annotations

import pytest

from callcenter.models import Template
from commands.calls.preview import preview, preview_mrkdwn
from commands.calls.speech import (
    NORTHERN,
    SOUTHERN,
    Rule,
    UnreadableValue,
    Voice,
    cardinal,
    placeholders,
    read_value,
    spoken,
)
from commands.kernel.i18n import use_language

NUMBERS = [
    (0, "không"),
    (1, "một"),
    (4, "bốn"),
    (5, "năm"),
    (10, "mười"),
    (11, "mười một"),
    (14, "mười bốn"),
    (15, "mười lăm"),
    (20, "hai mươi"),
    (21, "hai mươi mốt"),
    (24, "hai mươi bốn"),
    (25, "hai mươi lăm"),
    (31, "ba mươi mốt"),
    (55, "năm mươi lăm"),
    (99, "chín mươi chín"),
    (100, "một trăm"),
    (101, "một trăm lẻ một"),
    (104, "một trăm lẻ bốn"),
    (105, "một trăm lẻ năm"),
    (110, "một trăm mười"),
    (115, "một trăm mười lăm"),
    (121, "một trăm hai mươi mốt"),
    (1_000, "một nghìn"),
    (1_005, "một nghìn không trăm lẻ năm"),
    (1_050, "một nghìn không trăm năm mươi"),
    (1_100, "một nghìn một trăm"),
    (2_024, "hai nghìn không trăm hai mươi bốn"),
    (10_000, "mười nghìn"),
    (15_500, "mười lăm nghìn năm trăm"),
    (100_000, "một trăm nghìn"),
    (150_000, "một trăm năm mươi nghìn"),
    (1_000_000, "một triệu"),
    (1_000_005, "một triệu không trăm lẻ năm"),
    (1_005_000, "một triệu không trăm lẻ năm nghìn"),
    (1_500_000, "một triệu năm trăm nghìn"),
    (2_300_000, "hai triệu ba trăm nghìn"),
    (21_000_000, "hai mươi mốt triệu"),
    (1_000_000_000, "một tỷ"),
    (1_000_000_005, "một tỷ không trăm lẻ năm"),
    (15_000_000_000, "mười lăm tỷ"),
    (1_000_000_000_000, "một nghìn tỷ"),
]


@pytest.mark.parametrize(("value", "words"), NUMBERS)
def test_numbers_read_as_spoken(value: int, words: str) -> None:
    assert cardinal(value) == words


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (101, "một trăm linh một"),
        (2_005, "hai nghìn không trăm linh năm"),
        (24, "hai mươi tư"),
        (1_024, "một nghìn không trăm hai mươi tư"),
        (14, "mười bốn"),  # "tư" only after "mươi"
    ],
)
def test_northern_and_colloquial_forms(value: int, words: str) -> None:
    assert cardinal(value, Voice(zero_ten="linh", four_after_tens="tư")) == words


def test_forms_of_values_follow_the_service_rules() -> None:
    assert read_value("1500000").rule is Rule.AMOUNT
    assert read_value("1500000").words == "một triệu năm trăm nghìn"
    assert read_value("0 9 1 2").words == "không chín một hai"
    assert read_value("0 9 1 2").rule is Rule.DIGITS
    assert read_value("#12").words == "mười hai"
    assert read_value("#2,5").words == "hai phẩy năm"
    assert read_value("31/12/2026").words == (
        "ngày ba mươi mốt tháng mười hai năm hai nghìn không trăm hai mươi sáu"
    )
    assert read_value("2026-04-01").words == (
        "mùng một tháng tư năm hai nghìn không trăm hai mươi sáu"
    )
    assert read_value("Nguyễn Văn An").rule is Rule.AS_WRITTEN
    assert read_value("9:30").words == "9:30"


@pytest.mark.parametrize(
    ("value", "kind", "suggestion"),
    [
        ("31/02/2026", "bad_date", None),
        ("2026-13-01", "bad_date", None),
        ("32/1/2026", "bad_date", None),
        ("1.500.000", "separators", "1500000"),
        ("1,500,000", "separators", "1500000"),
        ("1 500 000", "separators", "1500000"),
        ("#", "empty_number", None),
        ("#abc", "empty_number", None),
        ("#1.000", "separators", "#1000"),
        ("#1.500.000", "separators", "#1500000"),
        ("2026/12/31", "date_format", "31/12/2026"),
        ("31-12-2026", "date_format", "31/12/2026"),
        ("   ", "empty", None),
    ],
)
def test_values_the_service_would_misread_are_refused(
    value: str, kind: str, suggestion: str | None
) -> None:
    with pytest.raises(UnreadableValue) as refused:
        read_value(value)
    assert refused.value.problem.kind == kind
    assert refused.value.problem.suggestion == suggestion


def test_template_content_with_its_values_read() -> None:
    content = "Chào {{name}}, bạn còn nợ {{ amount }} đồng, hạn {{due}}. {{name}} ơi."
    assert placeholders(content) == ["name", "amount", "due"]
    readings = {key: read_value(v) for key, v in {"name": "An", "amount": "250000"}.items()}
    assert spoken(content, readings) == (
        "Chào An, bạn còn nợ hai trăm năm mươi nghìn đồng, hạn {{due}}. An ơi."
    )


def test_a_decimal_part_is_said_as_a_number_unless_it_starts_with_zero() -> None:
    assert read_value("#10,25").words == "mười phẩy hai mươi lăm"
    assert read_value("#3,05").words == "ba phẩy không năm"


def test_days_one_to_ten_are_said_with_mung() -> None:
    assert read_value("05/05/2005", NORTHERN).words == (
        "mùng năm tháng năm năm hai nghìn không trăm linh năm"
    )
    assert read_value("11/01/2027").words.startswith("ngày mười một tháng một")


def test_each_region_reads_with_its_own_pair_of_words() -> None:
    assert cardinal(1001, NORTHERN) == "một nghìn không trăm linh một"
    assert cardinal(1001, SOUTHERN) == "một ngàn không trăm lẻ một"


def template(voice: str, content: str) -> Template:
    return Template(
        template_uuid="t-1", template_name="Nhắc nợ", voice_type="tts", voice_tts=voice,
        content=content,
    )  # fmt: skip


def test_the_preview_has_no_doubled_ngay_and_follows_the_voices_region() -> None:
    content = "Khoản vay {{amount}} đồng đến hạn ngày {{due_date}}."
    values = {"amount": "1001", "due_date": "05/12/2026"}
    south = preview(template("male_south", content), values)
    assert south.text == (
        "Khoản vay một ngàn không trăm lẻ một đồng đến hạn ngày mùng năm tháng mười hai "
        "năm hai ngàn không trăm hai mươi sáu."
    )
    north = preview(template("female_north", content), values)
    assert north.text is not None and "ngày ngày" not in north.text
    assert "một nghìn không trăm linh một" in north.text
    with use_language("vi"):
        said = preview_mrkdwn(south)
    assert "miền Nam (lẻ, ngàn)" in said and "giọng nam miền Nam" in said


def test_a_code_read_as_an_amount_is_warned_about() -> None:
    result = preview(template("female_north", "Mã OTP của bạn là {{otp}}."), {"otp": "123456"})
    assert len(result.warnings) == 1 and "`1 2 3 4 5 6`" in result.warnings[0]
    spaced = preview(template("female_north", "Mã {{otp}}."), {"otp": "1 2 3 4 5 6"})
    assert spaced.warnings == ()
