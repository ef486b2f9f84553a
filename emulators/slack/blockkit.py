"""Block Kit checks the way Slack applies them, built on ``slack_sdk.models``.

Each block goes through ``Block.parse`` (None means Slack would not know the type) and
``to_dict()`` (raises when a Slack limit is broken); views also go through ``View``. A few
rules Slack enforces that the models do not (unique block_id/action_id, a section needs
text or fields, the per-surface block count) are checked here too. Problems are phrased
like Slack's ``errors`` entries, ending in a JSON pointer.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from typing import Any

from slack_sdk.models.blocks import Block, BlockElement
from slack_sdk.models.views import View

from emulators.slack import dataviz

MESSAGE_BLOCK_LIMIT = 50
VIEW_BLOCK_LIMIT = 100
TEXT_LIMIT = 40_000
TABLE_ROW_LIMIT = 100
TABLE_CELL_LIMIT = 20
"""Slack's table block: at most 100 rows of at most 20 cells, ``column_settings`` at most
20 items, cells ``raw_text`` or ``rich_text``, one table per message, messages only."""
TABLE_ALIGNS = ("left", "center", "right")

# Where elements live inside a block, and whether the slot holds a list.
_ELEMENT_SLOTS: dict[str, tuple[str, bool]] = {
    "section": ("accessory", False),
    "actions": ("elements", True),
    "input": ("element", False),
    "context": ("elements", True),
}


def _describe(exc: Exception) -> str:
    return str(exc) or type(exc).__name__


def check_blocks(
    blocks: Any, *, limit: int, pointer: str = "/blocks", in_view: bool = False
) -> list[str]:
    """Every problem Slack would report for this ``blocks`` array (empty list: valid)."""
    if blocks is None:
        return []
    if not isinstance(blocks, list):
        return [f"must provide an array [json-pointer:{pointer}]"]
    problems: list[str] = []
    if len(blocks) > limit:
        problems.append(f"no more than {limit} items allowed [json-pointer:{pointer}]")
    problems.extend(_table_placement(blocks, pointer, in_view))
    problems.extend(_chart_placement(blocks, pointer, in_view))
    seen_block_ids: set[str] = set()
    seen_action_ids: set[str] = set()
    for index, raw in enumerate(blocks):
        where = f"{pointer}/{index}"
        if not isinstance(raw, dict):
            problems.append(f"must provide an object [json-pointer:{where}]")
            continue
        problems.extend(_check_one_block(raw, where))
        block_id = raw.get("block_id")
        if isinstance(block_id, str):
            if block_id in seen_block_ids:
                problems.append(f"duplicate block_id {block_id!r} [json-pointer:{where}/block_id]")
            seen_block_ids.add(block_id)
        for sub, element in _raw_elements(raw):
            action_id = element.get("action_id")
            if isinstance(action_id, str):
                if action_id in seen_action_ids:
                    problems.append(
                        f"duplicate action_id {action_id!r} [json-pointer:{where}{sub}/action_id]"
                    )
                seen_action_ids.add(action_id)
    return problems


def _check_one_block(raw: dict[str, Any], where: str) -> list[str]:
    if raw.get("type") == dataviz.TYPE:  # not modelled by slack_sdk
        return dataviz.check_data_visualization(raw, where)
    try:
        parsed = Block.parse(copy.deepcopy(raw))
    except Exception as exc:
        return [f"{_describe(exc)} [json-pointer:{where}]"]
    if parsed is None:
        return [f"unsupported type {raw.get('type')!r} [json-pointer:{where}/type]"]
    if raw.get("type") == "table":
        return check_table(raw, where)
    problems: list[str] = []
    for sub, element in _raw_elements(raw):
        try:
            known = BlockElement.parse(copy.deepcopy(element))
        except Exception as exc:
            problems.append(f"{_describe(exc)} [json-pointer:{where}{sub}]")
            continue
        if known is None:
            problems.append(
                f"unsupported element type {element.get('type')!r} [json-pointer:{where}{sub}]"
            )
    if problems:
        return problems
    try:
        parsed.to_dict()
    except Exception as exc:
        return [f"{_describe(exc)} [json-pointer:{where}]"]
    kind = raw.get("type")
    if kind == "section" and not raw.get("text") and not raw.get("fields"):
        problems.append(f"must provide text or fields [json-pointer:{where}]")
    if kind == "header" and not raw.get("text"):
        problems.append(f"missing required field: text [json-pointer:{where}]")
    if kind == "input" and not raw.get("label"):
        problems.append(f"missing required field: label [json-pointer:{where}]")
    for sub, element in _raw_elements(raw):
        if element.get("type") == "button" and not element.get("text"):
            problems.append(f"missing required field: text [json-pointer:{where}{sub}]")
    return problems


def _table_placement(blocks: list[Any], pointer: str, in_view: bool) -> list[str]:
    """A table goes in a message, one per message."""
    tables = [i for i, b in enumerate(blocks) if isinstance(b, dict) and b.get("type") == "table"]
    if in_view:
        return [
            f"table blocks can only be used in messages [json-pointer:{pointer}/{i}/type]"
            for i in tables
        ]
    return [
        f"only one table block is allowed per message [json-pointer:{pointer}/{i}]"
        for i in tables[1:]
    ]


def _chart_placement(blocks: list[Any], pointer: str, in_view: bool) -> list[str]:
    """A ``data_visualization`` block goes in a message, at most two per message."""
    charts = [
        i for i, b in enumerate(blocks) if isinstance(b, dict) and b.get("type") == dataviz.TYPE
    ]
    if in_view:
        return [
            f"data_visualization blocks can only be used in messages "
            f"[json-pointer:{pointer}/{i}/type]"
            for i in charts
        ]
    return [
        f"no more than {dataviz.PER_MESSAGE_MAX} data_visualization blocks are allowed "
        f"per message [json-pointer:{pointer}/{i}]"
        for i in charts[dataviz.PER_MESSAGE_MAX :]
    ]


def check_table(raw: dict[str, Any], where: str) -> list[str]:
    """The table block's own rules, which ``slack_sdk``'s ``TableBlock`` does not check."""
    rows = raw.get("rows")
    if not isinstance(rows, list) or not rows:
        return [f"must provide a non-empty array [json-pointer:{where}/rows]"]
    problems: list[str] = []
    if len(rows) > TABLE_ROW_LIMIT:
        problems.append(f"no more than {TABLE_ROW_LIMIT} items allowed [json-pointer:{where}/rows]")
    for r, row in enumerate(rows):
        at = f"{where}/rows/{r}"
        if not isinstance(row, list) or not row:
            problems.append(f"must provide a non-empty array [json-pointer:{at}]")
            continue
        if len(row) > TABLE_CELL_LIMIT:
            problems.append(f"no more than {TABLE_CELL_LIMIT} items allowed [json-pointer:{at}]")
        for c, cell in enumerate(row):
            problems.extend(_check_cell(cell, f"{at}/{c}"))
    settings = raw.get("column_settings")
    if settings is not None:
        if not isinstance(settings, list):
            problems.append(f"must provide an array [json-pointer:{where}/column_settings]")
        else:
            if len(settings) > TABLE_CELL_LIMIT:
                problems.append(
                    f"no more than {TABLE_CELL_LIMIT} items allowed "
                    f"[json-pointer:{where}/column_settings]"
                )
            for i, item in enumerate(settings):
                if item is None:
                    continue
                at = f"{where}/column_settings/{i}"
                if not isinstance(item, dict) or set(item) - {"align", "is_wrapped"}:
                    problems.append(f"must be align and is_wrapped only [json-pointer:{at}]")
                elif "align" in item and item["align"] not in TABLE_ALIGNS:
                    problems.append(
                        f"must be one of {list(TABLE_ALIGNS)} [json-pointer:{at}/align]"
                    )
                elif "is_wrapped" in item and not isinstance(item["is_wrapped"], bool):
                    problems.append(f"must be a boolean [json-pointer:{at}/is_wrapped]")
    return problems


def _check_cell(cell: Any, at: str) -> list[str]:
    if not isinstance(cell, dict):
        return [f"must provide an object [json-pointer:{at}]"]
    kind = cell.get("type")
    if kind == "raw_text":
        text = cell.get("text")
        if not isinstance(text, str) or not text:
            return [f"must provide a non-empty string [json-pointer:{at}/text]"]
        return []
    if kind == "rich_text":
        try:
            parsed = Block.parse(copy.deepcopy(cell))
            if parsed is None:
                raise ValueError("not a rich_text block")
            parsed.to_dict()
        except Exception as exc:
            return [f"{_describe(exc)} [json-pointer:{at}]"]
        return []
    return [f"cells are raw_text or rich_text, not {kind!r} [json-pointer:{at}/type]"]


def _raw_elements(block: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(pointer suffix, element) for every element slot of a block."""
    slot = _ELEMENT_SLOTS.get(str(block.get("type")))
    if slot is None:
        return
    key, is_list = slot
    value = block.get(key)
    if is_list and isinstance(value, list):
        for i, element in enumerate(value):
            if isinstance(element, dict):
                yield f"/{key}/{i}", element
    elif not is_list and isinstance(value, dict):
        yield f"/{key}", value


