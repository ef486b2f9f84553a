"""JSON from outside, within bounds: ``json.loads`` recurses once per level (30,000 ``[``
raise RecursionError) and a small body can hold a million tiny values."""

from __future__ import annotations

import json
from typing import Any


class JsonRefused(ValueError):
    @property
    def reason(self) -> str:  # fit for a 400: no value in it
        return str(self)


def loads(raw: bytes | str, *, max_depth: int, max_values: int) -> Any:
    """``raw`` parsed, then walked once without recursion; ``JsonRefused`` past a bound."""
    try:
        data = json.loads(raw.decode() if isinstance(raw, bytes) else raw)
    except RecursionError:
        raise JsonRefused(f"nested deeper than {max_depth} levels") from None
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
                raise JsonRefused(f"nested deeper than {max_depth} levels")
            stack.extend(
                (v, depth + 1) for v in (item.values() if isinstance(item, dict) else item)
            )
    return data
