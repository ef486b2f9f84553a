"""A workspace's calling rules and the advertising calls it placed (the lists are in
``storage/call_lists.py``).

Decree 91/2020/ND-CP limits advertising calls: only within set hours, at most so many
to one number in 24 hours, never to a number on the do-not-call list.  What the rules
are is the workspace's setting (defaults below, as the decree sets them); whether a call
may be made is decided in ``commands/rules``; this module only keeps the facts.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from sqlalchemy import bindparam, delete, insert, select
from sqlalchemy.engine import Connection
from sqlalchemy.sql import Executable

from storage._rows import Store
from storage.database import upsert
from storage.schema import calling_rules, outbound_pushes
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


class CallingRuleStore(Store):
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
