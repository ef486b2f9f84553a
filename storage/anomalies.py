"""Anomaly alerts' episodes, and the claim that lets one process check each minute.

An episode is a KPI out of its usual band for one campaign or mobile network, told in
one post that is updated while it lasts and closed when it recovers.  Every change is
one statement whose row count says whether *this* caller made it, so two replicas
checking the same minute post once, update once and close once:

* ``claim_check``: the minute's check, one upsert per workspace that only moves the
  claimed minute forward;
* ``open``: an insert that the unique ``open_key`` (alert, scope, KPI) lets through for
  one caller while no episode of that subject is open;
* ``touch``: an update that only moves ``checked_slot`` forward;
* ``close``: an update that clears ``open_key`` of an open episode.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass

from sqlalchemy import bindparam, delete, select, update
from sqlalchemy.sql import Executable

from storage._rows import Store, from_row, short_id
from storage.database import InsertFactory, by_dialect
from storage.schema import anomaly_checks, anomaly_episodes
from storage.validation import check_id

_E = anomaly_episodes.c
_C = anomaly_checks.c


def _claim(insert: InsertFactory) -> Executable:
    statement = insert(anomaly_checks)
    return statement.on_conflict_do_update(
        index_elements=["team_id"],
        set_={"slot": statement.excluded.slot, "claimed_at": statement.excluded.claimed_at},
        where=_C.slot < statement.excluded.slot,
    )


def _open(insert: InsertFactory) -> Executable:
    return insert(anomaly_episodes).on_conflict_do_nothing(index_elements=["open_key"])


_CLAIM = by_dialect(_claim)
_OPEN = by_dialect(_open)
_THIS = (_E.team_id == bindparam("team"), _E.id == bindparam("episode"))
_GET = select(anomaly_episodes).where(*_THIS)
_OPEN_OF = (
    select(anomaly_episodes)
    .where(_E.team_id == bindparam("team"), _E.alert_id == bindparam("alert"))
    .where(_E.open_key.is_not(None))
    .order_by(_E.opened_at, _E.id)
)
_OF_ALERT = (
    select(anomaly_episodes)
    .where(_E.team_id == bindparam("team"), _E.alert_id == bindparam("alert"))
    .order_by(_E.opened_at, _E.id)
)
_ATTACH = (
    update(anomaly_episodes)
    .where(*_THIS)
    .values(channel=bindparam("in_channel"), message_ts=bindparam("at_ts"))
)
_TOUCH = (
    update(anomaly_episodes)
    .where(*_THIS, _E.open_key.is_not(None), _E.checked_slot < bindparam("slot"))
    .values(
        checked_slot=bindparam("slot"),
        value=bindparam("measured"),
        usual=bindparam("usual_value"),
        low=bindparam("band_low"),
        high=bindparam("band_high"),
        calls=bindparam("counted"),
    )
)
_CLOSE = (
    update(anomaly_episodes)
    .where(*_THIS, _E.open_key.is_not(None))
    .values(open_key=None, closed_at=bindparam("now"), closed_how=bindparam("how"))
)
_FORGET = delete(anomaly_episodes).where(*_THIS)


@dataclass(frozen=True)
class Episode:
    id: str
    team_id: str
    alert_id: str
    scope_kind: str
    """``campaign`` or ``network``."""
    scope_key: str
    """The campaign's uuid, or the network's name."""
    scope_name: str
    kpi: str
    opened_at: float
    value: float
    """The KPI at the latest check."""
    usual: float
    low: float
    high: float
    calls: int
    """Calls behind ``value`` (the KPI's denominator, this hour so far)."""
    checked_slot: str
    channel: str | None = None
    message_ts: str | None = None
    closed_at: float | None = None
    closed_how: str | None = None
    """``recovered``, ``snoozed`` or ``quiet`` (too few calls to judge for a while);
    None while it lasts."""


def open_key(alert_id: str, scope_kind: str, scope_key: str, kpi: str) -> str:
    return f"{alert_id}|{scope_kind}|{scope_key}|{kpi}"


class AnomalyStore(Store):
    def claim_check(self, team_id: str, slot: str) -> bool:
        """True for exactly one caller per workspace and minute ``slot`` (and never for a
        minute before one already claimed)."""
        params = {"team_id": check_id(team_id, "team id"), "slot": slot}
        statement = self._db.pick(_CLAIM)
        return self._db.change(statement, {**params, "claimed_at": self._clock()}) == 1

    def open(
        self,
        team_id: str,
        alert_id: str,
        *,
        scope_kind: str,
        scope_key: str,
        scope_name: str,
        kpi: str,
        value: float,
        usual: float,
        low: float,
        high: float,
        calls: int,
        slot: str,
        at: float | None = None,
    ) -> Episode | None:
        """The new episode (found out of its band at ``at``, default now), or None when
        one of this subject is already open."""
        episode_id = short_id()
        row = {
            "id": episode_id,
            "team_id": team_id,
            "alert_id": alert_id,
            "scope_kind": scope_kind,
            "scope_key": scope_key,
            "scope_name": scope_name,
            "kpi": kpi,
            "open_key": open_key(alert_id, scope_kind, scope_key, kpi),
            "opened_at": self._clock() if at is None else float(at),
            "value": float(value),
            "usual": float(usual),
            "low": float(low),
            "high": float(high),
            "calls": int(calls),
            "checked_slot": slot,
        }
        if self._db.change(self._db.pick(_OPEN), row) != 1:
            return None
        return self.get(team_id, episode_id)

    def get(self, team_id: str, episode_id: str) -> Episode | None:
        return self._one(Episode, _GET, {"team": team_id, "episode": episode_id})

    def open_of(self, team_id: str, alert_id: str) -> builtins.list[Episode]:
        """The alert's episodes that still last."""
        rows = self._db.all(_OPEN_OF, {"team": team_id, "alert": alert_id})
        return [from_row(Episode, row) for row in rows]

    def of_alert(self, team_id: str, alert_id: str) -> builtins.list[Episode]:
        """Every episode of the alert, oldest first."""
        rows = self._db.all(_OF_ALERT, {"team": team_id, "alert": alert_id})
        return [from_row(Episode, row) for row in rows]

    def attach(self, team_id: str, episode_id: str, *, channel: str, ts: str) -> None:
        """Where the episode's post is, for the updates and the closing reply."""
        params = {"team": team_id, "episode": episode_id, "in_channel": channel, "at_ts": ts}
        self._db.change(_ATTACH, params)

    def touch(
        self,
        team_id: str,
        episode_id: str,
        *,
        slot: str,
        value: float,
        usual: float,
        low: float,
        high: float,
        calls: int,
    ) -> Episode | None:
        """The episode with this minute's figures, for exactly one caller per minute."""
        params = {
            "team": team_id,
            "episode": episode_id,
            "slot": slot,
            "measured": float(value),
            "usual_value": float(usual),
            "band_low": float(low),
            "band_high": float(high),
            "counted": int(calls),
        }
        if self._db.change(_TOUCH, params) != 1:
            return None
        return self.get(team_id, episode_id)

    def close(self, team_id: str, episode_id: str, how: str) -> Episode | None:
        """The episode, closed (``recovered``, ``snoozed``, ``quiet``) by this caller, else
        None."""
        params = {"team": team_id, "episode": episode_id, "now": self._clock(), "how": how}
        if self._db.change(_CLOSE, params) != 1:
            return None
        return self.get(team_id, episode_id)

    def forget(self, team_id: str, episode_id: str) -> None:
        """An episode whose post could not be made: not told is not opened, so the next
        check tries again."""
        self._db.change(_FORGET, {"team": team_id, "episode": episode_id})
