"""A workspace's calling rules, its do-not-call list and the advertising calls it placed.

Decree 91/2020/ND-CP limits advertising calls: only within set hours, at most so many
to one number in 24 hours, never to a number on the do-not-call list.  What the rules
are is the workspace's setting (defaults below, as the decree sets them); whether a call
may be made is decided in ``commands/rules``; this module only keeps the facts.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from sqlalchemy import bindparam, delete, func, insert, select
from sqlalchemy.engine import Connection
from sqlalchemy.sql import Executable

from storage._rows import Store
from storage.database import by_dialect, upsert
from storage.schema import calling_rules, dnc_numbers, outbound_pushes
from storage.validation import check_id

DEFAULT_HOURS = (8 * 60, 17 * 60)
"""08:00-17:00, when Decree 91 allows advertising calls."""
DEFAULT_FREQUENCY = 1
"""Advertising calls to one number in 24 hours."""
WORKSPACE = ""
"""The ``campaign_uuid`` of a workspace's own row."""
DAY = 24 * 3600.0
BATCH = 5000
"""Rows per statement when a whole list is written or checked."""
_IN_LIMIT = 900
"""Numbers per ``IN (...)`` look-up: under SQLite's old 999-parameter limit."""

_R = calling_rules.c
_D = dnc_numbers.c
_P = outbound_pushes.c


@functools.cache
def _upsert(columns: tuple[str, ...]) -> dict[str, Executable]:
    """The write of these columns of a rule (a missing row is made), built once for each
    set of columns a setter changes."""
    return upsert(calling_rules, "updated_by", "updated_at", *columns)


@dataclass(frozen=True)
class CampaignRule:
    """What a campaign's own row overrides (None: as the workspace or its type says)."""

    hours: tuple[int, int] | None = None
    advertising: bool | None = None


@dataclass(frozen=True)
class CallingRules:
    """A workspace's rules: hours as minutes after midnight in its zone (a window may
    cross midnight: start > end), the frequency, and the campaigns' own rows."""

    hours: tuple[int, int] = DEFAULT_HOURS
    frequency: int = DEFAULT_FREQUENCY
    campaigns: dict[str, CampaignRule] | None = None

    def of(self, campaign_uuid: str) -> CampaignRule:
        return (self.campaigns or {}).get(campaign_uuid) or CampaignRule()

    def hours_of(self, campaign_uuid: str) -> tuple[int, int]:
        return self.of(campaign_uuid).hours or self.hours


_RULES = select(calling_rules).where(_R.team_id == bindparam("team_id"))
_ADD_DNC = by_dialect(lambda insert_: insert_(dnc_numbers).on_conflict_do_nothing())


