"""JSON from outside, parsed within bounds: nesting depth and number of values.

``json.loads`` recurses once per level, so a body of 30,000 ``[`` raises RecursionError
(a 500 for whoever sent it, and a traceback in the log for everyone else), and a small
body can still hold a million tiny values.  ``loads`` refuses both before they cost
anything: the depth is counted on the raw text (strings skipped) before parsing, the
values after.  Every refusal is a ``JsonRefused`` with a short reason fit for a 400.
"""

from __future__ import annotations

import json
import re
from typing import Any

_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = re.compile(r"[^\[\]{}]+")


class JsonRefused(ValueError):
    """Not JSON, or JSON beyond the bounds; ``reason`` says which (no values in it)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def nesting_depth(text: str, limit: int) -> int:
    """The deepest nesting of arrays and objects in ``text``, counted up to ``limit + 1``
    (brackets inside strings do not count)."""
    brackets = _NOT_BRACKETS.sub("", _STRINGS.sub('""', text))
    depth = deepest = 0
    for char in brackets:
        if char in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > limit:
                    return deepest
        else:
            depth -= 1
    return deepest


def count_values(value: Any, limit: int) -> int:
    """Values in ``value`` (containers, keys' values and items), counted up to ``limit + 1``."""
    count = 0
    stack = [value]
    while stack:
        item = stack.pop()
        count += 1
        if count > limit:
            return count
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return count


def loads(raw: bytes | str, *, max_depth: int, max_values: int) -> Any:
    """Parse ``raw`` as JSON, refusing more than ``max_depth`` levels or ``max_values``
    values; raises ``JsonRefused``."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise JsonRefused("not UTF-8") from None
    if nesting_depth(text, max_depth) > max_depth:
        raise JsonRefused(f"nested deeper than {max_depth} levels")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        raise JsonRefused("not JSON") from None
    if count_values(data, max_values) > max_values:
        raise JsonRefused(f"more than {max_values} values")
    return data
