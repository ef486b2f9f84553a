"""Records from rows, and short ids, shared by the data tables."""

from __future__ import annotations

import secrets
from typing import Any, TypeVar

from sqlalchemy.engine import RowMapping

from storage.clock import Clock, system_clock
from storage.database import Database

T = TypeVar("T")


def short_id() -> str:
    """Eight hex characters: short enough to type in `/callops digest remove <id>`."""
    return secrets.token_hex(4)


def from_row(cls: type[T], row: RowMapping, **given: Any) -> T:
    """A record (a dataclass) from a row: each field from the column of its name, typed
    by the column's declaration in `storage.schema`, except the fields ``given`` (a
    decrypted secret, a parsed value)."""
    names = getattr(cls, "__dataclass_fields__", ())
    values = {name: row[name] for name in names if name not in given and name in row}
    return cls(**values, **given)


class Store:
    """A store of one or a few tables: the shared database, and the clock that stamps its
    rows (a test's clock in the tests)."""

    def __init__(self, db: Database, *, clock: Clock = system_clock) -> None:
        self._db = db
        self._clock = clock