def check_text(text: Any) -> list[str]:
    if isinstance(text, str) and len(text) > TEXT_LIMIT:
        return [f"text is {len(text)} characters; the limit is {TEXT_LIMIT} [json-pointer:/text]"]
    return []


def check_view(view: Any, *, expected: tuple[str, ...] = ("modal",)) -> list[str]:
    """Problems of a modal or Home tab view (blocks, then the view's own limits)."""
    if not isinstance(view, dict):
        return ["must provide an object [json-pointer:/view]"]
    problems: list[str] = []
    kind = view.get("type")
    if kind not in expected:
        problems.append(f"type must be one of {list(expected)} [json-pointer:/view/type]")
    if kind == "modal" and not view.get("title"):
        problems.append("missing required field: title [json-pointer:/view/title]")
    problems.extend(
        check_blocks(
            view.get("blocks"), limit=VIEW_BLOCK_LIMIT, pointer="/view/blocks", in_view=True
        )
    )
    if problems:
        return problems
    try:
        View(**_view_kwargs(view)).to_dict()
    except Exception as exc:
        problems.append(f"{_describe(exc)} [json-pointer:/view]")
    return problems


def _view_kwargs(view: dict[str, Any]) -> dict[str, Any]:
    known = View.attributes
    return {k: copy.deepcopy(v) for k, v in view.items() if k in known}


def fill_ids(blocks: Any, new_id: Callable[[], str]) -> Any:
    """Give every block a block_id and every interactive element an action_id, as Slack does.

    Slack stores and returns messages with these filled in, and interaction payloads carry
    them, so the stand-in must too.
    """
    if not isinstance(blocks, list):
        return blocks
    filled = copy.deepcopy(blocks)
    for block in filled:
        if not isinstance(block, dict):
            continue
        block.setdefault("block_id", new_id())
        for _, element in _raw_elements(block):
            if element.get("type") not in {"plain_text", "mrkdwn", "image"}:
                element.setdefault("action_id", new_id())
    return filled


def iter_elements(blocks: Any) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(block, element) for every element of every block."""
    if not isinstance(blocks, list):
        return
    for block in blocks:
        if isinstance(block, dict):
            for _, element in _raw_elements(block):
                yield block, element


def find_action(
    blocks: Any, action_id: str, block_id: str | None = None
) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The (block, element) a user would click for ``action_id``, or None."""
    for block, element in iter_elements(blocks):
        if element.get("action_id") == action_id and (
            block_id is None or block.get("block_id") == block_id
        ):
            return block, element
    return None
