"""Block Kit in the tests: reading it as Slack sends it back (the tests look for elements
by type, the buttons of a card, the mrkdwn objects of a reply, wherever in the blocks they
sit), and writing modals as raw JSON, the way a third-party app hands them to Slack."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def elements(node: Any, kind: str) -> Iterator[dict[str, Any]]:
    """Every object of ``type`` ``kind`` inside ``node`` (blocks, a block, a message part),
    in the order Slack shows them."""
    if isinstance(node, dict):
        if node.get("type") == kind:
            yield node
        for value in node.values():
            yield from elements(value, kind)
    elif isinstance(node, list):
        for item in node:
            yield from elements(item, kind)


def plain(text: str) -> dict[str, Any]:
    return {"type": "plain_text", "text": text}


def option(text: str, value: str) -> dict[str, Any]:
    """A select's or a radio group's option."""
    return {"text": plain(text), "value": value}


def text_input(block_id: str, label: str) -> dict[str, Any]:
    """An input block holding one plain-text field, whose action id is ``value``."""
    return {
        "type": "input",
        "block_id": block_id,
        "label": plain(label),
        "element": {"type": "plain_text_input", "action_id": "value"},
    }


def modal(
    callback_id: str, title: str, submit: str, *blocks: dict[str, Any], **fields: Any
) -> dict[str, Any]:
    """A modal view as raw JSON; ``fields`` adds top-level keys (private_metadata...)."""
    return {
        "type": "modal",
        "callback_id": callback_id,
        **fields,
        "title": plain(title),
        "submit": plain(submit),
        "blocks": list(blocks),
    }
