"""Period words and typed times, read in the workspace's timezone.

A supervisor in Ho Chi Minh City who types ``stats today`` means *her* midnight, not
the server's.  So every window is built in ``ctx.tz`` and only converted to the
service's clock when it is sent.  The service gives no zone for its wall-clock times
(spec 4.2); like ``commands.kernel.text.parse_service_time`` we take them as UTC, so the two
directions agree and a record shown at "14:03" was found by a window containing 14:03.

Periods are rolling and made of whole local days, so day buckets line up with them:
``today`` is local midnight until now, ``yesterday`` the whole previous local day,
``week`` the last 7 days including today, ``month`` the last 30 days including today
(not the calendar month: a report on the 2nd would otherwise show one day).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

SERVICE_TZ = ZoneInfo("UTC")
"""The zone of the service's wall-clock times (see the module docstring)."""

PERIOD_WORDS = ("today", "yesterday", "week", "month")
DEFAULT_INTERVAL = {"today": "hour", "yesterday": "hour", "week": "day", "month": "day"}
_LABEL = {
    "today": "today",
    "yesterday": "yesterday",
    "week": "the last 7 days",
    "month": "the last 30 days",
}
_DAYS_BACK = {"week": 6, "month": 29}


class PeriodError(ValueError):
    """What was typed is no period or time; the message says what would be."""


@dataclass(frozen=True)
class Period:
    word: str
    label: str
    """For headers: ``today``, ``the last 7 days``."""
    start: datetime
    """Aware, in the workspace's zone."""
    end: datetime

    @property
    def default_interval(self) -> str:
        return DEFAULT_INTERVAL[self.word]

    def service_bounds(self) -> tuple[datetime, datetime]:
        """The window on the service's clock, ready for the client's time arguments."""
        return to_service(self.start), to_service(self.end)


def to_service(moment: datetime) -> datetime:
    return moment.astimezone(SERVICE_TZ)


def _now(tz: ZoneInfo, now: datetime | None) -> datetime:
    return (now or datetime.now(UTC)).astimezone(tz).replace(microsecond=0)


def _midnight(day: date, tz: ZoneInfo) -> datetime:
    return datetime.combine(day, time(0, 0), tzinfo=tz)


def parse_period(
    word: str | None, tz: ZoneInfo, *, now: datetime | None = None, default: str = "today"
) -> Period:
    """``today``, ``yesterday``, ``week`` or ``month`` (any case); ``None`` means ``default``."""
    chosen = (word or default).strip().lower()
    if chosen not in PERIOD_WORDS:
        raise PeriodError(f"'{word}' is not a period; use one of {', '.join(PERIOD_WORDS)}.")
    current = _now(tz, now)
    today = current.date()
    if chosen == "yesterday":
        start = _midnight(today - timedelta(days=1), tz)
        end = _midnight(today, tz) - timedelta(seconds=1)
    else:
        start = _midnight(today - timedelta(days=_DAYS_BACK.get(chosen, 0)), tz)
        end = current
    return Period(word=chosen, label=_LABEL[chosen], start=start, end=end)


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2})?$")


def parse_moment(
    text: str, tz: ZoneInfo, *, end: bool = False, now: datetime | None = None
) -> datetime:
    """A typed bound of a time window, in ``tz``.

    ``YYYY-MM-DD`` and the words ``today``/``yesterday`` name a whole day: its first
    second as a start, its last second as an end (``to=today`` includes all of today).
    ``YYYY-MM-DD HH:MM[:SS]`` is that exact moment.
    """
    value = text.strip()
    lowered = value.lower()
    current = _now(tz, now)
    day: date | None = None
    if lowered == "today":
        day = current.date()
    elif lowered == "yesterday":
        day = current.date() - timedelta(days=1)
    elif lowered == "now":
        return current
    elif _DATE.match(value):
        try:
            day = date.fromisoformat(value)
        except ValueError as exc:
            raise PeriodError(f"'{value}' is not a date ({exc}).") from exc
    elif _DATE_TIME.match(value):
        try:
            naive = datetime.fromisoformat(value.replace("T", " "))
        except ValueError as exc:
            raise PeriodError(f"'{value}' is not a time ({exc}).") from exc
        return naive.replace(tzinfo=tz)
    else:
        raise PeriodError(
            f"'{value}' is not a time; write YYYY-MM-DD, \"YYYY-MM-DD HH:MM\", today or yesterday."
        )
    if end:
        return _midnight(day + timedelta(days=1), tz) - timedelta(seconds=1)
    return _midnight(day, tz)


def format_moment(moment: datetime, tz: ZoneInfo) -> str:
    """The inverse of ``parse_moment`` to the second, for commands rebuilt into buttons."""
    return moment.astimezone(tz).strftime("%Y-%m-%d %H:%M:%S")
