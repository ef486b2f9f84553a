"""Threshold alerts as data, and the fired/recovered state of each (alert, campaign).

The fired state is a row of ``alert_fired``: an alert fires when that row is inserted and
recovers when it is deleted, each a single statement whose row count says whether *this*
caller made the change.  That is what lets two schedulers check the same alert in the same
minute and still post "crossed" once and "recovered" once.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Any

from sqlite_utils import Database

from storage._rows import short_id
from storage.clock import Clock, system_clock
from storage.errors import NotFoundError
from storage.transactions import write_transaction
from storage.validation import check_id


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


def _alert(row: dict[str, Any]) -> Alert:
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


def _fired(row: dict[str, Any]) -> FiredAlert:
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
        self._db.execute(
            """INSERT INTO alerts (id, team_id, channel, metric, op, threshold, campaign_uuid,
                   campaign_name, window_minutes, created_by, created_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            [
                alert_id,
                check_id(team_id, "team id"),
                check_id(channel, "channel id"),
                metric,
                op,
                float(threshold),
                campaign_uuid,
                campaign_name,
                int(window_minutes),
                created_by,
                self._clock(),
            ],
        )
        return self.require(team_id, alert_id)

    def get(self, team_id: str, alert_id: str) -> Alert | None:
        rows = list(
            self._db.query("SELECT * FROM alerts WHERE team_id = ? AND id = ?", [team_id, alert_id])
        )
        return _alert(rows[0]) if rows else None

    def require(self, team_id: str, alert_id: str) -> Alert:
        found = self.get(team_id, alert_id)
        if found is None:
            raise NotFoundError(f"no alert {alert_id!r} in this workspace")
        return found

    def list(self, team_id: str) -> builtins.list[Alert]:
        return [
            _alert(row)
            for row in self._db.query(
                "SELECT * FROM alerts WHERE team_id = ? ORDER BY created_at, id", [team_id]
            )
        ]

    def all(self) -> builtins.list[Alert]:
        """Every workspace's alerts: the scheduler checks them all each minute."""
        return [
            _alert(row)
            for row in self._db.query("SELECT * FROM alerts ORDER BY team_id, created_at, id")
        ]

    def remove(self, team_id: str, alert_id: str) -> bool:
        with write_transaction(self._db):
            self._db.execute(
                "DELETE FROM alert_fired WHERE alert_id IN "
                "(SELECT id FROM alerts WHERE team_id = ? AND id = ?)",
                [team_id, alert_id],
            )
            cursor = self._db.execute(
                "DELETE FROM alerts WHERE team_id = ? AND id = ?", [team_id, alert_id]
            )
        return cursor.rowcount == 1

    def snooze(self, team_id: str, alert_id: str, until: float) -> Alert:
        """Silence the alert until ``until`` and re-arm it, so that if the threshold is still
        crossed when the snooze ends, people hear about it once more (and not before)."""
        with write_transaction(self._db):
            cursor = self._db.execute(
                "UPDATE alerts SET snoozed_until = ? WHERE team_id = ? AND id = ?",
                [until, team_id, alert_id],
            )
            if cursor.rowcount != 1:
                raise NotFoundError(f"no alert {alert_id!r} in this workspace")
            self._db.execute("DELETE FROM alert_fired WHERE alert_id = ?", [alert_id])
        return self.require(team_id, alert_id)

    def fired(self, team_id: str, alert_id: str) -> builtins.list[FiredAlert]:
        rows = self._db.query(
            """SELECT f.* FROM alert_fired f JOIN alerts a ON a.id = f.alert_id
               WHERE a.team_id = ? AND f.alert_id = ? ORDER BY f.fired_at, f.subject""",
            [team_id, alert_id],
        )
        return [_fired(row) for row in rows]

    def mark_fired(self, team_id: str, alert_id: str, subject: str, value: float) -> bool:
        """True for exactly one caller while the alert is armed for ``subject``."""
        cursor = self._db.execute(
            """INSERT OR IGNORE INTO alert_fired (alert_id, subject, value, fired_at)
               SELECT id, ?, ?, ? FROM alerts WHERE team_id = ? AND id = ?""",
            [subject, float(value), self._clock(), team_id, alert_id],
        )
        return cursor.rowcount == 1

    def attach_message(
        self, team_id: str, alert_id: str, subject: str, *, channel: str, ts: str
    ) -> bool:
        """Remember where the alert was posted, so the recovery can reply in its thread."""
        cursor = self._db.execute(
            """UPDATE alert_fired SET channel = ?, message_ts = ?
               WHERE alert_id = ? AND subject = ?
                 AND alert_id IN (SELECT id FROM alerts WHERE team_id = ?)""",
            [channel, ts, alert_id, subject, team_id],
        )
        return cursor.rowcount == 1

    def recover(self, team_id: str, alert_id: str, subject: str) -> FiredAlert | None:
        """Re-arm ``subject``; the fired row when this caller re-armed it, else None."""
        with write_transaction(self._db):
            rows = list(
                self._db.query(
                    """SELECT f.* FROM alert_fired f JOIN alerts a ON a.id = f.alert_id
                       WHERE a.team_id = ? AND f.alert_id = ? AND f.subject = ?""",
                    [team_id, alert_id, subject],
                )
            )
            if not rows:
                return None
            self._db.execute(
                "DELETE FROM alert_fired WHERE alert_id = ? AND subject = ?", [alert_id, subject]
            )
        return _fired(rows[0])
