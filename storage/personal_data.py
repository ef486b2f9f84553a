"""Where callops's own tables hold a customer's number: one question per store.

``privacy find`` asks every store the same question, by the number in clear (its
national form, as every table keeps it) and by its keyed hash (what the privacy tables
and the audit log's reveal entries keep instead).  Each store answers through a
``HeldIn`` hook: the default hook reads every text column of a table that has a
``team_id`` (and opens its encrypted ``_enc`` columns, the approvals' parameters and the
feed's queued records among them),
and a store that knows better (the do-not-call and consent lists, rebuilt elsewhere)
registers its own with ``register``, which takes the place of the default for its table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import Table, Text, func, or_, select
from sqlalchemy.engine import Connection

from storage.database import Database
from storage.errors import SecretDecryptError
from storage.schema import metadata
from storage.secrets import SecretBox

SKIPPED = frozenset({"privacy_posts", "workspaces", "service_tokens", "slack_installations"})
"""Tables that hold no customer data (or, for ``privacy_posts``, are read by hash on
their own, with the posts they name)."""


@dataclass(frozen=True)
class Held:
    """How many rows of one table hold the number (in clear or as its hash)."""

    table: str
    rows: int
    in_clear: bool
    """Whether the number is there in clear (False: only its keyed hash)."""


HeldIn = Callable[[Connection, str, str, str], Held | None]
"""(connection, team id, number, keyed hash) -> what the table holds, or None."""

_HOOKS: dict[str, HeldIn] = {}


def register(table: str, hook: HeldIn) -> None:
    """A store's own answer for its table, in place of the default text search."""
    _HOOKS[table] = hook


def _escaped(text: str) -> str:
    return "%" + text.replace("/", "//").replace("%", "/%").replace("_", "/_") + "%"


def _default_hook(table: Table, box: SecretBox) -> HeldIn | None:
    columns = [
        c
        for c in table.columns
        if isinstance(c.type, Text) and not c.name.endswith("_enc") and c.name != "team_id"
    ]
    sealed = [c for c in table.columns if c.name.endswith("_enc")]
    if "team_id" not in table.c or not (columns or sealed):
        return None

    def opened(conn: Connection, team_id: str, phone: str) -> int:
        """Rows whose sealed columns hold the number (each opened and read)."""
        if not sealed:
            return 0
        rows = conn.execute(select(*sealed).where(table.c.team_id == team_id))
        found = 0
        for row in rows:
            for value in row:
                if value is None:
                    continue
                try:
                    plain = box.decrypt(str(value))
                except SecretDecryptError:
                    continue
                if phone in plain:
                    found += 1
                    break
        return found

    def held(conn: Connection, team_id: str, phone: str, phone_hash: str) -> Held | None:
        def count(needle: str) -> int:
            pattern = _escaped(needle)
            query = (
                select(func.count())
                .select_from(table)
                .where(
                    table.c.team_id == team_id,
                    or_(*(c.like(pattern, escape="/") for c in columns)),
                )
            )
            return int(conn.execute(query).scalar() or 0)

        clear = (count(phone) if columns else 0) + opened(conn, team_id, phone)
        if clear:
            return Held(table.name, clear, in_clear=True)
        hashed = count(phone_hash) if columns else 0
        return Held(table.name, hashed, in_clear=False) if hashed else None

    return held


def where_held(
    db: Database, box: SecretBox, team_id: str, phone: str, phone_hash: str
) -> list[Held]:
    """Every table of callops's own that holds ``phone`` for ``team_id``, in one read."""

    def work(conn: Connection) -> list[Held]:
        found: list[Held] = []
        for table in metadata.sorted_tables:
            if table.name in SKIPPED:
                continue
            hook = _HOOKS.get(table.name) or _default_hook(table, box)
            if hook is None:
                continue
            answer = hook(conn, team_id, phone, phone_hash)
            if answer is not None and answer.rows:
                found.append(answer)
        return found

    return db.read(work)
