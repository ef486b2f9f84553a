"""What the rule watch keeps: where rule events go, whether it enforces the hours, the
call records it judged, and what it did once across replicas.

The service dials on its own (autodialer and autocall campaigns), so callops cannot stop
every call the calling rules forbid; it can see them.  Each outbound call record of a
watched workspace (one with a rules channel) is noted once, whichever way it came (the
callback or the listing), judged by one process (a claim with a lease), and a breach is
posted once.  ``rules enforce`` pauses advertising campaigns when the calling hours close
and starts again those it paused when they open; each pause and each start is claimed as
a slot here first, so two replicas never both act.  Whether a call breaks a rule is
decided in ``commands/rules/watch.py``; this module only keeps the facts.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import and_, delete, or_, select, update
from sqlalchemy.engine import Connection, RowMapping
from sqlalchemy.sql import Executable

from storage._rows import Store
from storage.database import by_dialect, upsert
from storage.schema import rule_paused, rule_watch, rule_watch_records, rule_watch_slots
from storage.validation import check_id

LEASE = 120.0
"""Seconds a process has to judge a record it claimed before another may take it over."""
KEEP_SETTLED = 3 * 86_400.0
"""How long a record judged within the rules is remembered (the listing reads back a few
minutes; a callback may come late): after that only breaches are kept."""
KEEP_SLOTS = 8 * 86_400.0

_W = rule_watch.c
_R = rule_watch_records.c
_S = rule_watch_slots.c
_P = rule_paused.c

NEW, OK, BREACH = "new", "ok", "breach"

_NOTE = by_dialect(lambda insert_: insert_(rule_watch_records).on_conflict_do_nothing())
_CLAIM_SLOT = by_dialect(lambda insert_: insert_(rule_watch_slots).on_conflict_do_nothing())
_REMEMBER_PAUSED = upsert(rule_paused)


@functools.cache
def _upsert(columns: tuple[str, ...]) -> dict[str, Executable]:
    return upsert(rule_watch, "updated_by", "updated_at", *columns)


@dataclass(frozen=True)
class WatchSettings:
    team_id: str
    channel: str | None = None
    enforce: bool = False
    listed_until: float | None = None


@dataclass(frozen=True)
class NotedRecord:
    """An outbound call record to judge: whose campaign, to whom, when it started."""

    record_id: str
    campaign_uuid: str
    phone: str
    started_at: float
    claimed_before: float | None = None
    """When a process that did not finish claimed it (its post may have gone out)."""


@dataclass(frozen=True)
class PausedCampaign:
    campaign_uuid: str
    campaign_name: str
    slot: str
    paused_at: float


def _settings(row: RowMapping) -> WatchSettings:
    return WatchSettings(
        team_id=str(row["team_id"]),
        channel=row["channel"],
        enforce=bool(row["enforce"]),
        listed_until=row["listed_until"],
    )


class RuleWatchStore(Store):
    # --- settings ---------------------------------------------------------------------

    def settings(self, team_id: str) -> WatchSettings:
        row = self._db.first(select(rule_watch).where(_W.team_id == team_id))
        return _settings(row) if row else WatchSettings(team_id)

    def watched(self) -> list[WatchSettings]:
        """Every workspace with a rules channel or enforcing the hours."""
        enforcing = _W.enforce == True  # noqa: E712 - a Flag: 0 or 1 on both engines
        query = select(rule_watch).where(or_(_W.channel.is_not(None), enforcing))
        return [_settings(row) for row in self._db.all(query)]

    def set_channel(self, team_id: str, channel: str | None, *, by: str | None) -> None:
        self._set(team_id, by, channel=channel)

    def set_enforce(self, team_id: str, enforce: bool, *, by: str | None) -> None:
        self._set(team_id, by, enforce=enforce)

    def _set(self, team_id: str, by: str | None, **columns: object) -> None:
        values: dict[str, object] = {
            "team_id": check_id(team_id, "team id"),
            "updated_by": by,
            "updated_at": self._clock(),
            **columns,
        }
        self._db.change(self._db.pick(_upsert(tuple(columns))), values)

    def listed(self, team_id: str, until: float) -> None:
        """The service's records were read up to ``until`` (ended calls)."""
        self._db.change(update(rule_watch).where(_W.team_id == team_id).values(listed_until=until))

    # --- records ----------------------------------------------------------------------

    def note(self, team_id: str, records: Iterable[NotedRecord]) -> int:
        """Remember records to judge (one seen before is left as it is); how many were
        new.  Only a watched workspace's records are kept."""
        now = self._clock()
        rows = [
            {
                "team_id": team_id,
                "record_id": r.record_id,
                "campaign_uuid": r.campaign_uuid,
                "phone": r.phone,
                "started_at": r.started_at,
                "state": NEW,
                "noted_at": now,
            }
            for r in records
        ]
        if not rows:
            return 0
        watched = select(_W.team_id).where(_W.team_id == team_id, _W.channel.is_not(None))
        if self._db.first(watched) is None:
            return 0  # read first: a workspace nobody watches never takes the write lock
        statement = self._db.pick(_NOTE)

        def work(conn: Connection) -> int:
            return sum(max(conn.execute(statement, row).rowcount, 0) for row in rows)

        return self._db.write(work)

    def has_new(self, team_id: str) -> bool:
        """Whether a record waits to be judged (and no live claimer holds it)."""
        query = (
            select(_R.record_id)
            .where(
                _R.team_id == team_id,
                _R.state == NEW,
                or_(_R.claimed_at.is_(None), _R.claimed_at < self._clock() - LEASE),
            )
            .limit(1)
        )
        return self._db.first(query) is not None

    def claim_new(self, team_id: str, limit: int = 200) -> list[NotedRecord]:
        """Records noted and not judged yet, claimed for this process (one claimed by a
        process that did not finish within the lease is taken over)."""
        now = self._clock()

        def work(conn: Connection) -> list[NotedRecord]:
            rows = conn.execute(
                select(rule_watch_records)
                .where(
                    _R.team_id == team_id,
                    _R.state == NEW,
                    or_(_R.claimed_at.is_(None), _R.claimed_at < now - LEASE),
                )
                .order_by(_R.started_at)
                .limit(limit)
            ).mappings()
            taken: list[NotedRecord] = []
            for row in list(rows):
                claimed = conn.execute(
                    update(rule_watch_records)
                    .where(
                        _R.team_id == team_id,
                        _R.record_id == row["record_id"],
                        _R.state == NEW,
                        _R.claimed_at.is_(None)
                        if row["claimed_at"] is None
                        else _R.claimed_at == row["claimed_at"],
                    )
                    .values(claimed_at=now)
                ).rowcount
                if claimed:
                    taken.append(
                        NotedRecord(
                            str(row["record_id"]),
                            str(row["campaign_uuid"]),
                            str(row["phone"] or ""),
                            float(row["started_at"]),
                            row["claimed_at"],
                        )
                    )
            return taken

        return self._db.write(work)

    def settle(
        self, team_id: str, record_id: str, rules: Sequence[str], *, posted_ts: str | None = None
    ) -> None:
        """The record was judged: within the rules (none broken; its number forgotten) or
        a breach of ``rules``, posted as ``posted_ts`` when there was a channel."""
        values: dict[str, object] = {"state": BREACH if rules else OK, "rules": tuple(rules)}
        if rules:
            values["posted_ts"] = posted_ts
        else:
            values["phone"] = None
        self._db.change(
            update(rule_watch_records)
            .where(_R.team_id == team_id, _R.record_id == record_id)
            .values(**values)
        )

    def breaches_between(self, team_id: str, start: float, end: float) -> Counter[str]:
        """Calls started in ``[start, end)`` that broke the rules: ``""`` counts the calls,
        each rule's name the calls that broke it."""
        query = select(_R.rules).where(
            _R.team_id == team_id,
            _R.state == BREACH,
            _R.started_at >= start,
            _R.started_at < end,
        )
        found: Counter[str] = Counter()
        for row in self._db.all(query):
            found[""] += 1
            found.update(row["rules"])
        return found

    def prune(self, team_id: str) -> None:
        """Forget records judged within the rules and slots that are long past."""
        now = self._clock()

        def work(conn: Connection) -> None:
            conn.execute(
                delete(rule_watch_records).where(
                    _R.team_id == team_id,
                    _R.state == OK,
                    _R.noted_at < now - KEEP_SETTLED,
                )
            )
            conn.execute(
                delete(rule_watch_slots).where(_S.team_id == team_id, _S.at < now - KEEP_SLOTS)
            )

        self._db.write(work)

    # --- once across replicas -----------------------------------------------------------

    def claim_slot(self, team_id: str, subject: str, action: str, slot: str) -> bool:
        """Whether this process is the one to do ``action`` to ``subject`` at ``slot``."""
        values = {
            "team_id": team_id,
            "subject": subject,
            "action": action,
            "slot": slot,
            "at": self._clock(),
        }
        return self._db.change(self._db.pick(_CLAIM_SLOT), values) > 0

    def release_slot(self, team_id: str, subject: str, action: str, slot: str) -> None:
        """The action failed before it had an effect: the next tick may try again."""
        self._db.change(
            delete(rule_watch_slots).where(
                and_(
                    _S.team_id == team_id,
                    _S.subject == subject,
                    _S.action == action,
                    _S.slot == slot,
                )
            )
        )

    # --- campaigns paused by the rules ------------------------------------------------

    def remember_paused(self, team_id: str, campaign_uuid: str, name: str, slot: str) -> None:
        values = {
            "team_id": team_id,
            "campaign_uuid": campaign_uuid,
            "campaign_name": name,
            "slot": slot,
            "paused_at": self._clock(),
        }
        self._db.change(self._db.pick(_REMEMBER_PAUSED), values)

    def paused(self, team_id: str) -> dict[str, PausedCampaign]:
        query = select(rule_paused).where(_P.team_id == team_id)
        return {
            str(row["campaign_uuid"]): PausedCampaign(
                str(row["campaign_uuid"]),
                str(row["campaign_name"]),
                str(row["slot"]),
                float(row["paused_at"]),
            )
            for row in self._db.all(query)
        }

    def forget_paused(self, team_id: str, campaign_uuid: str) -> None:
        self._db.change(
            delete(rule_paused).where(_P.team_id == team_id, _P.campaign_uuid == campaign_uuid)
        )
