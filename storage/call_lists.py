"""The two lists Decree 91/2020/ND-CP asks a caller to honour, and customers' consents.

- The company's own opt-out list ("Khách từ chối nhận cuộc gọi"): numbers whose owners
  refused further calls, each with when, who and from what (typed, a call record, a
  pressed key); every addition and removal is kept in ``optout_changes``.
- The national registry ("Danh sách không quảng cáo"): the authorities' file, uploaded
  whole each time.  Each upload is a version; a number's stay on it is one row
  (``since_version`` .. ``until_version``), so only changes make rows and any earlier
  version can be read back.
- Consents: a customer's agreement to advertising calls despite the registry, for every
  campaign or one, until a day or for good.

What the lists mean for a call is decided in ``commands/rules/lists.py``; this module
only keeps the facts.  Numbers are stored as the phone parser writes them.
``erase_number`` replaces one number everywhere it is kept (the privacy erasure's hook).
"""

from __future__ import annotations

import fcntl
import threading
import time
import zlib
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from sqlalchemy import and_, exists, func, insert, literal, or_, select, text, update
from sqlalchemy.engine import Connection
from sqlalchemy.sql import ColumnElement

from storage._rows import Store, from_row
from storage.database import Database, by_dialect
from storage.schema import (
    consents,
    optout_changes,
    optout_numbers,
    registry_numbers,
    registry_staging,
    registry_versions,
)
from storage.validation import check_id

_T = TypeVar("_T")

BATCH = 5000
"""Rows per query when a registry version is read back."""
STEP = 1000
"""Numbers per transaction when a registry file is written: each holds the write lock for
milliseconds, so other writers and readiness get through between them."""
_IN_LIMIT = 900
"""Numbers per ``IN (...)`` look-up: under SQLite's old 999-parameter limit."""

TYPED = "typed"
CALL = "call"
KEY = "key"
SOURCES = (TYPED, CALL, KEY)
"""Where an opt-out came from: typed by a person, a call record's button, a pressed key."""

_O = optout_numbers.c
_C = optout_changes.c
_V = registry_versions.c
_N = registry_numbers.c
_S = registry_staging.c
_K = consents.c

_ADD_OPTOUT = by_dialect(lambda insert_: insert_(optout_numbers).on_conflict_do_nothing())
_STAGE = by_dialect(lambda insert_: insert_(registry_staging).on_conflict_do_nothing())


@dataclass(frozen=True)
class OptOut:
    phone: str
    added_at: float
    added_by: str | None
    source: str
    call_id: str | None
    reason: str | None


@dataclass(frozen=True)
class OptOutChange:
    phone: str
    change: str
    source: str
    call_id: str | None
    reason: str | None
    changed_by: str | None
    at: float


@dataclass(frozen=True)
class RegistryVersion:
    version: int
    uploaded_at: float
    uploaded_by: str | None
    file_name: str
    numbers: int
    added: int
    removed: int


@dataclass(frozen=True)
class RegistryEntry:
    phone: str
    registered_on: str | None
    """As the file wrote it (``YYYY-MM-DD`` once read), None where it had none."""
    since_version: int


@dataclass(frozen=True)
class Consent:
    id: int
    phone: str
    campaign_uuid: str | None
    campaign_name: str | None
    source: str
    until: float | None
    """The end of its last day (None: for good)."""
    added_by: str | None
    added_at: float
    removed_by: str | None
    removed_at: float | None

    def valid(self, now: float, campaign_uuid: str | None = None) -> bool:
        """Whether it covers a call now (from ``campaign_uuid``, when it names one)."""
        if self.removed_at is not None or (self.until is not None and self.until <= now):
            return False
        return self.campaign_uuid is None or self.campaign_uuid == campaign_uuid