class CallingRuleStore(Store):
    hasher: Callable[[str], str] | None = None
    """The keyed hash of a number (``SecretBox.keyed_hash``): a number erased at the
    customer's request stays on the list as ``h:<hash>`` (``storage.personal_data``)."""

    # --- the rules ------------------------------------------------------------------

    def rules(self, team_id: str) -> CallingRules:
        rows = self._db.all(_RULES, {"team_id": team_id})
        hours, frequency = DEFAULT_HOURS, DEFAULT_FREQUENCY
        campaigns: dict[str, CampaignRule] = {}
        for row in rows:
            window = (
                (int(row["hours_start"]), int(row["hours_end"]))
                if row["hours_start"] is not None and row["hours_end"] is not None
                else None
            )
            if row["campaign_uuid"] == WORKSPACE:
                hours = window or hours
                if row["frequency"] is not None:
                    frequency = int(row["frequency"])
            else:
                advertising = None if row["advertising"] is None else bool(row["advertising"])
                campaigns[row["campaign_uuid"]] = CampaignRule(window, advertising)
        return CallingRules(hours, frequency, campaigns)

    def set_hours(
        self,
        team_id: str,
        hours: tuple[int, int] | None,
        *,
        campaign_uuid: str = WORKSPACE,
        by: str | None = None,
    ) -> None:
        """The hours of the workspace, or of one campaign (None: back to the workspace's)."""
        start, end = hours if hours is not None else (None, None)
        self._set(team_id, campaign_uuid, by, hours_start=start, hours_end=end)

    def set_advertising(
        self, team_id: str, campaign_uuid: str, advertising: bool | None, *, by: str | None = None
    ) -> None:
        self._set(
            team_id,
            check_id(campaign_uuid, "campaign"),
            by,
            advertising=None if advertising is None else int(advertising),
        )

    def set_frequency(self, team_id: str, frequency: int, *, by: str | None = None) -> None:
        self._set(team_id, WORKSPACE, by, frequency=frequency)

    def _set(self, team_id: str, campaign_uuid: str, by: str | None, **columns: object) -> None:
        values: dict[str, object] = {
            "team_id": check_id(team_id, "team id"),
            "campaign_uuid": campaign_uuid,
            "updated_by": by,
            "updated_at": self._clock(),
            **columns,
        }
        self._db.change(self._db.pick(_upsert(tuple(columns))), values)

    # --- the do-not-call list -------------------------------------------------------

    def add_dnc(self, team_id: str, phones: Iterable[str]) -> int:
        """Add numbers (already normalised); how many were new.  Written in batches in
        one transaction, so a list of a million numbers is one upload, all or nothing."""
        now = self._clock()
        statement = self._db.pick(_ADD_DNC)

        def work(conn: Connection) -> int:
            before = _size(conn, team_id)
            for batch in _batches(phones, BATCH):
                rows = [{"team_id": team_id, "phone": p, "added_at": now} for p in batch]
                conn.execute(statement, rows)
            return _size(conn, team_id) - before

        return self._db.write(work)

    def remove_dnc(self, team_id: str, phones: Iterable[str]) -> int:
        wanted = list(dict.fromkeys(phones))

        def work(conn: Connection) -> int:
            removed = 0
            for batch in _batches(wanted, _IN_LIMIT):
                result = conn.execute(
                    delete(dnc_numbers).where(_D.team_id == team_id, _D.phone.in_(batch))
                )
                removed += max(result.rowcount, 0)
            return removed

        return self._db.write(work)

    def on_dnc(self, team_id: str, phones: Iterable[str]) -> set[str]:
        """The numbers of ``phones`` that are on the list."""
        wanted = list(dict.fromkeys(phones))
        hashed = {"h:" + self.hasher(p): p for p in wanted} if self.hasher else {}

        def work(conn: Connection) -> set[str]:
            found: set[str] = set()
            for batch in _batches([*wanted, *hashed], _IN_LIMIT):
                query = select(_D.phone).where(_D.team_id == team_id, _D.phone.in_(batch))
                found.update(hashed.get(str(row[0]), str(row[0])) for row in conn.execute(query))
            return found

        return self._db.read(work)

    def dnc_size(self, team_id: str) -> int:
        return self._db.read(lambda conn: _size(conn, team_id))

    # --- advertising calls placed ---------------------------------------------------

    def record_push(self, team_id: str, phone: str, campaign_uuid: str) -> None:
        """An advertising call placed; the workspace's pushes older than a day, which
        count for nothing any more, go in the same transaction (the table stays small)."""
        now = self._clock()
        values = {"team_id": team_id, "phone": phone, "campaign_uuid": campaign_uuid, "at": now}

        def work(conn: Connection) -> None:
            conn.execute(delete(outbound_pushes).where(_P.team_id == team_id, _P.at < now - DAY))
            conn.execute(insert(outbound_pushes), values)

        self._db.write(work)

    def pushes_since(self, team_id: str, phone: str, since: float) -> list[float]:
        """When callops placed advertising calls to ``phone`` since ``since``."""
        query = (
            select(_P.at)
            .where(_P.team_id == team_id, _P.phone == phone, _P.at >= since)
            .order_by(_P.at)
        )
        return [float(row["at"]) for row in self._db.all(query)]


def _size(conn: Connection, team_id: str) -> int:
    query = select(func.count()).select_from(dnc_numbers).where(_D.team_id == team_id)
    return int(conn.execute(query).scalar() or 0)


def _batches(items: Iterable[str], size: int) -> Iterator[list[str]]:
    batch: list[str] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
