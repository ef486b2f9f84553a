"""The lead CSV check: every kind of bad row found with its line number, good rows written
as the service expects them, and the file read as a stream."""

from __future__ import annotations

import csv
import io

import pytest

from commands.kernel.phones import normalize_phone, phone_problem
from commands.leads.csv_check import CsvFormatError, CsvReport, check_leads_csv
from commands.leads.upload import reason_words


def check(text: str, blocked: frozenset[str] = frozenset()) -> tuple[CsvReport, str, str]:
    good, bad = io.StringIO(), io.StringIO()
    report = check_leads_csv(
        io.BytesIO(text.encode("utf-8")), blocked, valid_out=good, invalid_out=bad
    )
    return report, good.getvalue(), bad.getvalue()


def test_each_kind_of_bad_row_is_named_with_its_line() -> None:
    text = (
        "\ufeffPhone_Number , Lead_Name\n"
        "0912345678,An\n"
        "0912 345 678,Again\n"
        "12345,Short\n"
        ",Nobody\n"
        "0815447340,Blocked\n"
        "0987654321\n"
        "\n"
        '"0356789012","Chi, with a comma"\n'
    )
    report, good, bad = check(text, frozenset({"0815447340"}))
    assert report.header == ["phone_number", "lead_name"]
    assert (report.rows, report.valid, report.invalid) == (7, 2, 5)
    problems = [(p.line, p.reason) for p in report.problems]
    assert problems == [
        (3, "0912 345 678 is already on line 2."),
        (4, "12345 is not a phone number the service accepts."),
        (5, "It has no phone number."),
        (6, "0815 447 340 is on the blacklist."),
        (7, "It has 1 column; the header has 2."),
    ]
    assert dict(report.reasons) == {
        "duplicate": 1,
        "pattern": 1,
        "missing": 1,
        "blacklisted": 1,
        "columns": 1,
    }
    assert list(csv.reader(io.StringIO(good))) == [
        ["phone_number", "lead_name"],
        ["0912345678", "An"],
        ["0356789012", "Chi, with a comma"],
    ]
    rows = list(csv.reader(io.StringIO(bad)))
    assert rows[0] == ["line", "problem", "phone_number", "lead_name"]
    assert rows[1] == ["3", "0912 345 678 is already on line 2.", "0912 345 678", "Again"]
    assert len(rows) == 6


def test_a_file_without_a_phone_column_or_not_utf8_is_refused_whole() -> None:
    with pytest.raises(CsvFormatError, match="no phone_number column"):
        check("name,city\nAn,Hue\n")
    with pytest.raises(CsvFormatError, match="empty"):
        check("")
    with pytest.raises(CsvFormatError, match="UTF-8"):
        check_leads_csv(io.BytesIO("phone_number\n09\xe912\n".encode("latin-1")), frozenset())


def test_only_the_first_problems_are_kept_in_memory() -> None:
    text = "phone_number\n" + "".join(f"bad{i}\n" for i in range(500))
    report, _, bad = check(text)
    assert report.invalid == 500
    assert len(report.problems) == 10
    assert len(bad.splitlines()) == 501


@pytest.mark.parametrize(
    ("typed", "normal"),
    [
        ("0912 345 678", "0912345678"),
        ("091-234-5678", "0912345678"),
        ("(091) 234.5678", "0912345678"),
        ("+84 35 678 9013", "0356789013"),
        ("84912345678", "0912345678"),
    ],
)
def test_numbers_are_normalized_the_way_people_type_them(typed: str, normal: str) -> None:
    assert normalize_phone(typed) == normal


def test_phone_problems_use_the_service_rule() -> None:
    assert phone_problem("0912345678") is None
    assert phone_problem("8412345678") is None
    assert phone_problem("") == "The phone number is missing."
    assert "not a phone number" in (phone_problem("0212345678") or "")


def test_the_reasons_rows_were_left_out_read_as_words_with_plurals() -> None:
    assert reason_words("missing", 1) == "1 row without a number"
    assert reason_words("missing", 2) == "2 rows without a number"
    assert reason_words("duplicate", 3) == "3 numbers given twice"
    assert reason_words("columns", 1) == "1 row with the wrong number of columns"
    assert reason_words("pattern", 2) == "2 numbers the service does not accept"
