"""Reading the national registry's file: each number with its registration date where the
row has one, whatever the column order and the date's spelling."""

from __future__ import annotations

from pathlib import Path

from commands.rules.dnc import FileCount, registration_date, registry_entries


def test_dates_are_read_as_the_registry_writes_them() -> None:
    assert registration_date("31/12/2025") == "2025-12-31"
    assert registration_date("1/2/2025 08:30") == "2025-02-01"
    assert registration_date("2025-03-04") == "2025-03-04"
    assert registration_date("05-06-2025") == "2025-06-05"
    assert registration_date("31/02/2025") is None  # no such day
    assert registration_date("0912345678") is None


def test_each_number_comes_with_its_date_in_any_column(tmp_path: Path) -> None:
    path = tmp_path / "registry.csv"
    path.write_text(
        "ngay_dang_ky,so_dien_thoai\n"
        "01/03/2025,0912 345 678\n"
        ",+84 987 654 321\n"
        "không phải số,\n"
        "\n"
        "0356789012,2025-01-05\n",
        encoding="utf-8",
    )
    count = FileCount()
    assert list(registry_entries(path, count)) == [
        ("0912345678", "2025-03-01"),
        ("0987654321", None),
        ("0356789012", "2025-01-05"),
    ]
    assert (count.numbers, count.dated, count.skipped) == (3, 2, 1)
