"""Listings that are tables by nature, as Slack's table block, within Slack's limits.

Slack's table block (messages only) holds at most 100 rows of at most 20 cells, each
cell ``raw_text`` (plain text, never read as mrkdwn, so nothing in it needs escaping
and nothing in it can ping anyone) or ``rich_text`` (used here for links); a message may
hold one table.  ``table`` returns None when the rows would not fit, and the caller
keeps its rows of sections: the listing still shows, the old way.  ``slack_sdk``'s
``TableBlock`` builds the block but checks none of those limits, so they are checked here,
and the block is built as the dict ``TableBlock`` becomes (``Prebuilt``): a page's table
is some seventy cells, and the object, built and then converted on every reply, cost
about 2 % of the CPU of ``/callops campaigns`` (``benchmarks/ack.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from slack_sdk.models.blocks import (
    Block,
    ButtonElement,
    RichTextBlock,
    RichTextElementParts,
    RichTextSectionElement,
)

from commands.kernel.block_dicts import block_dict
from commands.kernel.i18n import _
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
    """A ``raw_text`` cell, never empty (Slack refuses an empty one).  As the dict
    ``RawTextObject`` would become: a table holds dozens, and each object costs its
    construction and its conversion on every reply (``benchmarks/ack.py``)."""
    text = EMPTY if value is None or value == "" else unbidi(str(value))
    if len(text) > CELL_CHARS:
        text = text[: CELL_CHARS - 1] + "…"
    return {"text": text, "type": "raw_text"}


def _cell(value: Cell) -> dict[str, Any]:
    if isinstance(value, Link):
        if not value.url.lower().startswith(("http://", "https://")):
            return _text(None)
        return block_dict(
            RichTextBlock(
                elements=[
                    RichTextSectionElement(
                        elements=[RichTextElementParts.Link(url=value.url, text=value.label)]
                    )
                ]
            )
        )
    return _text(value)


def table(columns: Sequence[Column], rows: Sequence[Sequence[Cell]]) -> Prebuilt | None:
    """The rows under a header row of the column titles (English, marked ``N_``: shown in
    the reader's language), as ``TableBlock(rows=..., column_settings=...)`` becomes, or
    None when Slack would refuse the table (no rows, more than 99 rows, more than 20
    columns)."""
    if not fits(len(columns), len(rows)):
        return None
    if any(len(row) != len(columns) for row in rows):
        raise ValueError("every row needs one cell per column")
    header = [_text(_(c.title)) for c in columns]
    # The usual cell, a short text, is written in place; anything else goes to ``_cell``.
    body = [
        [
            {"text": value, "type": "raw_text"}
            if type(value) is str and 0 < len(value) <= CELL_CHARS and value.isascii()
            else _cell(value)
            for value in row
        ]
        for row in rows
    ]
    settings = [{"align": c.align} for c in columns]  # as TableBlockColumnSettings becomes
    return Prebuilt({"column_settings": settings, "rows": [header, *body], "type": "table"})


BUTTONS_PER_ROW = 5
"""Slack allows 25 elements in an actions block; five buttons make a row that reads."""


@dataclass(frozen=True)
class RowButton:
    """A button under a table, one per row of it (a cell holds no button): Open."""

    text: str
    action_id: str
    value: str


class Prebuilt(Block):
    """A block handed over as the dict Slack receives, built by this module within
    Slack's limits: a table, or a table's row buttons (ten ``ButtonElement`` objects per
    page, each with its text object: building and converting them cost about 3 % of the
    CPU of ``/callops campaigns``, ``benchmarks/ack.py``).  ``block_dict`` answers a
    class with its own ``to_dict`` by calling it."""

    def __init__(self, block: dict[str, Any]) -> None:
        super().__init__(type=block["type"], block_id=block.get("block_id"))
        self._block = block

    def to_dict(self, *args: Any) -> dict[str, Any]:
        return self._block


def row_buttons(block_id: str, buttons: Sequence[RowButton]) -> Prebuilt:
    """An actions block of buttons, as ``ActionsBlock(block_id=..., elements=[
    ButtonElement(text=..., action_id=..., value=...)])`` becomes, within the limits
    ``ButtonElement`` checks, except that a text longer than Slack's 75 characters is cut
    (``…``) instead of refused."""
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
        text = {"emoji": True, "text": cut, "type": "plain_text"}
        elements.append(
            {"action_id": b.action_id, "text": text, "type": "button", "value": b.value}
        )
    return Prebuilt({"block_id": block_id, "elements": elements, "type": "actions"})
