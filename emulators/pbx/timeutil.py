"""The service's time formats, on the emulator side.

Wall-clock strings (``YYYY-MM-DD HH:MM:SS``) are read and written in the emulator's
time zone (``--timezone``, UTC unless told): the spec gives no zone, and the client
sends wall-clock times as given.  Bounds are inclusive to the second, and a bare date
as an upper bound means the whole day, so a report and a record listing asked for the
same window count the same records.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta, tzinfo

SERVICE_FORMAT = "%Y-%m-%d %H:%M:%S"


def fmt_service(epoch: float, tz: tzinfo) -> str:
    return datetime.fromtimestamp(epoch, tz).strftime(SERVICE_FORMAT)


def fmt_iso(epoch: float, tz: tzinfo) -> str:
    """ISO 8601 with the zone's offset (``created_at``, ``updated_at``)."""
    return datetime.fromtimestamp(int(epoch), tz).isoformat()


def fmt_iso_utc(epoch: float) -> str:
    """ISO 8601 in UTC with ``Z`` (report ``time``, ``last_call_time``)."""
    return datetime.fromtimestamp(int(epoch), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def parse_bound(value: str, tz: tzinfo, *, upper: bool) -> float:
    """A query-string time as a Unix time; raises ValueError for anything else.

    Accepts ``YYYY-MM-DD``, ``YYYY-MM-DD HH:MM:SS`` and ISO 8601 (``T``, fractions,
    ``Z`` or an offset).  Naive times are in ``tz``.  A bare date closes a window at
    its last second when ``upper``.
    """
    text = value.strip()
    if len(text) == 10:
        day = date.fromisoformat(text)
        moment = datetime.combine(day, time(23, 59, 59) if upper else time(0, 0, 0))
        return moment.replace(tzinfo=tz).timestamp()
    if len(text) < 19 or text[10] not in " T":
        raise ValueError(value)
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=tz)
    return parsed.timestamp()


def day_start(epoch: float, tz: tzinfo) -> float:
    local = datetime.fromtimestamp(epoch, tz)
    return datetime.combine(local.date(), time(0, 0, 0), tzinfo=tz).timestamp()


def bucket_start(epoch: float, tz: tzinfo, interval: str) -> datetime:
    """Start of the hour/day/week (Monday)/month holding ``epoch``, in ``tz``."""
    local = datetime.fromtimestamp(epoch, tz)
    if interval == "hour":
        return local.replace(minute=0, second=0, microsecond=0)
    start = local.replace(hour=0, minute=0, second=0, microsecond=0)
    if interval == "week":
        start = start - timedelta(days=start.weekday())
    elif interval == "month":
        start = start.replace(day=1)
    return start


def next_bucket(start: datetime, interval: str, tz: tzinfo) -> datetime:
    if interval == "hour":
        return datetime.fromtimestamp(start.timestamp() + 3600, tz)
    if interval == "day":
        return (start.replace(tzinfo=None) + timedelta(days=1)).replace(tzinfo=tz)
    if interval == "week":
        return (start.replace(tzinfo=None) + timedelta(days=7)).replace(tzinfo=tz)
    year, month = (start.year + 1, 1) if start.month == 12 else (start.year, start.month + 1)
    return start.replace(year=year, month=month, day=1)