class CallListStore(Store):
    hasher: Callable[[str], str] | None = None
    """The keyed hash of a number (``SecretBox.keyed_hash``): a number erased at the
    customer's request stays on the lists as ``h:<hash>`` (``storage.personal_data``),
    and a look-up matches it by that form too, so the customer is never called again."""

    # --- the opt-out list -----------------------------------------------------------

    def add_optout(
        self,
        team_id: str,
        phones: Iterable[str],
        *,
        source: str,
        by: str | None,
        call_id: str | None = None,
        reason: str | None = None,
    ) -> list[str]:
        """Put numbers on the opt-out list; the ones that were not on it already (a
        second click of the same button adds nothing: the number is the key)."""
        if source not in SOURCES:
            raise ValueError(f"unknown opt-out source {source!r}")
        team_id = check_id(team_id, "team id")
        wanted = list(dict.fromkeys(phones))
        now = self._clock()
        statement = self._db.pick(_ADD_OPTOUT)
        details: dict[str, object] = {"source": source, "call_id": call_id, "reason": reason}

        def work(conn: Connection) -> list[str]:
            added: list[str] = []
            for phone in wanted:
                row = {"team_id": team_id, "phone": phone, "added_at": now, "added_by": by}
                if conn.execute(statement, {**row, **details}).rowcount > 0:
                    added.append(phone)
            if added:
                conn.execute(
                    insert(optout_changes),
                    [
                        {
                            "team_id": team_id,
                            "phone": p,
                            "change": "add",
                            "changed_by": by,
                            "at": now,
                        }
                        | details
                        for p in added
                    ],
                )
            return added

        return self._db.write(work)

    def remove_optout(
        self, team_id: str, phones: Iterable[str], *, by: str | None, reason: str | None = None
    ) -> list[str]:
        """Take numbers off the opt-out list; the ones that were on it."""
        wanted = list(dict.fromkeys(phones))
        now = self._clock()

        def work(conn: Connection) -> list[str]:
            removed: list[str] = []
            for phone in wanted:
                gone = conn.execute(
                    optout_numbers.delete().where(_O.team_id == team_id, _O.phone == phone)
                ).rowcount
                if gone <= 0:
                    continue
                removed.append(phone)
                conn.execute(
                    insert(optout_changes),
                    {
                        "team_id": team_id,
                        "phone": phone,
                        "change": "remove",
                        "source": TYPED,
                        "call_id": None,
                        "reason": reason,
                        "changed_by": by,
                        "at": now,
                    },
                )
            return removed

        return self._db.write(work)

    def optouts(self, team_id: str, phones: Iterable[str]) -> dict[str, OptOut]:
        """The entries of ``phones`` that are on the opt-out list."""
        wanted = list(dict.fromkeys(phones))

        def work(conn: Connection) -> dict[str, OptOut]:
            found: dict[str, OptOut] = {}
            for batch in _batches(wanted, _IN_LIMIT):
                query = select(optout_numbers).where(_O.team_id == team_id, _O.phone.in_(batch))
                for row in conn.execute(query).mappings():
                    found[row["phone"]] = from_row(OptOut, row)
            return found

        return self._db.read(work)

    def on_optout(self, team_id: str, phones: Iterable[str]) -> set[str]:
        """The numbers of ``phones`` on the opt-out list (a lead file's check asks for
        100,000 at once: only the numbers are read)."""
        return self._which(_O.phone, _O.team_id == team_id, phones)

    def on_registry_now(self, team_id: str, phones: Iterable[str]) -> set[str]:
        """The numbers of ``phones`` on the registry's current version."""
        return self._which(
            _N.phone, _N.team_id == team_id, phones, lambda conn: self._live(team_id, conn)
        )

    def _which(
        self,
        column: Any,
        team: ColumnElement[bool],
        phones: Iterable[str],
        more: Callable[[Connection], ColumnElement[bool]] | None = None,
    ) -> set[str]:
        """The numbers of ``phones`` in ``column``'s table (and ``more``, a condition made
        once per read, on the read's connection)."""
        wanted = list(dict.fromkeys(phones))
        hashed = {"h:" + self.hasher(p): p for p in wanted} if self.hasher else {}

        def work(conn: Connection) -> set[str]:
            found: set[str] = set()
            extra = [] if more is None else [more(conn)]
            for batch in _batches([*wanted, *hashed], _IN_LIMIT):
                query = select(column).where(team, column.in_(batch), *extra)
                found.update(hashed.get(str(row[0]), str(row[0])) for row in conn.execute(query))
            return found

        return self._db.read(work)

    def _live(self, team_id: str, conn: Connection) -> ColumnElement[bool]:
        """The registry's numbers on its current version: the newest version row decides,
        not ``until_version IS NULL`` alone, so an upload still being written (its rows
        carry the next version) shows nothing until its version row is written."""
        return _on_version(self._current_version(team_id, conn))

    def optout_size(self, team_id: str) -> int:
        query = select(func.count()).select_from(optout_numbers).where(_O.team_id == team_id)
        return int(self._db.scalar(query) or 0)

    def optouts_added_between(self, team_id: str, since: float, until: float) -> dict[str, int]:
        """Numbers put on the opt-out list in ``[since, until)``, by source (for the
        compliance report)."""
        query = (
            select(_C.source, func.count())
            .where(_C.team_id == team_id, _C.change == "add", _C.at >= since, _C.at < until)
            .group_by(_C.source)
        )
        return {str(row[0]): int(row[1]) for row in self._db.read(lambda c: list(c.execute(query)))}

    def consents_added_between(self, team_id: str, since: float, until: float) -> int:
        """Consents recorded in ``[since, until)``."""
        query = (
            select(func.count())
            .select_from(consents)
            .where(_K.team_id == team_id, _K.added_at >= since, _K.added_at < until)
        )
        return int(self._db.scalar(query) or 0)

    def optout_changes(self, team_id: str, *, limit: int = 5) -> list[OptOutChange]:
        """The latest changes of the opt-out list, newest first."""
        query = (
            select(optout_changes)
            .where(_C.team_id == team_id)
            .order_by(_C.at.desc(), _C.id.desc())
            .limit(limit)
        )
        return [from_row(OptOutChange, row) for row in self._db.all(query)]

    def all_optouts(self, team_id: str) -> Iterator[OptOut]:
        """Every entry of the opt-out list, oldest first (for the export)."""
        query = select(optout_numbers).where(_O.team_id == team_id).order_by(_O.added_at)
        for row in self._db.all(query):
            yield from_row(OptOut, row)

    # --- the national registry -----------------------------------------------------

    def upload_registry(
        self,
        team_id: str,
        entries: Iterable[tuple[str, str | None]],
        *,
        by: str | None,
        file_name: str,
    ) -> RegistryVersion | None:
        """A new version of the registry: exactly the numbers of ``entries`` (number,
        registration date or None), read as they stream by; what it added and removed
        against the version before.  None (and nothing left behind) when it holds none.

        A registry file has millions of numbers, and one transaction over them all held
        the write lock for most of a minute: every other writer was told "busy" and
        readiness failed meanwhile.  So the upload is written in short transactions of
        `STEP` numbers each, and stays all or nothing for readers another way: readers
        ask for the numbers of the newest version in ``registry_versions`` (`_live`), and
        that row is written last, in a step of its own.  Until then the new numbers
        (``since_version`` = the new version) and the closings (``until_version`` = it)
        are invisible.  In turn:

        1. take the team's upload turn (`_upload_turn`): a second upload waits for this
           one and becomes the version after it;
        2. clear what an upload cut half-way left behind (`_clear_unfinished`), so the
           previous version stays in force and this upload simply starts again;
        3. stage the file's numbers in ``registry_staging``, a batch per transaction;
        4. close the numbers of the current version the file no longer has, then open the
           file's numbers the current version does not have, a range of numbers per
           transaction;
        5. write the version row (readers see the new version from here on), then empty
           the staging table.

        Filling a missing registration date (step 4) shows at once, also in earlier
        versions: the date is the number's, not the version's."""
        team_id = check_id(team_id, "team id")
        with _upload_turn(self._db, team_id):
            version = self._current_version(team_id) + 1
            self._clear_unfinished(team_id, version)
            self._stage(team_id, version, entries)
            staged = and_(_S.team_id == team_id, _S.version == version)
            numbers = int(
                self._db.scalar(select(func.count()).select_from(registry_staging).where(staged))
                or 0
            )
            if not numbers:
                self._clear_unfinished(team_id, version)
                return None
            removed = self._close_missing(team_id, version)
            added = self._open_new(team_id, version)
            made = RegistryVersion(
                version=version,
                uploaded_at=self._clock(),
                uploaded_by=by,
                file_name=file_name,
                numbers=numbers,
                added=added,
                removed=removed,
            )
            row = {"team_id": team_id, **made.__dict__}
            self._db.write(lambda conn: conn.execute(insert(registry_versions), row))
            self._clear_staging(team_id, version)
            return made

    def _short(self, work: Callable[[Connection], _T]) -> _T:
        """One of an upload's short transactions.  On SQLite it is followed by a pause as
        long as it took: SQLite keeps no queue of waiting writers (each polls now and then
        until its busy timeout), so transactions run back to back would leave a waiting
        writer only instants to get in, and it could miss them all for a second.  Free
        half of the time, it gets in within its first few polls.  PostgreSQL queues
        waiting writers, so nothing is paused there."""
        began = time.monotonic()
        result = self._db.write(work)
        if self._db.is_sqlite:
            time.sleep(time.monotonic() - began)
        return result

    def _current_version(self, team_id: str, conn: Connection | None = None) -> int:
        """The newest version readers see (0 before the first upload)."""
        query = select(func.max(_V.version)).where(_V.team_id == team_id)
        if conn is not None:
            return int(conn.execute(query).scalar() or 0)
        return int(self._db.scalar(query) or 0)

    def _clear_unfinished(self, team_id: str, version: int) -> None:
        """Undo what an upload cut before its version row left: its staged numbers, the
        numbers it opened and the closings it made (``version`` is the one it was
        making: the newest written plus one).  Readers never saw any of it."""
        team = _N.team_id == team_id
        self._in_steps(registry_numbers.delete(), _N, team, _N.since_version >= version)
        self._in_steps(
            update(registry_numbers).values(until_version=None),
            _N,
            team,
            _N.until_version >= version,
        )
        versions = select(_S.version).where(_S.team_id == team_id).distinct()
        for row in self._db.all(versions):
            self._clear_staging(team_id, int(row["version"]))

    def _clear_staging(self, team_id: str, version: int) -> None:
        """Empty one upload's staged numbers (one version at a time: in order of number,
        each step then reads its numbers straight from the table's key)."""
        staged = (_S.team_id == team_id, _S.version == version)
        self._in_steps(registry_staging.delete(), _S, *staged)

    def _in_steps(self, statement: Any, columns: Any, *where: ColumnElement[bool]) -> None:
        """Run a DELETE or UPDATE on the rows matching ``where``, `STEP` numbers per
        transaction, in order of number.  Each step's numbers are found by a read first
        (finding them may scan the workspace's rows: no write lock is held meanwhile),
        then changed by number, the conditions checked again, in a short write."""

        def change(conn: Connection, *, phones: list[str]) -> None:
            conn.execute(statement.where(*where, columns.phone.in_(phones)))

        after = ""
        while True:
            batch = (
                select(columns.phone)
                .where(*where, columns.phone > after)
                .order_by(columns.phone)
                .limit(STEP)
            )
            phones = [str(row["phone"]) for row in self._db.all(batch)]
            if phones:
                self._short(partial(change, phones=phones))
            if len(phones) < STEP:
                return
            after = phones[-1]

    def _stage(self, team_id: str, version: int, entries: Iterable[tuple[str, str | None]]) -> None:
        """The file's numbers into ``registry_staging``, `STEP` per transaction (the file
        is read between them, outside any transaction)."""
        stage = self._db.pick(_STAGE)

        def step(conn: Connection, *, rows: list[dict[str, object]]) -> None:
            conn.execute(stage, rows)

        for batch in _batches(entries, STEP):
            rows: list[dict[str, object]] = [
                {"team_id": team_id, "version": version, "phone": p, "registered_on": d}
                for p, d in batch
            ]
            self._short(partial(step, rows=rows))

    def _close_missing(self, team_id: str, version: int) -> int:
        """Mark the numbers of the current version that the staged file lacks as ended
        at ``version``, a range of `STEP` current numbers per transaction; how many."""
        staged = and_(_S.team_id == team_id, _S.version == version, _S.phone == _N.phone)
        current = and_(_N.team_id == team_id, _N.until_version.is_(None))

        def step(conn: Connection, *, after: str) -> tuple[int, str | None]:
            window = select(_N.phone).where(current, _N.phone > after).order_by(_N.phone)
            last = conn.execute(window.offset(STEP - 1).limit(1)).scalar()
            upto = [] if last is None else [_N.phone <= last]
            closed = conn.execute(
                update(registry_numbers)
                .where(current, _N.phone > after, *upto, ~exists().where(staged))
                .values(until_version=version)
            ).rowcount
            return max(closed, 0), last

        return self._by_ranges(step)

    def _open_new(self, team_id: str, version: int) -> int:
        """Add the staged numbers the current version lacks as starting at ``version``,
        and date the ones it has without a date, a range of `STEP` staged numbers per
        transaction; how many were added."""
        staged = and_(_S.team_id == team_id, _S.version == version)
        current = (
            select(literal(1))
            .select_from(registry_numbers)
            .where(_N.team_id == team_id, _N.phone == _S.phone, _N.until_version.is_(None))
            .exists()
        )

        def step(conn: Connection, *, after: str) -> tuple[int, str | None]:
            window = select(_S.phone).where(staged, _S.phone > after).order_by(_S.phone)
            last = conn.execute(window.offset(STEP - 1).limit(1)).scalar()
            in_range = [_S.phone > after] + ([] if last is None else [_S.phone <= last])
            added = conn.execute(
                insert(registry_numbers).from_select(
                    ["team_id", "phone", "since_version", "until_version", "registered_on"],
                    select(
                        literal(team_id),
                        _S.phone,
                        literal(version),
                        literal(None),
                        _S.registered_on,
                    ).where(staged, *in_range, ~current),
                )
            ).rowcount
            dated = (
                select(_S.registered_on)
                .where(staged, _S.phone == _N.phone, _S.registered_on.is_not(None))
                .scalar_subquery()
            )
            mine = [_N.phone > after] + ([] if last is None else [_N.phone <= last])
            conn.execute(  # a later file may date a number an earlier one did not
                update(registry_numbers)
                .where(
                    _N.team_id == team_id,
                    *mine,
                    _N.until_version.is_(None),
                    _N.registered_on.is_(None),
                    dated.is_not(None),
                )
                .values(registered_on=dated)
            )
            return max(added, 0), last

        return self._by_ranges(step)

    def _by_ranges(self, step: Callable[..., tuple[int, str | None]]) -> int:
        """Run ``step`` over consecutive ranges of numbers, one transaction each: it is
        given the last number of the range before and returns its count and the last
        number of its own range (None: it was the last range); the counts' sum."""
        total, after = 0, ""
        while True:
            found: tuple[int, str | None] = self._short(partial(step, after=after))
            total += found[0]
            if found[1] is None:
                return total
            after = found[1]

    def on_registry(self, team_id: str, phones: Iterable[str]) -> dict[str, RegistryEntry]:
        """The entries of ``phones`` on the registry's current version."""
        wanted = list(dict.fromkeys(phones))

        def work(conn: Connection) -> dict[str, RegistryEntry]:
            found: dict[str, RegistryEntry] = {}
            live = self._live(team_id, conn)
            for batch in _batches(wanted, _IN_LIMIT):
                query = select(_N.phone, _N.registered_on, _N.since_version).where(
                    _N.team_id == team_id, _N.phone.in_(batch), live
                )
                for row in conn.execute(query).mappings():
                    found[row["phone"]] = from_row(RegistryEntry, row)
            return found

        return self._db.read(work)

    def registry_versions(self, team_id: str, *, limit: int = 5) -> list[RegistryVersion]:
        """The latest versions, newest first."""
        query = (
            select(registry_versions)
            .where(_V.team_id == team_id)
            .order_by(_V.version.desc())
            .limit(limit)
        )
        return [from_row(RegistryVersion, row) for row in self._db.all(query)]

    def registry_version(self, team_id: str, version: int | None = None) -> RegistryVersion | None:
        """One version (None: the current one), or None when there is no such upload."""
        query = select(registry_versions).where(_V.team_id == team_id)
        if version is None:
            query = query.order_by(_V.version.desc()).limit(1)
        else:
            query = query.where(_V.version == version)
        return self._one(RegistryVersion, query, None)

    def registry_entries(self, team_id: str, version: int) -> Iterator[RegistryEntry]:
        """The numbers of the registry as ``version`` had them, in order of number, read
        a batch at a time (a registry has millions: they are never all in memory)."""
        after = ""
        while True:
            query = (
                select(_N.phone, _N.registered_on, _N.since_version)
                .where(
                    _N.team_id == team_id,
                    _N.phone > after,
                    _on_version(version),
                )
                .order_by(_N.phone)
                .limit(BATCH)
            )
            rows = self._db.all(query)
            for row in rows:
                yield from_row(RegistryEntry, row)
            if len(rows) < BATCH:
                return
            after = str(rows[-1]["phone"])

    def registry_size(self, team_id: str) -> int:
        """How many numbers the current version has."""

        def work(conn: Connection) -> int:
            query = (
                select(func.count())
                .select_from(registry_numbers)
                .where(_N.team_id == team_id, self._live(team_id, conn))
            )
            return int(conn.execute(query).scalar() or 0)

        return self._db.read(work)

    # --- consents -------------------------------------------------------------------

    def add_consent(
        self,
        team_id: str,
        phone: str,
        *,
        source: str,
        by: str | None,
        campaign_uuid: str | None = None,
        campaign_name: str | None = None,
        until: float | None = None,
    ) -> Consent:
        at = self._clock()
        values = {
            "team_id": check_id(team_id, "team id"),
            "phone": phone,
            "campaign_uuid": campaign_uuid,
            "campaign_name": campaign_name,
            "source": source,
            "until": until,
            "added_by": by,
            "added_at": at,
        }

        def work(conn: Connection) -> int:
            key = conn.execute(insert(consents), values).inserted_primary_key
            return int(key[0]) if key else 0

        made = self._db.write(work)
        return Consent(made, phone, campaign_uuid, campaign_name, source, until, by, at, None, None)

    def remove_consents(
        self, team_id: str, phone: str, *, by: str | None, campaign_uuid: str | None = None
    ) -> int:
        """End the number's consents (only those for ``campaign_uuid`` when given); how
        many.  They stay, ended, as the record of what allowed earlier calls."""
        where = [_K.team_id == team_id, _K.phone == phone, _K.removed_at.is_(None)]
        if campaign_uuid is not None:
            where.append(_K.campaign_uuid == campaign_uuid)
        statement = update(consents).where(*where).values(removed_by=by, removed_at=self._clock())
        return max(self._db.change(statement), 0)

    def consents_of(self, team_id: str, phones: Collection[str]) -> list[Consent]:
        """Every consent recorded for ``phones`` that was not removed, oldest first."""
        wanted = list(dict.fromkeys(phones))

        def work(conn: Connection) -> list[Consent]:
            found: list[Consent] = []
            for batch in _batches(wanted, _IN_LIMIT):
                query = (
                    select(consents)
                    .where(_K.team_id == team_id, _K.phone.in_(batch), _K.removed_at.is_(None))
                    .order_by(_K.added_at, _K.id)
                )
                found.extend(from_row(Consent, row) for row in conn.execute(query).mappings())
            return found

        return self._db.read(work)

    def live_consents(self, team_id: str, *, now: float) -> list[Consent]:
        """Every consent in force now (not removed, not expired), soonest to end first."""
        query = (
            select(consents)
            .where(
                _K.team_id == team_id,
                _K.removed_at.is_(None),
                or_(_K.until.is_(None), _K.until > now),
            )
            .order_by(_K.until.is_(None), _K.until, _K.added_at)
        )
        return [from_row(Consent, row) for row in self._db.all(query)]

    def expiring(self, team_id: str, *, now: float, within: float) -> list[Consent]:
        """Consents in force now that end within ``within`` seconds (digests list them)."""
        return [
            c for c in self.live_consents(team_id, now=now) if c.until and c.until <= now + within
        ]

    # --- erasure --------------------------------------------------------------------

    def erase_number(self, team_id: str, phone: str, replacement: str) -> int:
        """Replace ``phone`` by ``replacement`` (a keyed hash) wherever these lists keep
        it, so a list entry can outlive the number it names; how many rows changed."""
        tables = (optout_numbers, optout_changes, registry_numbers, consents)

        def work(conn: Connection) -> int:
            changed = 0
            for table in tables:
                result = conn.execute(
                    update(table)
                    .where(table.c.team_id == team_id, table.c.phone == phone)
                    .values(phone=replacement)
                )
                changed += max(result.rowcount, 0)
            return changed

        return self._db.write(work)


