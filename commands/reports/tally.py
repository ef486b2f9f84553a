"""Counting call records as a stream: each page folded into counters as it arrives.

A busy campaign's week is hundreds of thousands of call records; holding them (or their
ids) to count them would make memory grow with the call center's traffic.  Here a page
is folded into a few counters and dropped, so what is kept is the counters: the
totals, one set per local hour and one per campaign, whatever the number of records.

``fold_records`` pages ``/v3/cdr`` with a bounded number of requests in flight and
hands every page to a ``PageFold``; ``CallTally`` is the fold behind every call figure
(``commands.reports.figures``).  A new figure made from call records (a KPI) is a new
``PageFold`` given to the same ``fold_records``, alone or beside a ``CallTally``
(``Folds``), so one pass over the records feeds them all.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields, replace
from datetime import datetime
from typing import Protocol, Unpack
from zoneinfo import ZoneInfo

from callcenter import CallCenter
from callcenter.models import Cdr, ExtensionCounters, StatsRow
from callcenter.resources.cdrs import CdrFilters
from commands.kernel.periods import SERVICE_TZ
from commands.kernel.text import parse_service_time

PAGE_SIZE = 1000
"""Records asked for per page; a service that serves fewer says so in ``limit``."""
IN_FLIGHT = 4
"""Pages requested at once: enough to hide the service's latency, few enough that one
count does not crowd out everyone else's requests."""

Progress = Callable[[int, int], None]
"""``progress(counted, total)``: called after each page."""


class PageFold(Protocol):
    """Something that folds pages of call records into a few counters."""

    def add_page(self, records: Sequence[Cdr]) -> None: ...


class Folds:
    """Several folds fed by one pass."""

    def __init__(self, *folds: PageFold) -> None:
        self.folds = folds

    def add_page(self, records: Sequence[Cdr]) -> None:
        for fold in self.folds:
            fold.add_page(records)


@dataclass(frozen=True)
class Counts:
    """The counters of a set of calls; the same whether read from the statistics or
    counted from call records."""

    calls: int = 0
    answered: int = 0
    busy: int = 0
    """The called party was busy (status ``busy``)."""
    line_busy: int = 0
    """No free line (status ``busy-line``); never added into ``busy``."""
    no_answer: int = 0
    not_available: int = 0
    cancelled: int = 0
    invalid: int = 0
    congestion: int = 0
    blocked: int = 0
    ivr: int = 0
    inbound: int = 0
    outbound: int = 0
    local: int = 0
    talk_seconds: int = 0
    wait_seconds: int = 0
    """Time before answer: duration less talk time."""

    def __add__(self, other: Counts) -> Counts:
        return Counts(
            **{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)}
        )

    @property
    def answer_rate(self) -> float | None:
        """Percent of the calls answered; None without calls."""
        return 100.0 * self.answered / self.calls if self.calls else None

    @property
    def average_talk(self) -> float | None:
        return self.talk_seconds / self.answered if self.answered else None

    @property
    def average_wait(self) -> float | None:
        return self.wait_seconds / self.calls if self.calls else None

    @classmethod
    def of_row(cls, row: StatsRow) -> Counts:
        """One ``/v2/stats`` bucket: an extension's counters and more."""
        return replace(
            cls.of_extension(row),
            congestion=row.congestion,
            blocked=row.phone_block,
            ivr=row.ivr,
            talk_seconds=row.total_billsec,
            wait_seconds=row.total_waitsec,
        )

    @classmethod
    def of_record(cls, record: Cdr) -> Counts:
        """One call record, counted as the statistics count it."""
        status = _STATUS.get(record.status.strip().lower().replace("_", "-"))
        direction = str(record.direction).strip().lower()
        values: dict[str, int] = {
            "calls": 1,
            "talk_seconds": record.billsec,
            "wait_seconds": max(0, record.duration - record.billsec),
            "ivr": int(record.app.strip().lower() in ("autocall", "ivr")),
        }
        if status:
            values[status] = 1
        if direction in ("inbound", "outbound", "local"):
            values[direction] = 1
        return cls(**values)

    @classmethod
    def of_extension(cls, row: ExtensionCounters | StatsRow) -> Counts:
        """One ``/v2/report/extension`` row (it has no durations), or the counters a
        ``/v2/stats`` bucket shares with it."""
        return cls(
            calls=row.total,
            answered=row.answered,
            busy=row.busy,
            line_busy=row.busy_line,
            no_answer=row.no_answered,
            not_available=row.not_available,
            cancelled=row.cancel,
            invalid=row.invalid,
            inbound=row.inbound,
            outbound=row.outbound,
            local=row.local,
        )


_STATUS = {
    "answered": "answered",
    "busy": "busy",
    "busy-line": "line_busy",
    "no-answered": "no_answer",
    "not-available": "not_available",
    "cancel": "cancelled",
    "invalid": "invalid",
    "congestion": "congestion",
    "phone-block": "blocked",
}
"""Record status -> counter, the statistics' own columns (other statuses count as calls)."""


_FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Counts))
_INDEX = {name: i for i, name in enumerate(_FIELDS)}
_CALLS, _IVR = _INDEX["calls"], _INDEX["ivr"]
_TALK, _WAIT = _INDEX["talk_seconds"], _INDEX["wait_seconds"]
_STATUS_INDEX = {status: _INDEX[name] for status, name in _STATUS.items()}
_DIRECTION_INDEX = {name: _INDEX[name] for name in ("inbound", "outbound", "local")}


