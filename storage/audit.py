"""The audit log: who did what, when, with which result; append-only by database trigger.

Parameters are redacted by key name before they are written, so a password or API key in an
action's parameters never reaches the log, whatever the caller passes.
"""

from __future__ import annotations

import csv
import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TextIO

from sqlalchemy import ColumnElement, func, insert, select, true
from sqlalchemy.engine import Connection

from storage._rows import Store, from_row
from storage.clock import iso_utc
from storage.schema import audit_log

_A = audit_log.c
_APPEND = insert(audit_log)

log = logging.getLogger(__name__)

REDACTED = "[redacted]"

_SECRET_KEYS = frozenset(
    {"api_key", "apikey", "password", "confirm_password", "passwd", "authorization", "cookie"}
)
_SECRET_PARTS = ("token", "secret", "password", "api_key", "private_key", "credential")


def is_secret_key(name: str) -> bool:
    """Names that carry credentials: exact ones, and any name containing token/secret/..."""
    lowered = name.lower().replace("-", "_")
    return lowered in _SECRET_KEYS or any(part in lowered for part in _SECRET_PARTS)


def redact(value: Any) -> Any:
    """A copy of `value` with every secret-named entry replaced, at any depth."""
    if isinstance(value, Mapping):
        return {str(k): REDACTED if is_secret_key(str(k)) else redact(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact(v) for v in value]
    return value


class Outcome:
    """Common outcome words (free text is allowed; these keep exports consistent)."""

    OK = "ok"
    FAILED = "failed"
    REFUSED = "refused"
    REQUESTED = "requested"
    APPROVED = "approved"
    DENIED = "denied"
    EXPIRED = "expired"
    CANCELLED = "cancelled"
    UNKNOWN = "unknown"
    """The app stopped while it ran the action and could not find out what happened."""


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: float
    team_id: str | None
    user_id: str | None
    action: str
    params: dict[str, Any]
    outcome: str
    detail: str | None

    def as_export(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "time": iso_utc(self.at),
            "team_id": self.team_id,
            "user_id": self.user_id,
            "action": self.action,
            "params": self.params,
            "outcome": self.outcome,
            "detail": self.detail,
        }


EXPORT_FIELDS = ("id", "time", "team_id", "user_id", "action", "params", "outcome", "detail")


class AuditLog(Store):
    def append(
        self,
        team_id: str | None,
        user_id: str | None,
        action: str,
        params: Mapping[str, Any] | None = None,
        *,
        outcome: str = Outcome.OK,
        detail: str | None = None,
    ) -> int:
        """Record one action. team_id None is for operator actions that span workspaces
        (e.g. secret rotation); user_id is the Slack user, or "cli:<name>" for the CLI."""
        text = json.dumps(redact(dict(params or {})), sort_keys=True, default=str)
        values = {
            "at": self._clock(),
            "team_id": team_id,
            "user_id": user_id,
            "action": action,
            "params": text,
            "outcome": outcome,
            "detail": detail,
        }

        def work(conn: Connection) -> int:
            key = conn.execute(_APPEND, values).inserted_primary_key
            return 0 if key is None else int(key[0])

        entry_id = self._db.write(work)
        log.debug("audit: team %s user %s %s -> %s", team_id, user_id, action, outcome)
        return entry_id

    def entries(
        self, team_id: str, *, since: float | None = None, limit: int | None = None
    ) -> list[AuditEntry]:
        """One workspace's entries, oldest first."""
        return self._select(_A.team_id == team_id, since, limit)

    def count(self, team_id: str, action: str, since: float, until: float) -> int:
        """How many entries of ``action`` one workspace has in ``[since, until)``."""
        query = (
            select(func.count())
            .select_from(audit_log)
            .where(_A.team_id == team_id, _A.action == action, _A.at >= since, _A.at < until)
        )
        return int(self._db.scalar(query) or 0)

    def all_entries(
        self, *, since: float | None = None, limit: int | None = None
    ) -> list[AuditEntry]:
        """Every workspace's entries: for the server operator's `callops audit` export only."""
        return self._select(true(), since, limit)

    def _select(
        self, where: ColumnElement[bool], since: float | None, limit: int | None
    ) -> list[AuditEntry]:
        query = select(audit_log).where(where)
        if since is not None:
            query = query.where(_A.at >= since)
        query = query.order_by(_A.at, _A.id)
        if limit is not None:
            query = query.limit(limit)
        rows = self._db.all(query)
        return [from_row(AuditEntry, row, params=json.loads(row["params"])) for row in rows]


def write_json(entries: Iterable[AuditEntry], out: TextIO) -> None:
    json.dump([e.as_export() for e in entries], out, indent=2, ensure_ascii=False)
    out.write("\n")


def write_csv(entries: Iterable[AuditEntry], out: TextIO) -> None:
    """CSV for spreadsheets: params as compact JSON in one column; formula-like text quoted."""
    writer = csv.DictWriter(out, fieldnames=list(EXPORT_FIELDS), lineterminator="\n")
    writer.writeheader()
    for entry in entries:
        row = entry.as_export()
        row["params"] = json.dumps(row["params"], sort_keys=True, ensure_ascii=False)
        writer.writerow({k: _cell(v) for k, v in row.items()})


def _cell(value: Any) -> Any:
    """Text a spreadsheet would run as a formula (from Slack input) is quoted as text."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value
