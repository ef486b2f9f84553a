"""A workspace's calling rules and the advertising calls it placed (the lists are in
``storage/call_lists.py``).

Decree 91/2020/ND-CP limits advertising calls: only within set hours, at most so many
to one number in 24 hours, never to a number on the do-not-call list.  What the rules
are is the workspace's setting (defaults below, as the decree sets them); whether a call
may be made is decided in ``commands/rules``; this module only keeps the facts.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import bindparam, delete, func, insert, select
from sqlalchemy.engine import Connection, RowMapping
from sqlalchemy.sql import Executable

from storage._rows import Store
from storage.database import upsert
from storage.schema import calling_rules, frequency_locks, outbound_pushes
from storage.validation import check_id

DEFAULT_HOURS = (8 * 60, 17 * 60)
"""08:00-17:00, when Decree 91 allows advertising calls."""
DEFAULT_FREQUENCY = 1
"""Advertising calls to one number in 24 hours."""
WORKSPACE = ""
"""The ``campaign_uuid`` of a workspace's own row."""
DAY = 24 * 3600.0

_R = calling_rules.c
_P = outbound_pushes.c
_L = frequency_locks.c


@functools.cache
def _upsert(columns: tuple[str, ...]) -> dict[str, Executable]:
    """The write of these columns of a rule (a missing row is made), built once for each
    set of columns a setter changes."""
    return upsert(calling_rules, "updated_by", "updated_at", *columns)


@dataclass(frozen=True)
class SetBy:
    """Who set a rule, and when (seconds)."""

    user_id: str | None
    at: float | None


@dataclass(frozen=True)
class CampaignRule:
    """What a campaign's own row overrides (None: as the workspace or its type says)."""

    hours: tuple[int, int] | None = None
    advertising: bool | None = None
    advertising_set: SetBy | None = None
    hours_set: SetBy | None = None


@dataclass(frozen=True)
class CallingRules:
    """A workspace's rules: hours as minutes after midnight in its zone (a window may
    cross midnight: start > end), the frequency, and the campaigns' own rows."""

    hours: tuple[int, int] = DEFAULT_HOURS
    frequency: int = DEFAULT_FREQUENCY
    campaigns: dict[str, CampaignRule] | None = None
    hours_set: SetBy | None = None
    frequency_set: SetBy | None = None
    brand: str | None = None
    """The registered brand name advertising calls should name first (Decree 91)."""

    def of(self, campaign_uuid: str) -> CampaignRule:
        return (self.campaigns or {}).get(campaign_uuid) or CampaignRule()

    def hours_of(self, campaign_uuid: str) -> tuple[int, int]:
        return self.of(campaign_uuid).hours or self.hours


_RULES = select(calling_rules).where(_R.team_id == bindparam("team_id"))
_LOCK_NUMBER = upsert(frequency_locks, "at")