class Counter:
    """Mutable ``Counts`` while counting: integers in ``Counts``' field order.

    ``Counts`` is immutable (figures are values); adding one record to it would build a
    new object per record.  This adds in place and becomes ``Counts`` once, at the end;
    ``Counts.of_record`` and this count a record alike (a test holds them to it)."""

    __slots__ = ("values",)

    def __init__(self) -> None:
        self.values = [0] * len(_FIELDS)

    def add_record(self, record: Cdr) -> None:
        v = self.values
        v[_CALLS] += 1
        status = _STATUS_INDEX.get(record.status.strip().lower().replace("_", "-"))
        if status is not None:
            v[status] += 1
        direction = _DIRECTION_INDEX.get(str(record.direction).strip().lower())
        if direction is not None:
            v[direction] += 1
        if record.app.strip().lower() in ("autocall", "ivr"):
            v[_IVR] += 1
        v[_TALK] += record.billsec
        v[_WAIT] += max(0, record.duration - record.billsec)

    def counts(self) -> Counts:
        return Counts(*self.values)


class Repeats:
    """Drops records already seen a few pages back.

    Paging newest first while calls end shifts records down: a record seen at the end of
    one page shows again at the start of a later one.  Repeats therefore come within a
    few pages of each other (the pages in flight), and remembering the ids of the last
    ``keep`` records catches them without remembering every id."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self._ids: dict[str, None] = {}

    def fresh(self, records: Sequence[Cdr]) -> Sequence[Cdr]:
        out = []
        ids = self._ids
        for record in records:
            if record.id:
                if record.id in ids:
                    continue
                ids[record.id] = None
                if len(ids) > self.keep:
                    del ids[next(iter(ids))]
            out.append(record)
        return out


class LocalHours:
    """The local hour (in ``tz``) a record's start time falls in; read once per minute
    of the period (zone offsets are whole minutes), not once per record."""

    def __init__(self, tz: ZoneInfo) -> None:
        self.tz = tz
        self._minutes: dict[str, datetime | None] = {}

    def __call__(self, started: str) -> datetime | None:
        minute = started[:16]
        if minute in self._minutes:
            return self._minutes[minute]
        if len(self._minutes) > 1024:
            # Pages run newest first: the minutes of a page are close together.
            self._minutes.clear()
        moment = parse_service_time(minute + ":00", SERVICE_TZ) if len(minute) == 16 else None
        hour = (
            moment.astimezone(self.tz).replace(minute=0, second=0, microsecond=0)
            if moment is not None
            else None
        )
        self._minutes[minute] = hour
        return hour


class CallTally:
    """The call counters of a stream of records: in total, per local hour (in ``tz``)
    and per campaign.  Memory grows with the hours and campaigns seen, never with the
    number of records."""

    def __init__(self, tz: ZoneInfo) -> None:
        self.tz = tz
        self.total = Counter()
        self.hours: dict[datetime, Counter] = {}
        self.campaigns: dict[str, Counter] = {}
        self.records = 0
        """Records counted."""
        self._hour = LocalHours(tz)

    def add_page(self, records: Sequence[Cdr]) -> None:
        for record in records:
            self.add(record)

    def add(self, record: Cdr) -> None:
        self.records += 1
        self.total.add_record(record)
        hour = self._hour(record.time_started)
        if hour is not None:
            counter = self.hours.get(hour)
            if counter is None:
                counter = self.hours[hour] = Counter()
            counter.add_record(record)
        if record.campaign_uuid:
            counter = self.campaigns.get(record.campaign_uuid)
            if counter is None:
                counter = self.campaigns[record.campaign_uuid] = Counter()
            counter.add_record(record)

    def hour_counts(self) -> dict[datetime, Counts]:
        return {hour: counter.counts() for hour, counter in self.hours.items()}

    def campaign_counts(self) -> dict[str, Counts]:
        return {uuid: counter.counts() for uuid, counter in self.campaigns.items()}


async def fold_records(
    cc: CallCenter,
    fold: PageFold,
    *,
    progress: Progress | None = None,
    page_size: int = PAGE_SIZE,
    in_flight: int = IN_FLIGHT,
    gate: asyncio.Semaphore | None = None,
    **filters: Unpack[CdrFilters],
) -> int:
    """Every record matching ``filters`` folded into ``fold``, page by page, at most
    ``in_flight`` pages requested at once; returns the total the service last gave.
    ``gate``, shared by several walks (one per campaign), bounds their requests together.

    The first page says how many records there are and how many the service serves a
    page; the rest are asked for by offset, each folded as it arrives (counting does not
    care about order) and dropped."""
    gate = gate or asyncio.Semaphore(max(1, in_flight))
    async with gate:
        first = await cc.cdrs.list(limit=page_size, offset=0, **filters)
    size = min(page_size, first.limit) if first.limit > 0 else page_size
    state = _Walk(total=first.total, next=len(first.data), counted=len(first.data))
    repeats = Repeats((max(1, in_flight) + 1) * size)
    fold.add_page(repeats.fresh(first.data))
    if progress is not None:
        progress(state.counted, state.total)
    if len(first.data) < size:
        return state.total
    del first

    async def worker() -> None:
        while state.next < state.total:
            offset = state.next
            state.next += size
            async with gate:
                page = await cc.cdrs.list(limit=size, offset=offset, **filters)
            state.total = max(state.total, page.total) if page.data else state.total
            fold.add_page(repeats.fresh(page.data))
            state.counted += len(page.data)
            if progress is not None:
                progress(min(state.counted, state.total), state.total)

    await asyncio.gather(*(worker() for _ in range(max(1, in_flight))))
    return state.total


class _Walk:
    __slots__ = ("counted", "next", "total")

    def __init__(self, *, total: int, next: int, counted: int) -> None:
        self.total = total
        self.next = next
        self.counted = counted
