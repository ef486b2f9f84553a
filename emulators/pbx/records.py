"""Call records: the filters of ``GET /v3/cdr`` and the wire form of a stored record.

Listing and every report build their WHERE clause here, so "the records of this
window" means the same rows everywhere and the numbers agree.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from typing import Any

from emulators.pbx.schema import CDR_FIELDS

CDR_COLUMNS = ", ".join(CDR_FIELDS)
_ADDITIONAL = CDR_FIELDS.index("additional")


def normalize_status(value: str) -> str:
    """``ANSWERED`` and ``no_answered`` find ``answered`` and ``no-answered``."""
    return value.strip().lower().replace("_", "-")


def cdr_dict(row: tuple[Any, ...]) -> dict[str, Any]:
    record = dict(zip(CDR_FIELDS, row, strict=True))
    raw = row[_ADDITIONAL]
    record["additional"] = json.loads(raw) if raw else None
    return record


def cdr_json(row: tuple[Any, ...]) -> str:
    return json.dumps(cdr_dict(row), ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class CdrFilter:
    start: float | None = None
    end: float | None = None
    ended_start: float | None = None
    ended_end: float | None = None
    extension: str | None = None
    status: str | None = None
    hotline: str | None = None
    phone: str | None = None
    direction: str | None = None
    campaign_uuid: str | None = None

    def where(self, domain_uuid: str) -> tuple[str, list[Any]]:
        clauses = ["domain_uuid = ?"]
        params: list[Any] = [domain_uuid]
        for column, op, bound in (
            ("t_start", ">=", self.start),
            ("t_start", "<=", self.end),
            ("t_end", ">=", self.ended_start),
            ("t_end", "<=", self.ended_end),
        ):
            if bound is not None:
                clauses.append(f"{column} {op} ?")
                params.append(int(bound) if op == "<=" else _ceil(bound))
        for column, value in (
            ("extension", self.extension),
            ("receive_dest", self.hotline),
            ("direction", self.direction),
            ("campaign_uuid", self.campaign_uuid),
        ):
            if value:
                clauses.append(f"{column} = ?")
                params.append(value)
        if self.status:
            clauses.append("status = ?")
            params.append(normalize_status(self.status))
        if self.phone:
            clauses.append("(from_number = ? OR to_number = ?)")
            params.extend([self.phone, self.phone])
        return " AND ".join(clauses), params


def _ceil(value: float) -> int:
    whole = int(value)
    return whole if whole == value else whole + 1


def count(conn: sqlite3.Connection, domain_uuid: str, flt: CdrFilter) -> int:
    where, params = flt.where(domain_uuid)
    return int(conn.execute(f"SELECT COUNT(*) FROM cdrs WHERE {where}", params).fetchone()[0])


def page(
    conn: sqlite3.Connection, domain_uuid: str, flt: CdrFilter, limit: int, offset: int
) -> list[str]:
    """Newest first.  The inner query walks only the index; rows are read for the page."""
    where, params = flt.where(domain_uuid)
    sql = (
        f"SELECT {CDR_COLUMNS} FROM cdrs WHERE rowid IN ("
        f"SELECT rowid FROM cdrs WHERE {where} ORDER BY t_start DESC, rowid DESC "
        "LIMIT ? OFFSET ?) ORDER BY t_start DESC, rowid DESC"
    )
    return [cdr_json(row) for row in conn.execute(sql, [*params, limit, offset])]


def by_id(conn: sqlite3.Connection, domain_uuid: str, cdr_id: str) -> dict[str, Any] | None:
    row = conn.execute(
        f"SELECT {CDR_COLUMNS} FROM cdrs WHERE domain_uuid = ? AND id = ?", (domain_uuid, cdr_id)
    ).fetchone()
    return cdr_dict(row) if row else None