class CallingRuleStore(Store):
    # --- the rules ------------------------------------------------------------------

    def rules(self, team_id: str) -> CallingRules:
        rows = self._db.all(_RULES, {"team_id": team_id})
        hours, frequency = DEFAULT_HOURS, DEFAULT_FREQUENCY
        hours_set = frequency_set = None
        brand: str | None = None
        campaigns: dict[str, CampaignRule] = {}
        for row in rows:
            window = (
                (int(row["hours_start"]), int(row["hours_end"]))
                if row["hours_start"] is not None and row["hours_end"] is not None
                else None
            )
            if row["campaign_uuid"] == WORKSPACE:
                hours = window or hours
                hours_set = _set_by(row, "hours") if window else None
                if row["frequency"] is not None:
                    frequency = int(row["frequency"])
                    frequency_set = _set_by(row, "frequency")
                brand = row["brand"] or None
            else:
                advertising = None if row["advertising"] is None else bool(row["advertising"])
                campaigns[row["campaign_uuid"]] = CampaignRule(
                    window,
                    advertising,
                    _set_by(row, "advertising") if advertising is not None else None,
                    _set_by(row, "hours") if window else None,
                )
        return CallingRules(hours, frequency, campaigns, hours_set, frequency_set, brand)

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
        self._set(
            team_id,
            campaign_uuid,
            by,
            hours_start=start,
            hours_end=end,
            hours_by=by,
            hours_at=self._clock(),
        )

    def set_advertising(
        self, team_id: str, campaign_uuid: str, advertising: bool | None, *, by: str | None = None
    ) -> None:
        self._set(
            team_id,
            check_id(campaign_uuid, "campaign"),
            by,
            advertising=None if advertising is None else int(advertising),
            advertising_by=by,
            advertising_at=self._clock(),
        )

    def set_advertising_many(
        self, team_id: str, campaign_uuids: Iterable[str], advertising: bool, *, by: str | None
    ) -> None:
        """Classify several campaigns in one transaction: all of them or none."""
        now = self._clock()
        statement = self._db.pick(_upsert(("advertising", "advertising_by", "advertising_at")))
        rows = [
            {
                "team_id": check_id(team_id, "team id"),
                "campaign_uuid": check_id(uuid, "campaign"),
                "updated_by": by,
                "updated_at": now,
                "advertising": int(advertising),
                "advertising_by": by,
                "advertising_at": now,
            }
            for uuid in dict.fromkeys(campaign_uuids)
        ]
        if rows:
            self._db.write(lambda conn: conn.execute(statement, rows))

    def set_frequency(self, team_id: str, frequency: int, *, by: str | None = None) -> None:
        self._set(
            team_id,
            WORKSPACE,
            by,
            frequency=frequency,
            frequency_by=by,
            frequency_at=self._clock(),
        )

    def set_brand(self, team_id: str, brand: str | None, *, by: str | None = None) -> None:
        self._set(team_id, WORKSPACE, by, brand=brand)

    def _set(self, team_id: str, campaign_uuid: str, by: str | None, **columns: object) -> None:
        values: dict[str, object] = {
            "team_id": check_id(team_id, "team id"),
            "campaign_uuid": campaign_uuid,
            "updated_by": by,
            "updated_at": self._clock(),
            **columns,
        }
        self._db.change(self._db.pick(_upsert(tuple(columns))), values)

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

    def claim_slot(
        self, team_id: str, phone: str, campaign_uuid: str, *, limit: int, after: float
    ) -> int | None:
        """Hold a place for one advertising call to ``phone`` in its 24-hour window, or
        None when ``limit`` places (callops' pushes and held places after ``after``, the
        latest call the service's records show) are taken.  The number's lock row is
        written first, so claims to one number run one after the other on every engine
        and replica: the count and the insert cannot be split by another claim.  The
        place is the push's row: ``release_slot`` gives it back if the call is not
        placed."""
        now = self._clock()
        lock = self._db.pick(_LOCK_NUMBER)

        def work(conn: Connection) -> int | None:
            conn.execute(lock, {"team_id": team_id, "phone": phone, "at": now})
            held = conn.execute(
                select(func.count())
                .select_from(outbound_pushes)
                .where(
                    _P.team_id == team_id,
                    _P.phone == phone,
                    _P.at > max(after, now - DAY),
                )
            ).scalar()
            if int(held or 0) >= limit:
                return None
            conn.execute(delete(outbound_pushes).where(_P.team_id == team_id, _P.at < now - DAY))
            result = conn.execute(
                insert(outbound_pushes),
                {"team_id": team_id, "phone": phone, "campaign_uuid": campaign_uuid, "at": now},
            )
            key = result.inserted_primary_key
            return int(key[0]) if key else None

        return self._db.write(work)

    def release_slot(self, team_id: str, slot: int) -> None:
        """A held place whose call was not placed (refused, or the push failed)."""
        self._db.change(delete(outbound_pushes).where(_P.team_id == team_id, _P.id == slot))

    def forget_locks(self, team_id: str) -> int:
        """Drop the lock rows of numbers not claimed for a day.  Its own transaction,
        holding no other lock, so it can only wait for a claim, never deadlock with one
        (a claim that deleted other numbers' rows could)."""
        return self._db.change(
            delete(frequency_locks).where(_L.team_id == team_id, _L.at < self._clock() - DAY)
        )

    def pushes_since(self, team_id: str, phone: str, since: float) -> list[float]:
        """When callops placed advertising calls to ``phone`` since ``since``."""
        query = (
            select(_P.at)
            .where(_P.team_id == team_id, _P.phone == phone, _P.at >= since)
            .order_by(_P.at)
        )
        return [float(row["at"]) for row in self._db.all(query)]


def _set_by(row: RowMapping, rule: str) -> SetBy:
    at = row[f"{rule}_at"]
    return SetBy(row[f"{rule}_by"], float(at) if at is not None else None)
