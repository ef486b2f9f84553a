"""Checking a CSV of leads row by row, as a stream: nothing but the phone numbers seen so
far (for duplicates) is kept in memory, so a 100,000-row file costs a few megabytes.

Each data row is checked for what the service or the call center would refuse: a
missing or malformed number (the service's own pattern), the same number earlier in the
file, a blacklisted number, a row whose columns do not match the header.  Good rows go
to one CSV (the file that is uploaded), bad rows to another with their line number and
the problem (the file the requester downloads to fix them).
"""

from __future__ import annotations

import csv
from collections import Counter
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO, TextIO

from commands.kernel.errors import MessageError
from commands.kernel.i18n import _, ngettext, pgettext
from commands.kernel.phones import normalize_phone, phone_problem, show_phone
from commands.kernel.text import number
from commands.kernel.upload_reader import BadLine, Row, UploadRefused, read_rows

PHONE_COLUMN = "phone_number"
MAX_PROBLEMS = 10
"""Problems listed in the summary; every one is in the invalid-rows file."""


class CsvFormatError(MessageError):
    """The file cannot be read as a lead CSV at all (plain-text reason)."""


@dataclass(frozen=True)
class RowProblem:
    line: int
    phone: str
    reason: str


@dataclass
class CsvReport:
    header: list[str] = field(default_factory=list)
    rows: int = 0
    valid: int = 0
    problems: list[RowProblem] = field(default_factory=list)
    """The first ``MAX_PROBLEMS`` problems, in file order."""
    reasons: Counter[str] = field(default_factory=Counter)
    """How many rows failed for each kind of reason."""

    @property
    def invalid(self) -> int:
        return self.rows - self.valid


def _header(row: list[str]) -> list[str]:
    return [name.strip().lower() for name in row]


def check_leads_csv(
    source: BinaryIO,
    blocked: Collection[str],
    *,
    dnc: Collection[str] = frozenset(),
    valid_out: TextIO | None = None,
    invalid_out: TextIO | None = None,
) -> CsvReport:
    """Check every row of ``source`` (read by `commands.kernel.upload_reader`: a header
    with ``phone_number``, then one lead a line); ``dnc`` holds the numbers of the file
    that are on the do-not-call list."""
    try:
        return _check(read_rows(source), blocked, dnc, valid_out, invalid_out)
    except UploadRefused as exc:
        raise CsvFormatError(exc.message) from None


def _check(
    rows: Iterator[Row | BadLine],
    blocked: Collection[str],
    dnc: Collection[str],
    valid_out: TextIO | None,
    invalid_out: TextIO | None,
) -> CsvReport:
    report = CsvReport()
    first = next(rows, None)
    if first is None:
        raise CsvFormatError(_("The file is empty."))
    if isinstance(first, BadLine):
        raise CsvFormatError(
            _("Line {line} (the header): {reason}").format(line=first.line, reason=first.reason)
        )
    report.header = _header(first.cells)
    if PHONE_COLUMN not in report.header:
        raise CsvFormatError(
            _("The file has no {column} column (its columns: {columns}).").format(
                column=PHONE_COLUMN, columns=", ".join(report.header[:12]) or _("none")
            )
        )
    phone_at = report.header.index(PHONE_COLUMN)
    width = len(report.header)
    good = csv.writer(valid_out, lineterminator="\n") if valid_out is not None else None
    bad = csv.writer(invalid_out, lineterminator="\n") if invalid_out is not None else None
    if good is not None:
        good.writerow(report.header)
    if bad is not None:
        # The two columns of ours are in the reader's language; the file's own stay.
        line_column = pgettext("CSV column: the row's line number in the file", "line")
        problem_column = pgettext("CSV column: what is wrong with the row", "problem")
        bad.writerow([line_column, problem_column, *report.header])
    seen: dict[str, int] = {}
    for item in rows:
        report.rows += 1
        line = item.line
        if isinstance(item, BadLine):
            report.reasons["unreadable"] += 1
            if len(report.problems) < MAX_PROBLEMS:
                report.problems.append(RowProblem(line, "", item.reason))
            if bad is not None:
                bad.writerow([line, item.reason, item.text])
            continue
        row = item.cells
        phone = normalize_phone(row[phone_at]) if phone_at < len(row) else ""
        reason, kind = _problem(row, width, phone, seen, blocked, dnc)
        if reason is None:
            seen[phone] = line
            report.valid += 1
            if good is not None:
                cells = list(row)
                cells[phone_at] = phone
                good.writerow(cells)
            continue
        report.reasons[kind] += 1
        if len(report.problems) < MAX_PROBLEMS:
            report.problems.append(RowProblem(line, phone[:40], reason))
        if bad is not None:
            bad.writerow([line, reason, *row])
    return report


def _problem(
    row: list[str],
    width: int,
    phone: str,
    seen: dict[str, int],
    blocked: Collection[str],
    dnc: Collection[str],
) -> tuple[str | None, str]:
    if len(row) != width:
        columns = ngettext(
            "It has {n} column; the header has {width}.",
            "It has {n} columns; the header has {width}.",
            len(row),
        )
        return columns.format(n=number(len(row)), width=width), "columns"
    if not phone:
        return _("It has no phone number."), "missing"
    if phone_problem(phone):
        return _("{phone} is not a phone number the service accepts.").format(
            phone=phone[:40]
        ), "pattern"
    if phone in seen:
        return _("{phone} is already on line {line}.").format(
            phone=show_phone(phone), line=seen[phone]
        ), "duplicate"
    if phone in blocked:
        return _("{phone} is on the blacklist.").format(phone=show_phone(phone)), "blacklisted"
    if phone in dnc:
        return _("{phone} is on the do-not-call list.").format(phone=show_phone(phone)), "dnc"
    return None, ""


def phones_in(source: BinaryIO) -> list[str]:
    """Every number of a lead CSV's ``phone_number`` column, normalised (a first pass, to
    look them up on the do-not-call list in batches); [] for a file the check refuses."""
    try:
        rows = read_rows(source)
        first = next(rows, None)
        if not isinstance(first, Row):
            return []
        header = _header(first.cells)
        if PHONE_COLUMN not in header:
            return []
        at = header.index(PHONE_COLUMN)
        return [
            normalize_phone(row.cells[at])
            for row in rows
            if isinstance(row, Row) and at < len(row.cells) and row.cells[at]
        ]
    except UploadRefused:
        return []
