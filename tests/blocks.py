"""Reading Block Kit as Slack sends it back: the tests look for elements by type (the
buttons of a card, the mrkdwn objects of a reply) wherever in the blocks they sit."""

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
