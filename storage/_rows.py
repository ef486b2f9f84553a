"""Records from rows, and short ids, shared by the data tables."""

from __future__ import annotations

import secrets
from typing import Any, TypeVar

from sqlalchemy.engine import RowMapping
from sqlalchemy.sql.expression import Executable

from storage.clock import Clock, system_clock
from storage.database import Database, Params
from storage.errors import NotFoundError
from storage.secrets import SecretBox

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


def not_in_workspace(noun: str, key: str) -> NotFoundError:
    """How every store says that a team has no such row."""
    return NotFoundError(f"no {noun} {key!r} in this workspace")


def required(found: T | None, noun: str, key: str) -> T:
    """``found``, or the team has no such ``noun``: ``require`` beside ``get``."""
    if found is None:
        raise not_in_workspace(noun, key)
    return found


class Store:
    """A store of one or a few tables: the shared database, and the clock that stamps its
    rows (a test's clock in the tests)."""

    def __init__(self, db: Database, *, clock: Clock = system_clock) -> None:
        self._db = db
        self._clock = clock

    def _one(self, cls: type[T], query: Executable, params: Params) -> T | None:
        """The first row of ``query`` as a ``cls`` record, or None."""
        row = self._db.first(query, params)
        return from_row(cls, row) if row else None


class SealedStore(Store):
    """A store that also keeps secrets, sealed at rest by the process's one `SecretBox`."""

    def __init__(self, db: Database, box: SecretBox, *, clock: Clock = system_clock) -> None:
        super().__init__(db, clock=clock)
        self._box = box
