"""A real call center's day: ``callops emulator --volume CALLS_PER_DAY[:DAYS]``.

The seeded demo data holds a few thousand call records; a telesales or collections
center places hundreds of thousands a day.  ``seed_volume`` adds ``calls_per_day``
records to each of the ``days`` whole days before today, and today's share of them up
to now, to the ``demo`` domain.  They are written to the same ``cdrs`` table as every
other record, so listings, filters, paging and every report (``/v2/stats`` included)
answer them exactly as they answer the seeded data, and the statistics agree with a
count over the listed records by construction (both read the same rows).

Each day draws from its own random stream (``volume:<seed>:<domain>:<date>``), so a
seed gives the same records for the same dates whatever else was generated.  Traffic
follows a call center's day: quiet nights, a morning peak around 10:00, a lunch dip, an
afternoon peak around 15:00 and a tail into the evening.  Customers' numbers spread over
Vietnam's mobile networks by their market share, by the networks' own prefixes; the
records carry only the fields of spec 2.9.
"""

from __future__ import annotations

import itertools
import random
import sqlite3
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, tzinfo

from emulators.pbx import fakedata as fd
from emulators.pbx.incidents import Incidents
from emulators.pbx.schema import CDR_INSERT
from emulators.pbx.timeutil import day_start

MAX_CALLS_PER_DAY = 5_000_000
MAX_DAYS = 62

HOUR_WEIGHTS: tuple[int, ...] = (
    1, 1, 1, 1, 1, 2, 6, 20, 60, 95, 100, 85,
    40, 60, 90, 95, 85, 55, 30, 20, 14, 8, 4, 2,
)  # fmt: skip
"""Relative traffic of each local hour 00..23: quiet nights, a morning and an
afternoon peak, a lunch dip."""
_CUM_HOURS = tuple(itertools.accumulate(HOUR_WEIGHTS))

MOBILE_NETWORKS: tuple[tuple[str, int, tuple[str, ...]], ...] = (
    ("Viettel", 54, ("086", "096", "097", "098", "032", "033", "034", "035", "036", "037", "038")),
    ("Vinaphone", 20, ("088", "091", "094", "081", "082", "083", "084", "085")),
    ("Mobifone", 19, ("089", "090", "093", "070", "076", "077", "078", "079")),
    ("Vietnamobile", 4, ("092", "056", "058")),
    ("Gmobile", 1, ("099", "059")),
    ("iTel", 1, ("087",)),
    ("Reddi", 1, ("055",)),
)
"""Vietnam's mobile networks, their rough share of subscribers (percent) and prefixes.
The service names the first four ``operator_a``..``operator_d`` and the rest ``offnet``
(spec, naming note); the records carry only the numbers."""
_NETWORK_CUM = tuple(itertools.accumulate(share for _, share, _ in MOBILE_NETWORKS))
CUSTOMERS = 50_000
"""Distinct customers a domain's calls go to; 70 % of calls reach one of them again."""
CHUNK = 20_000


@dataclass(frozen=True)
class Volume:
    """``CALLS_PER_DAY[:DAYS]`` of ``--volume``."""

    calls_per_day: int
    days: int = 7

    @classmethod
    def parse(cls, text: str) -> Volume:
        per_day, _, days = text.strip().partition(":")
        try:
            volume = cls(int(per_day.replace("_", "")), int(days) if days else 7)
        except ValueError:
            raise ValueError(
                f"volume must be CALLS_PER_DAY[:DAYS], for example 500000:7, not {text!r}"
            ) from None
        if not 1 <= volume.calls_per_day <= MAX_CALLS_PER_DAY:
            raise ValueError(f"calls per day must be between 1 and {MAX_CALLS_PER_DAY:,}")
        if not 1 <= volume.days <= MAX_DAYS:
            raise ValueError(f"days must be between 1 and {MAX_DAYS}")
        return volume

    def __str__(self) -> str:
        return f"{self.calls_per_day}:{self.days}"


def mobile_number(rng: random.Random) -> str:
    """A customer's mobile number, its network drawn by market share."""
    _, _, prefixes = rng.choices(MOBILE_NETWORKS, cum_weights=_NETWORK_CUM)[0]
    return f"{rng.choice(prefixes)}{rng.randrange(10_000_000):07d}"