def _on_version(version: int) -> ColumnElement[bool]:
    """A number's stay covers ``version``."""
    return and_(
        _N.since_version <= version,
        or_(_N.until_version.is_(None), _N.until_version > version),
    )


_TURNS: dict[tuple[str, str], threading.Lock] = {}
_TURNS_GUARD = threading.Lock()


@contextmanager
def _upload_turn(db: Database, team_id: str) -> Iterator[None]:
    """One registry upload at a time per workspace, held for the whole upload but outside
    any transaction (so it blocks no other writer): the next one waits, then makes the
    version after it.  Between processes the database holds the turn: on PostgreSQL a
    session advisory lock on a connection of its own, on a SQLite file an exclusive
    ``flock`` on a file beside it.  Both end with the process, so an upload cut by a
    crash never keeps the turn; the next upload clears what it left."""
    key = (db.where, team_id)
    with _TURNS_GUARD:
        turn = _TURNS.setdefault(key, threading.Lock())
    with turn:
        if db.is_sqlite:
            path = db.engine.url.database
            if not path or path == ":memory:":
                yield
                return
            with open(f"{path}.registry-upload.lock", "a+b") as held:
                fcntl.flock(held, fcntl.LOCK_EX)  # released when the file is closed
                yield
            return
        lock_key = zlib.crc32(f"registry upload {team_id}".encode())
        with db.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            # Waits in PostgreSQL's own queue until the other upload lets go.
            conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": lock_key})
            try:
                yield
            finally:
                conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": lock_key})


def _batches(items: Iterable[_T], size: int) -> Iterator[list[_T]]:
    batch: list[_T] = []
    for item in items:
        batch.append(item)
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
