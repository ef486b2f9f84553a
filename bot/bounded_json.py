"""JSON from outside, parsed within bounds: nesting depth and number of values.

``json.loads`` recurses once per level (30,000 ``[`` raise RecursionError) and a small
body can hold a million tiny values; what parses is walked once, without recursion, and
refused past either bound.  Every refusal is a ``JsonRefused`` with a short reason fit
for a 400 (no values in it).
"""

from __future__ import annotations

import json
from typing import Any


class JsonRefused(ValueError):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def loads(raw: bytes | str, *, max_depth: int, max_values: int) -> Any:
    """Parse ``raw`` as JSON, refusing more than ``max_depth`` levels or ``max_values``
    values; raises ``JsonRefused``."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise JsonRefused("not UTF-8") from None
    try:
        data = json.loads(text)
    except RecursionError:
        raise JsonRefused(f"nested deeper than {max_depth} levels") from None
    except ValueError:
        raise JsonRefused("not JSON") from None
    count, stack = 0, [(data, 0)]
    while stack:
        item, depth = stack.pop()
        count += 1
        if count > max_values:
            raise JsonRefused(f"more than {max_values} values")
        if isinstance(item, dict | list):
            if depth >= max_depth:
                raise JsonRefused(f"nested deeper than {max_depth} levels")
            items = item.values() if isinstance(item, dict) else item
            stack.extend((value, depth + 1) for value in items)
    return data
