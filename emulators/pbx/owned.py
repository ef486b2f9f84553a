"""Looking a resource up inside the caller's domain.

Every resource belongs to one domain and the service answers another domain's uuid
exactly as an unknown one, so each lookup by uuid is the same query and the same 404.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from emulators.pbx.errors import not_found


def owned(
    conn: sqlite3.Connection,
    table: str,
    domain_uuid: str,
    uuid: str,
    columns: str = "1",
    *,
    what: str | None = None,
) -> Any:
    """The ``columns`` of the row of ``table`` keyed ``<singular>_uuid = uuid`` in the
    domain, else the service's ``"<what> not found"`` (``what`` defaults to the singular
    of ``table``)."""
    singular = table[:-1]
    row = conn.execute(
        f"SELECT {columns} FROM {table} WHERE domain_uuid = ? AND {singular}_uuid = ?",
        (domain_uuid, uuid),
    ).fetchone()
    if row is None:
        raise not_found(what or singular)
    return row
