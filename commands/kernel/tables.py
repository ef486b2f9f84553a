"""Listings that are tables by nature, as Slack's table block, within Slack's limits.

Slack's table block (messages only) holds at most 100 rows of at most 20 cells, each
cell ``raw_text`` (plain text, never read as mrkdwn, so nothing in it needs escaping
and nothing in it can ping anyone) or ``rich_text`` (used here for links); a message may
hold one table.  ``table`` returns None when the rows would not fit, and the caller
keeps its rows of sections: the listing still shows, the old way.  ``slack_sdk``'s
``TableBlock`` builds the block but checks none of those limits, so they are checked here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from slack_sdk.models.blocks import (
    RichTextBlock,
    RichTextElementParts,
    RichTextSectionElement,
    TableBlock,
    TableBlockColumnSettings,
)

MAX_ROWS = 100
"""Rows per table block, the header row included."""
MAX_COLUMNS = 20
CELL_CHARS = 300
"""A cell is clipped to this; a listing's cell is a name or a figure, not prose."""
EMPTY = "–"

Align = Literal["left", "center", "right"]


@dataclass(frozen=True)
class Column:
    title: str
    align: Align = "left"


@dataclass(frozen=True)
class Link:
    """A cell that is a link (a call's recording)."""

    url: str
    label: str


Cell = str | int | Link | None


def fits(columns: int, rows: int) -> bool:
    """Whether ``rows`` rows (without the header) of ``columns`` cells make one table."""
    return 0 < columns <= MAX_COLUMNS and rows > 0 and rows + 1 <= MAX_ROWS


def _text(value: str | int | None) -> dict[str, Any]:
    """A ``raw_text`` cell, never empty (Slack refuses an empty one).  As the dict
    ``RawTextObject`` would become: a table holds dozens, and each object costs its
    construction and its conversion on every reply (``benchmarks/ack.py``)."""
    text = EMPTY if value is None or value == "" else str(value)
    if len(text) > CELL_CHARS:
        text = text[: CELL_CHARS - 1] + "…"
    return {"text": text, "type": "raw_text"}


def _cell(value: Cell) -> dict[str, Any] | RichTextBlock:
    if isinstance(value, Link):
        if not value.url.lower().startswith(("http://", "https://")):
            return _text(None)
        return RichTextBlock(
            elements=[
                RichTextSectionElement(
                    elements=[RichTextElementParts.Link(url=value.url, text=value.label)]
                )
            ]
        )
    return _text(value)


def table(columns: Sequence[Column], rows: Sequence[Sequence[Cell]]) -> TableBlock | None:
    """The rows under a header row of the column titles, or None when Slack would refuse
    the table (no rows, more than 99 rows, more than 20 columns)."""
    if not fits(len(columns), len(rows)):
        return None
    if any(len(row) != len(columns) for row in rows):
        raise ValueError("every row needs one cell per column")
    header = [_text(c.title) for c in columns]
    # The usual cell, a short text, is written in place; anything else goes to ``_cell``.
    body = [
        [
            {"text": value, "type": "raw_text"}
            if type(value) is str and 0 < len(value) <= CELL_CHARS
            else _cell(value)
            for value in row
        ]
        for row in rows
    ]
    return TableBlock(rows=[header, *body], column_settings=_settings(tuple(columns)))


@lru_cache(maxsize=64)
def _settings(columns: tuple[Column, ...]) -> list[TableBlockColumnSettings]:
    """The column settings of a table's columns, built once per set of columns (a
    listing's columns are a constant; nothing changes these objects once built)."""
    return [TableBlockColumnSettings(align=c.align) for c in columns]
