"""Small conversions shared by the data tables (JSON lists in TEXT columns, short ids)."""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable


def short_id() -> str:
    """Eight hex characters: short enough to type in `/callops digest remove <id>`."""
    return secrets.token_hex(4)


def dump_list(values: Iterable[str]) -> str:
    return json.dumps([str(v) for v in values])


def load_list(text: str) -> tuple[str, ...]:
    return tuple(str(v) for v in json.loads(text))
