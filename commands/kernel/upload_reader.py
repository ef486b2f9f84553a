"""Reading a table file people shared for an upload (the do-not-call list, a lead list),
the one reader both uploads use, so a file is read the same wherever it is shared.

It reads what people save: UTF-8 with or without a byte-order mark, UTF-16 with one
(Excel's "Unicode text"), cells separated by ``,``, ``;`` or tabs (guessed from the first
line).  It loses nothing silently: every line is either a row or a `BadLine` with its
line number and the reason, and a line never takes others with it: one physical line is
one row, so a stray ``"`` that opens a cell and never closes it spoils that line alone
(the standard reader would run the cell on to the next quote, many lines later).  A line
longer than `MAX_LINE_CHARS` is reported and skipped without being held in memory.

A file that is not text at all (a spreadsheet, an image), or larger than
`MAX_UPLOAD_BYTES`, is refused whole with `UploadRefused`, in the same words for both
uploads.  The file is read as a stream: a registry file of millions of numbers costs no
more memory than one line.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import BinaryIO

from commands.kernel.errors import MessageError
from commands.kernel.formats import number
from commands.kernel.i18n import _

MAX_UPLOAD_BYTES = 256 * 1024 * 1024
"""The largest file either upload reads (256 MB: a national registry file of some ten
million numbers fits)."""
MAX_LINE_CHARS = 64 * 1024
"""The longest line read as a row; no phone number or lead field comes near it."""
SAMPLE_BYTES = 64 * 1024
"""What is looked at to tell text from a binary file and guess the separator."""
DELIMITERS = (",", ";", "\t")
_REPLACEMENT = "\ufffd"


class UploadRefused(MessageError):
    """The file cannot be read as a table at all (plain text, the person's language)."""


@dataclass(frozen=True)
class Row:
    """One line's cells, stripped of surrounding spaces."""

    line: int
    cells: list[str]


@dataclass(frozen=True)
class BadLine:
    """A line that could not be read as a row: where, why, and its start (for a file of
    rows to fix)."""

    line: int
    reason: str
    text: str


def megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.0f} MB"


def too_large(size: int | None = None, limit: int = MAX_UPLOAD_BYTES) -> UploadRefused:
    """The one answer for a file over the limit (``size`` when it is known)."""
    if size:
        return UploadRefused(
            _(
                "The file is {size}; at most {limit} can be uploaded. "
                "Split it and upload the parts."
            ).format(size=megabytes(size), limit=megabytes(limit))
        )
    return UploadRefused(
        _(
            "The file is over {limit}, the most that can be uploaded. "
            "Split it and upload the parts."
        ).format(limit=megabytes(limit))
    )


def check_size(size: int) -> None:
    """Refuse a file Slack says is over the limit before downloading any of it."""
    if size > MAX_UPLOAD_BYTES:
        raise too_large(size)


async def save_upload(
    chunks: AsyncIterator[bytes], out: BinaryIO, *, limit: int = MAX_UPLOAD_BYTES
) -> str:
    """Write a download to ``out`` chunk by chunk, stopping as soon as it passes
    ``limit`` (Slack's stated size may be wrong); returns its SHA-256 (hex)."""
    digest = hashlib.sha256()
    size = 0
    async for chunk in chunks:
        size += len(chunk)
        if size > limit:
            raise too_large(limit=limit)
        digest.update(chunk)
        out.write(chunk)
    out.flush()
    return digest.hexdigest()


def _not_text() -> UploadRefused:
    return UploadRefused(
        _(
            "The file is not a text table. Save it as CSV UTF-8 (or as Unicode text) and "
            "share that file."
        )
    )


def encoding_of(sample: bytes) -> str:
    """The encoding to read a file with, from its first bytes: a byte-order mark decides;
    without one the file must be UTF-8 (a NUL byte or a sequence that is not UTF-8 means
    a binary file or a legacy code page, both refused)."""
    if sample.startswith(codecs.BOM_UTF8):
        return "utf-8-sig"
    if sample.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return "utf-16"
    if b"\x00" in sample:
        raise _not_text()
    try:
        codecs.getincrementaldecoder("utf-8")().decode(sample, final=False)
    except UnicodeDecodeError:
        raise _not_text() from None
    return "utf-8"


def _guess_delimiter(line: str) -> str:
    """The separator of a file: whichever of ``,`` ``;`` tab its first line has most of,
    outside quotes (a one-column file has none: ``,``)."""
    counts = dict.fromkeys(DELIMITERS, 0)
    quoted = False
    for char in line:
        if char == '"':
            quoted = not quoted
        elif not quoted and char in counts:
            counts[char] += 1
    best = max(DELIMITERS, key=lambda d: counts[d])
    return best if counts[best] else ","


def _split(text: str, delimiter: str) -> list[str] | str:
    """The cells of one line, or why it cannot be read.  A quote inside a cell that does
    not start with one is a letter (``5" screen``), as spreadsheets write it."""
    try:
        cells = next(csv.reader([text], delimiter=delimiter, strict=True), [])
    except csv.Error as exc:
        if "end of data" in str(exc):  # the line ended inside a quoted cell
            return _('A quote (") opens a cell that does not close on this line.')
        return _('A quote (") in a cell is not written as two quotes ("").')
    return [cell.strip() for cell in cells]


def _lines(text: io.TextIOBase) -> Iterator[tuple[str, bool]]:
    """Physical lines without their ending, each with whether it fit in
    `MAX_LINE_CHARS` (the rest of a longer one is read and dropped)."""
    while True:
        piece = text.readline(MAX_LINE_CHARS + 1)
        if not piece:
            return
        if len(piece) <= MAX_LINE_CHARS or piece.endswith(("\n", "\r")):
            yield piece.rstrip("\r\n"), True
            continue
        while piece and not piece.endswith(("\n", "\r")):
            piece = text.readline(MAX_LINE_CHARS)
        yield "", False


def read_rows(source: BinaryIO) -> Iterator[Row | BadLine]:
    """Every non-blank line of ``source`` as a `Row` or a `BadLine`, in file order, line
    numbers counted from 1 as an editor shows them.  Raises `UploadRefused` before the
    first row for a file that is not text."""
    sample = source.read(SAMPLE_BYTES)
    encoding = encoding_of(sample)
    source.seek(0)
    text = io.TextIOWrapper(source, encoding=encoding, errors="replace", newline="")
    try:
        delimiter: str | None = None
        for line, (content, fits) in enumerate(_lines(text), start=1):
            if not fits:
                yield BadLine(
                    line,
                    _("The line is longer than {n} characters.").format(n=number(MAX_LINE_CHARS)),
                    "",
                )
                continue
            if not content.strip():
                continue
            if _REPLACEMENT in content:
                yield BadLine(line, _("The line has bytes that are not text."), content[:200])
                continue
            if delimiter is None:
                delimiter = _guess_delimiter(content)
            cells = _split(content, delimiter)
            if isinstance(cells, str):
                yield BadLine(line, cells, content[:200])
            else:
                yield Row(line, cells)
    finally:
        # Hand the caller's file back open; a reader left unfinished may be collected
        # after the caller closed it, when there is nothing left to hand back.
        if not source.closed:
            text.detach()
