"""Threshold alerts as data, and the fired/recovered state of each (alert, campaign).

The fired state is a row of ``alert_fired``: an alert fires when that row is inserted and
recovers when it is deleted, each a single statement whose row count says whether *this*
caller made the change.  That is what lets two schedulers check the same alert in the same
minute and still post "crossed" once and "recovered" once.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass

from sqlalchemy import delete, insert, literal, select, update
from sqlalchemy.engine import Connection, RowMapping

from storage._rows import short_id
from storage.clock import Clock, system_clock
from storage.database import Database
from storage.errors import NotFoundError
from storage.schema import alert_fired, alerts
from storage.validation import check_id

_A = alerts.c
_F = alert_fired.c


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


@dataclass(frozen=True)
class FiredAlert:
    alert_id: str
    subject: str
    """The campaign the threshold was crossed on (its UUID)."""
    value: float
    fired_at: float
    channel: str | None
    message_ts: str | None


def _alert(row: RowMapping) -> Alert:
    return Alert(
        id=row["id"],
        team_id=row["team_id"],
        channel=row["channel"],
        metric=row["metric"],
        op=row["op"],
        threshold=float(row["threshold"]),
        campaign_uuid=row["campaign_uuid"],
        campaign_name=row["campaign_name"],
        window_minutes=int(row["window_minutes"]),
        snoozed_until=row["snoozed_until"],
        created_by=row["created_by"],
        created_at=row["created_at"],
    )


def _fired(row: RowMapping) -> FiredAlert:
    return FiredAlert(
        alert_id=row["alert_id"],
        subject=row["subject"],
        value=float(row["value"]),
        fired_at=row["fired_at"],
        channel=row["channel"],
        message_ts=row["message_ts"],
    )


class AlertStore:
    def __init__(self, db: Database, *, clock: Clock = system_clock) -> None:
        self._db = db
        self._clock = clock

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
    ) -> Alert:
        alert_id = short_id()
        self._db.change(
            insert(alerts).values(
                id=alert_id,
                team_id=check_id(team_id, "team id"),
                channel=check_id(channel, "channel id"),
                metric=metric,
                op=op,
                threshold=float(threshold),
                campaign_uuid=campaign_uuid,
                campaign_name=campaign_name,
                window_minutes=int(window_minutes),
                created_by=created_by,
                created_at=self._clock(),
            )
        )
        return self.require(team_id, alert_id)

    def get(self, team_id: str, alert_id: str) -> Alert | None:
        row = self._db.first(select(alerts).where(_A.team_id == team_id, _A.id == alert_id))
        return _alert(row) if row else None

    def require(self, team_id: str, alert_id: str) -> Alert:
        found = self.get(team_id, alert_id)
        if found is None:
            raise NotFoundError(f"no alert {alert_id!r} in this workspace")
        return found

    def list(self, team_id: str) -> builtins.list[Alert]:
        return [
            _alert(row)
            for row in self._db.all(
                select(alerts).where(_A.team_id == team_id).order_by(_A.created_at, _A.id)
            )
        ]

    def all(self) -> builtins.list[Alert]:
        """Every workspace's alerts: the scheduler checks them all each minute."""
        return [
            _alert(row)
            for row in self._db.all(select(alerts).order_by(_A.team_id, _A.created_at, _A.id))
        ]

    def remove(self, team_id: str, alert_id: str) -> bool:
        mine = select(_A.id).where(_A.team_id == team_id, _A.id == alert_id)

        def work(conn: Connection) -> bool:
            conn.execute(delete(alert_fired).where(_F.alert_id.in_(mine)))
            removed = conn.execute(delete(alerts).where(_A.team_id == team_id, _A.id == alert_id))
            return removed.rowcount == 1

        return self._db.write(work)

    def snooze(self, team_id: str, alert_id: str, until: float) -> Alert:
        """Silence the alert until ``until`` and re-arm it, so that if the threshold is still
        crossed when the snooze ends, people hear about it once more (and not before)."""

        def work(conn: Connection) -> None:
            changed = conn.execute(
                update(alerts)
                .where(_A.team_id == team_id, _A.id == alert_id)
                .values(snoozed_until=until)
            ).rowcount
            if changed != 1:
                raise NotFoundError(f"no alert {alert_id!r} in this workspace")
            conn.execute(delete(alert_fired).where(_F.alert_id == alert_id))

        self._db.write(work)
        return self.require(team_id, alert_id)

    def fired(self, team_id: str, alert_id: str) -> builtins.list[FiredAlert]:
        rows = self._db.all(
            select(alert_fired)
            .join(alerts, _A.id == _F.alert_id)
            .where(_A.team_id == team_id, _F.alert_id == alert_id)
            .order_by(_F.fired_at, _F.subject)
        )
        return [_fired(row) for row in rows]

    def mark_fired(self, team_id: str, alert_id: str, subject: str, value: float) -> bool:
        """True for exactly one caller while the alert is armed for ``subject``."""
        statement = (
            self._db.insert(alert_fired)
            .from_select(
                ["alert_id", "subject", "value", "fired_at"],
                select(
                    _A.id, literal(subject), literal(float(value)), literal(self._clock())
                ).where(_A.team_id == team_id, _A.id == alert_id),
            )
            .on_conflict_do_nothing()
        )
        return self._db.change(statement) == 1

    def attach_message(
        self, team_id: str, alert_id: str, subject: str, *, channel: str, ts: str
    ) -> bool:
        """Remember where the alert was posted, so the recovery can reply in its thread."""
        changed = self._db.change(
            update(alert_fired)
            .where(
                _F.alert_id == alert_id,
                _F.subject == subject,
                _F.alert_id.in_(select(_A.id).where(_A.team_id == team_id)),
            )
            .values(channel=channel, message_ts=ts)
        )
        return changed == 1

    def recover(self, team_id: str, alert_id: str, subject: str) -> FiredAlert | None:
        """Re-arm ``subject``; the fired row when this caller re-armed it, else None.

        One ``DELETE ... RETURNING``: of two schedulers recovering at once, only the one
        whose delete removed the row gets it back (a read then a delete would let both see
        it on PostgreSQL, where readers do not wait for writers)."""
        statement = (
            delete(alert_fired)
            .where(
                _F.alert_id == alert_id,
                _F.subject == subject,
                _F.alert_id.in_(select(_A.id).where(_A.team_id == team_id)),
            )
            .returning(*alert_fired.c)
        )
        row = self._db.write(lambda conn: conn.execute(statement).mappings().first())
        return None if row is None else _fired(row)
