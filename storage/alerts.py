"""Threshold alerts as data, and the fired/recovered state of each (alert, campaign).

The fired state is a row of ``alert_fired``: an alert fires when that row is inserted and
recovers when it is deleted, each a single statement whose row count says whether *this*
caller made the change.  That is what lets two schedulers check the same alert in the same
minute and still post "crossed" once and "recovered" once.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass

from sqlalchemy import Double, Text, bindparam, delete, insert, select, update
from sqlalchemy.engine import Connection
from sqlalchemy.sql import Executable

from storage._rows import Store, from_row, not_in_workspace, required, short_id
from storage.database import InsertFactory, by_dialect
from storage.schema import alert_fired, alerts
from storage.validation import check_id, check_language

_A = alerts.c
_F = alert_fired.c
_THIS = (_A.team_id == bindparam("team"), _A.id == bindparam("alert"))
"""Bind names differ from column names: SQLAlchemy keeps those for SET values."""
_MINE = _F.alert_id.in_(select(_A.id).where(*_THIS))
"""The fired rows of this team's alert (and of no other team's)."""
_ADD = insert(alerts)
_GET = select(alerts).where(*_THIS)
_LIST = select(alerts).where(_A.team_id == bindparam("team")).order_by(_A.created_at, _A.id)
_ALL = select(alerts).order_by(_A.team_id, _A.created_at, _A.id)
_REMOVE_FIRED = delete(alert_fired).where(_MINE)
_REMOVE = delete(alerts).where(*_THIS)
_SNOOZE = update(alerts).where(*_THIS).values(snoozed_until=bindparam("until"))
_FIRED = select(alert_fired).where(_MINE).order_by(_F.fired_at, _F.subject)
_ATTACH = (
    update(alert_fired)
    .where(_F.subject == bindparam("of_subject"), _MINE)
    .values(channel=bindparam("in_channel"), message_ts=bindparam("at_ts"))
)
_RECOVER = (
    delete(alert_fired)
    .where(_F.subject == bindparam("of_subject"), _MINE)
    .returning(*alert_fired.c)
)


def _mark_fired(insert: InsertFactory) -> Executable:
    # The (alert, subject) primary key lets the first of several checkers insert the row.
    return (
        insert(alert_fired)
        .from_select(
            ["alert_id", "subject", "value", "fired_at"],
            select(
                _A.id,
                bindparam("of_subject", type_=Text),
                bindparam("measured", type_=Double),
                bindparam("now", type_=Double),
            ).where(*_THIS),
        )
        .on_conflict_do_nothing()
    )


_MARK_FIRED = by_dialect(_mark_fired)


@dataclass(frozen=True)
class Alert:
    id: str
    team_id: str
    channel: str
    metric: str
    op: str
    threshold: float
    campaign_uuid: str | None
    """None: every running autodialer campaign is watched, each on its own."""
    campaign_name: str | None
    window_minutes: int
    snoozed_until: float | None
    created_by: str
    created_at: float
    language: str | None = None
    """The language its posts are written in (``vi``/``en``); None: the workspace's."""


@dataclass(frozen=True)
class FiredAlert:
    alert_id: str
    subject: str
    """The campaign the threshold was crossed on (its UUID)."""
    value: float
    fired_at: float
    channel: str | None
    message_ts: str | None


class AlertStore(Store):
    def add(
        self,
        team_id: str,
        *,
        channel: str,
        metric: str,
        op: str,
        threshold: float,
        window_minutes: int,
        created_by: str,
        campaign_uuid: str | None = None,
        campaign_name: str | None = None,
        language: str | None = None,
    ) -> Alert:
        alert_id = short_id()
        self._db.change(
            _ADD,
            {
                "id": alert_id,
                "team_id": check_id(team_id, "team id"),
                "channel": check_id(channel, "channel id"),
                "metric": metric,
                "op": op,
                "threshold": float(threshold),
                "campaign_uuid": campaign_uuid,
                "campaign_name": campaign_name,
                "window_minutes": int(window_minutes),
                "language": check_language(language),
                "created_by": created_by,
                "created_at": self._clock(),
            },
        )
        return self.require(team_id, alert_id)

    def get(self, team_id: str, alert_id: str) -> Alert | None:
        return self._one(Alert, _GET, {"team": team_id, "alert": alert_id})

    def require(self, team_id: str, alert_id: str) -> Alert:
        return required(self.get(team_id, alert_id), "alert", alert_id)

    def list(self, team_id: str) -> builtins.list[Alert]:
        return [from_row(Alert, row) for row in self._db.all(_LIST, {"team": team_id})]

    def all(self) -> builtins.list[Alert]:
        """Every workspace's alerts: the scheduler checks them all each minute."""
        return [from_row(Alert, row) for row in self._db.all(_ALL)]

    def remove(self, team_id: str, alert_id: str) -> bool:
        params = {"team": team_id, "alert": alert_id}

        def work(conn: Connection) -> bool:
            conn.execute(_REMOVE_FIRED, params)
            return conn.execute(_REMOVE, params).rowcount == 1

        return self._db.write(work)

    def snooze(self, team_id: str, alert_id: str, until: float) -> Alert:
        """Silence the alert until ``until`` and re-arm it, so that if the threshold is still
        crossed when the snooze ends, people hear about it once more (and not before)."""
        params = {"team": team_id, "alert": alert_id, "until": until}

        def work(conn: Connection) -> None:
            if conn.execute(_SNOOZE, params).rowcount != 1:
                raise not_in_workspace("alert", alert_id)
            conn.execute(_REMOVE_FIRED, params)

        self._db.write(work)
        return self.require(team_id, alert_id)

    def fired(self, team_id: str, alert_id: str) -> builtins.list[FiredAlert]:
        rows = self._db.all(_FIRED, {"team": team_id, "alert": alert_id})
        return [from_row(FiredAlert, row) for row in rows]

    def mark_fired(self, team_id: str, alert_id: str, subject: str, value: float) -> bool:
        """True for exactly one caller while the alert is armed for ``subject``."""
        params = {
            "team": team_id,
            "alert": alert_id,
            "of_subject": subject,
            "measured": float(value),
            "now": self._clock(),
        }
        return self._db.change(self._db.pick(_MARK_FIRED), params) == 1

    def attach_message(
        self, team_id: str, alert_id: str, subject: str, *, channel: str, ts: str
    ) -> bool:
        """Remember where the alert was posted, so the recovery can reply in its thread."""
        params = {"team": team_id, "alert": alert_id, "of_subject": subject}
        return self._db.change(_ATTACH, {**params, "in_channel": channel, "at_ts": ts}) == 1

    def recover(self, team_id: str, alert_id: str, subject: str) -> FiredAlert | None:
        """Re-arm ``subject``; the fired row when this caller re-armed it, else None.

        One ``DELETE ... RETURNING``: of two schedulers recovering at once, only the one
        whose delete removed the row gets it back (a read then a delete would let both see
        it on PostgreSQL, where readers do not wait for writers)."""
        params = {"team": team_id, "alert": alert_id, "of_subject": subject}
        row = self._db.write(lambda conn: conn.execute(_RECOVER, params).mappings().first())
        return None if row is None else from_row(FiredAlert, row)
