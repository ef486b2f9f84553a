"""The service's time formats, both ways.

The service takes wall-clock times as ``YYYY-MM-DD HH:MM:SS`` (reports, statistics,
CDR filters; the CDR filters also take a bare ``YYYY-MM-DD``) and answers with that
format, with ISO 8601 (``created_at``, report ``time``) or with an empty string.  It
says nothing about time zones, so times are sent as the wall-clock time the caller
gives: an aware ``datetime`` is written in its own offset, never converted.  Convert
to the call center's zone before calling if that matters.
"""

from __future__ import annotations

from datetime import date, datetime, time

SERVICE_FORMAT = "%Y-%m-%d %H:%M:%S"
DATE_FORMAT = "%Y-%m-%d"

TimeArg = datetime | date | str
"""What every time argument of the client accepts."""


def _parse_service_string(value: str) -> datetime:
    """Accept only what the service accepts, so a typo fails here with a clear message
    instead of as an empty report."""
    text = value.strip()
    for fmt in (SERVICE_FORMAT, DATE_FORMAT):
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    raise ValueError(f"expected 'YYYY-MM-DD HH:MM:SS' or 'YYYY-MM-DD', got {value!r}")


def format_datetime(value: TimeArg, *, end_of_day: bool = False) -> str:
    """``YYYY-MM-DD HH:MM:SS`` for report and statistics windows.

    A bare date means the whole day: its start, or its last second when it closes a
    window (``end_of_day=True``), so ``stats(date, date)`` covers that day.
    """
    if isinstance(value, str):
        parsed = _parse_service_string(value)
        if len(value.strip()) == len("YYYY-MM-DD"):
            return _date_bound(parsed.date(), end_of_day)
        return parsed.strftime(SERVICE_FORMAT)
    if isinstance(value, datetime):
        return value.strftime(SERVICE_FORMAT)
    return _date_bound(value, end_of_day)


def _date_bound(day: date, end_of_day: bool) -> str:
    clock = time(23, 59, 59) if end_of_day else time(0, 0, 0)
    return datetime.combine(day, clock).strftime(SERVICE_FORMAT)


def format_cdr_date(value: TimeArg) -> str:
    """CDR filters take ``YYYY-MM-DD`` or ``YYYY-MM-DD HH:MM:SS`` (spec 4.7): a date is
    sent as a date and the service decides what the day covers."""
    if isinstance(value, str):
        parsed = _parse_service_string(value)
        if len(value.strip()) == len("YYYY-MM-DD"):
            return parsed.strftime(DATE_FORMAT)
        return parsed.strftime(SERVICE_FORMAT)
    if isinstance(value, datetime):
        return value.strftime(SERVICE_FORMAT)
    return value.strftime(DATE_FORMAT)


def parse_time(value: str | None) -> datetime | None:
    """Parse any time the service sends: ``YYYY-MM-DD HH:MM:SS``, ``YYYY-MM-DD``, ISO
    8601 with or without offset (``Z`` included).  Empty strings, None, and Go's zero
    time (year 1, how a Go service writes "never") mean "no time" and give None.

    Raises ValueError for anything else, so a format change is noticed, not guessed.
    """
    if value is None:
        return None
    text = value.strip()
    if not text:
        return None
    for fmt in (SERVICE_FORMAT, DATE_FORMAT):
        try:
            parsed = datetime.strptime(text, fmt)
        except ValueError:
            continue
        return None if parsed.year == 1 else parsed
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(f"not a time the service sends: {value!r}") from None
    return None if parsed.year == 1 else parsed


__all__ = [
    "DATE_FORMAT",
    "SERVICE_FORMAT",
    "TimeArg",
    "format_cdr_date",
    "format_datetime",
    "parse_time",
]
