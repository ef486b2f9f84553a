"""JSON from outside, within bounds: ``json.loads`` recurses once per level (30,000 ``[``
raise RecursionError) and a small body can hold a million tiny values, so what parses is
walked once, without recursion.  A ``JsonRefused`` says why in words fit for a 400."""

from __future__ import annotations

import json
from typing import Any


class JsonRefused(ValueError):
    @property
    def reason(self) -> str:
        return str(self)


def loads(raw: bytes | str, *, max_depth: int, max_values: int) -> Any:
    """``raw`` parsed, or ``JsonRefused`` past ``max_depth`` levels or ``max_values`` values."""
    deeper = JsonRefused(f"nested deeper than {max_depth} levels")
    try:
        data = json.loads(raw.decode() if isinstance(raw, bytes) else raw)
    except RecursionError:
        raise deeper from None
    except ValueError:  # UTF-8 is JSON's only encoding (RFC 8259)
        raise JsonRefused("not JSON") from None
    count, stack = 0, [(data, 0)]
    while stack:
        item, depth = stack.pop()
        count += 1
        if count > max_values:
            raise JsonRefused(f"more than {max_values} values")
        if isinstance(item, dict | list):
            if depth >= max_depth:
                raise deeper
            stack.extend(
                (v, depth + 1) for v in (item.values() if isinstance(item, dict) else item)
            )
    return data