class VolumeFactory(fd.CdrFactory):
    """The seeded records' factory with a call center's customer base: many customers,
    numbers spread over the networks by share."""

    def _customer(self) -> tuple[str, str]:
        rng = self.rng
        if rng.random() < 0.7:
            return rng.choice(self.ctx.customers)
        return mobile_number(rng), fd.person(rng).full


def day_starts(rng: random.Random, start: float, count: int) -> list[int]:
    """``count`` call starts in the local day beginning at ``start``, shaped like a call
    center's traffic, oldest first."""
    hours = rng.choices(range(24), cum_weights=_CUM_HOURS, k=count)
    base = int(start)
    return sorted(base + hour * 3600 + rng.randrange(3600) for hour in hours)


def volume_context(
    conn: sqlite3.Connection, seed: int, domain_name: str
) -> tuple[str, fd.DomainContext]:
    """The domain's uuid and what its volume records refer to, its customers spread
    over the networks by share (the same for a seed, whatever the span filled)."""
    row = conn.execute(
        "SELECT domain_uuid FROM domains WHERE domain_name = ?", (domain_name,)
    ).fetchone()
    if row is None:
        raise ValueError(f"no domain {domain_name!r}")
    domain_uuid = row[0]
    base_rng = random.Random(f"volume:{seed}:{domain_name}")
    ctx = fd.load_context(conn, domain_uuid, base_rng)
    ctx = replace(
        ctx,
        customers=tuple(
            (mobile_number(base_rng), fd.person(base_rng).full) for _ in range(CUSTOMERS)
        ),
    )
    return domain_uuid, ctx


def seed_volume(
    conn: sqlite3.Connection,
    seed: int,
    now: float,
    tz: tzinfo,
    volume: Volume,
    domain_name: str = "demo",
    incidents: Incidents | None = None,
) -> int:
    """Add the volume's records to ``domain_name``; returns how many were written.
    Today's records after an incident's start follow it (``incidents``)."""
    _, ctx = volume_context(conn, seed, domain_name)
    today = datetime.fromtimestamp(day_start(now, tz), tz).replace(tzinfo=None)
    written = 0
    conn.execute("BEGIN")
    try:
        for back in range(volume.days, -1, -1):
            day = today - timedelta(days=back)
            rng = random.Random(f"volume:{seed}:{domain_name}:{day.date().isoformat()}")
            factory = VolumeFactory(ctx, rng, tz, incidents)
            starts = day_starts(rng, day.replace(tzinfo=tz).timestamp(), volume.calls_per_day)
            if back == 0:
                starts = [t for t in starts if t + 600 < now]
            written += _write(conn, factory, starts)
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return written


def fill_span(
    conn: sqlite3.Connection,
    seed: int,
    now: float,
    tz: tzinfo,
    calls_per_day: int,
    span: tuple[float, float],
    domain_name: str = "demo",
    incidents: Incidents | None = None,
) -> int:
    """Add a call center's traffic of ``calls_per_day`` to the part of ``span``
    (start, end) that has ended by ``now`` (a call started 10 minutes ago has ended);
    returns how many records were written.  Each (day, span) draws from its own stream,
    so two spans of one day never repeat a record's id."""
    _, ctx = volume_context(conn, seed, domain_name)
    first, last = span[0], min(span[1], now - 600)
    written = 0
    day = datetime.fromtimestamp(day_start(first, tz), tz).replace(tzinfo=None)
    while day.replace(tzinfo=tz).timestamp() < last:
        key = f"volume:{seed}:{domain_name}:{day.date().isoformat()}:{first:.0f}:{last:.0f}"
        rng = random.Random(key)
        factory = VolumeFactory(ctx, rng, tz, incidents)
        starts = day_starts(rng, day.replace(tzinfo=tz).timestamp(), calls_per_day)
        written += _write(conn, factory, [t for t in starts if first <= t < last])
        day += timedelta(days=1)
    return written


def _write(conn: sqlite3.Connection, factory: VolumeFactory, starts: list[int]) -> int:
    for first in range(0, len(starts), CHUNK):
        conn.executemany(CDR_INSERT, factory.rows(starts[first : first + CHUNK]))
    return len(starts)
