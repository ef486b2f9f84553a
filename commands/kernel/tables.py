"""Listings that are tables by nature, as Slack's table block, within Slack's limits.

Slack's table block (messages only) holds at most 100 rows of at most 20 cells, each
cell ``raw_text`` (plain text, never read as mrkdwn, so nothing in it needs escaping
and nothing in it can ping anyone) or ``rich_text`` (used here for links); a message may
hold one table.  ``table`` returns None when the rows would not fit, and the caller
keeps its rows of sections: the listing still shows, the old way.  ``slack_sdk``'s
``TableBlock`` builds the block but checks none of those limits, so they are checked here.
Its cells and column settings are given as the JSON Slack reads, which ``TableBlock``
takes as well as its objects: a table holds dozens of cells, and an object would be
validated again each time a reply becomes JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    RichTextBlock,
    RichTextElementParts,
    RichTextSectionElement,
    TableBlock,
)

from commands.kernel.i18n import Language, _, current_language
from commands.kernel.reply import once
from commands.kernel.text import truncate, unbidi

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
    """A ``raw_text`` cell, never empty (Slack refuses an empty one)."""
    text = EMPTY if value is None or value == "" else unbidi(str(value))
    if len(text) > CELL_CHARS:
        text = text[: CELL_CHARS - 1] + "…"
    return {"type": "raw_text", "text": text}


def _cell(value: Cell) -> dict[str, Any]:
    if isinstance(value, Link):
        if not value.url.lower().startswith(("http://", "https://")):
            return _text(None)
        link = RichTextElementParts.Link(url=value.url, text=value.label)
        return RichTextBlock(elements=[RichTextSectionElement(elements=[link])]).to_dict()
    return _text(value)


def table(columns: Sequence[Column], rows: Sequence[Sequence[Cell]]) -> TableBlock | None:
    """The rows under a header row of the column titles (English, marked ``N_``: shown in
    the reader's language), or None when Slack would refuse the table (no rows, more than
    99 rows, more than 20 columns)."""
    if not fits(len(columns), len(rows)):
        return None
    if any(len(row) != len(columns) for row in rows):
        raise ValueError("every row needs one cell per column")
    return _table(tuple(columns), tuple(tuple(row) for row in rows), current_language())


@lru_cache(maxsize=256)
def _table(
    columns: tuple[Column, ...], rows: tuple[tuple[Cell, ...], ...], language: Language
) -> TableBlock:
    """The same rows make the same block, built once (``reply.once``): never change it.
    ``language`` is the reader's (the one ``_`` uses): part of the cache's key."""
    header = [_text(_(c.title)) for c in columns]
    return once(
        TableBlock(
            rows=[header, *([_cell(value) for value in row] for row in rows)],
            column_settings=[{"align": c.align} for c in columns],
        )
    )


BUTTONS_PER_ROW = 5
"""Slack allows 25 elements in an actions block; five buttons make a row that reads."""


@dataclass(frozen=True)
class RowButton:
    """A button under a table, one per row of it (a cell holds no button): Open."""

    text: str
    action_id: str
    value: str


def row_buttons(block_id: str, buttons: Sequence[RowButton]) -> ActionsBlock:
    """An actions block of buttons, within the limits ``ButtonElement`` checks, except that
    a text longer than Slack's 75 characters is cut (``…``) instead of refused.  The same
    buttons make the same block, built once (``reply.once``: a listing shows the same rows
    to everyone who asks): never change it."""
    return _row_buttons(block_id, tuple(buttons))


@lru_cache(maxsize=512)
def _row_buttons(block_id: str, buttons: tuple[RowButton, ...]) -> ActionsBlock:
    if not 0 < len(buttons) <= BUTTONS_PER_ROW:
        raise ValueError(f"a row holds 1 to {BUTTONS_PER_ROW} buttons")
    elements = []
    for b in buttons:
        if (
            len(b.action_id) > ButtonElement.action_id_max_length
            or len(b.value) > ButtonElement.value_max_length
        ):
            raise ValueError("a button's action id or value is longer than Slack allows")
        cut = truncate(unbidi(b.text), ButtonElement.text_max_length)
        elements.append(ButtonElement(text=cut, action_id=b.action_id, value=b.value))
    return once(ActionsBlock(block_id=block_id, elements=elements))
