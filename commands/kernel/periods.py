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

from commands.kernel.durations import recent_words
from commands.kernel.i18n import N_, _, current_language, use_language
from commands.kernel.matching import fold
from commands.kernel.text import clock, day, day_time, zone_name

SERVICE_TZ = ZoneInfo("UTC")
"""The zone of the service's wall-clock times (see the module docstring)."""

PERIOD_WORDS = ("today", "yesterday", "week", "month")
DEFAULT_INTERVAL = {"today": "hour", "yesterday": "hour", "week": "day", "month": "day"}
_LABEL = {
    "today": N_("today"),
    "yesterday": N_("yesterday"),
    "week": N_("the last 7 days"),
    "month": N_("the last 30 days"),
}
NOW = N_("now")
AT = N_("at")
TODAY_SPAN = N_("today {start}–{end} {zone}")
"""``today 00:00–14:27 UTC+07``."""
NAMED_SPAN = N_("{word}, {span} {zone}")
"""``the last 7 days, Fri 20 Nov → Thu 26 Nov 14:27 UTC+07``."""
NAMED_MOMENT = N_("{word}, {clock} {zone}")
"""``now, 14:27 UTC+07``."""
_DAYS_BACK = {"week": 6, "month": 29}
PERIOD_ALIASES = {
    "hom nay": "today",
    "hom qua": "yesterday",
    "tuan": "week",
    "thang": "month",
}
"""The Vietnamese period words, folded (``hom-nay``, ``Hôm nay``), to the English ones."""
MOMENT_ALIASES = {"hom nay": "today", "hom qua": "yesterday", "bay gio": "now"}
"""The Vietnamese words for a typed bound (``to=hom-nay``), folded, to the English ones."""


def period_words() -> tuple[str, ...]:
    """The period words as the reader types them: ``today``… or ``hom-nay``…"""
    if current_language() == "en":
        return PERIOD_WORDS
    return tuple(alias.replace(" ", "-") for alias in PERIOD_ALIASES)


class PeriodError(ValueError):
    """What was typed is no period or time; the message says what would be."""


WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
"""The service's day names (its schedules' ``<day>_start_time``), Monday first."""
WEEKDAY_SHORT = {
    "monday": N_("Mon"),
    "tuesday": N_("Tue"),
    "wednesday": N_("Wed"),
    "thursday": N_("Thu"),
    "friday": N_("Fri"),
    "saturday": N_("Sat"),
    "sunday": N_("Sun"),
}
"""A weekday as a dialing window names it (translated where shown)."""


@dataclass(frozen=True)
class Period:
    word: str
    label: str
    """For headers, in the reader's language: ``today``, ``the last 7 days``."""
    start: datetime
    """Aware, in the workspace's zone."""
    end: datetime

    @property
    def default_interval(self) -> str:
        return DEFAULT_INTERVAL[self.word]

    def service_bounds(self) -> tuple[datetime, datetime]:
        """The window on the service's clock, ready for the client's time arguments."""
        return to_service(self.start), to_service(self.end)

    def window(self) -> Window:
        """The same stretch as a ``Window`` (its end excluded), named by the period word."""
        return Window(self.start, self.end + timedelta(seconds=1), word=_LABEL[self.word])


@dataclass(frozen=True)
class Window:
    """The stretch of time a figure covers, on the workspace's clock.

    Every figure callops shows carries one, and says it the same way everywhere
    (``label``): ``today 00:00–14:27 UTC+07``, ``Fri 20 Nov 18:00 → Sat 21 Nov 18:00
    UTC+07``, ``now, 14:27 UTC+07`` for a figure of one moment (live calls, agents).
    """

    start: datetime
    """Aware, in the workspace's zone; included."""
    end: datetime
    """Excluded; equal to ``start`` for a figure of one moment."""
    word: str = ""
    """What the window is called, if anything: ``today``, ``the last 7 days``, ``now``
    (in English; ``label`` says it in the reader's language)."""
    recent_minutes: int = 0
    """A rolling window's length (``the last hour``), said when it is shown: the window
    may be made before anyone's language is known (an alert's check)."""

    @classmethod
    def instant(cls, at: datetime, tz: ZoneInfo) -> Window:
        """One moment (live figures): ``now, 14:27 UTC+07``."""
        moment = at.astimezone(tz).replace(microsecond=0)
        return cls(moment, moment, word=NOW)

    @classmethod
    def back_from(cls, at: datetime, minutes: int, tz: ZoneInfo) -> Window:
        """The ``minutes`` up to ``at`` (the service's rolling windows)."""
        end = at.astimezone(tz).replace(microsecond=0)
        with use_language("en"):
            word = _("the last {span}").format(span=recent_words(minutes * 60))
        return cls(end - timedelta(minutes=minutes), end, word=word, recent_minutes=minutes)

    def said_word(self) -> str:
        """What the window is called, in the reader's language ("" when nothing)."""
        if self.recent_minutes:
            return _("the last {span}").format(span=recent_words(self.recent_minutes * 60))
        return _(self.word) if self.word else ""

    @property
    def tz(self) -> ZoneInfo:
        zone = self.start.tzinfo
        return zone if isinstance(zone, ZoneInfo) else ZoneInfo("UTC")

    @property
    def seconds(self) -> float:
        """Elapsed seconds (timestamps: wall-clock subtraction is wrong across DST)."""
        return self.end.timestamp() - self.start.timestamp()

    def service_bounds(self) -> tuple[datetime, datetime]:
        """Inclusive bounds to the second on the service's clock, as it reads windows."""
        last = max(self.start, self.end - timedelta(seconds=1))
        return to_service(self.start), to_service(last)

    def label(self) -> str:
        """The window in words, with its zone (plain text, not escaped)."""
        zone = zone_name(self.end)
        word = self.said_word()
        if self.start == self.end:
            return _(NAMED_MOMENT).format(word=word or _(AT), clock=clock(self.end), zone=zone)
        one_day = _single_day(self.start, self.end)
        if self.word == "today" and one_day:
            return _(TODAY_SPAN).format(start=clock(self.start), end=_clock(self.end), zone=zone)
        span = span_words(self.start, self.end)
        return _(NAMED_SPAN).format(word=word, span=span, zone=zone) if word else f"{span} {zone}"


def _clock(moment: datetime) -> str:
    """``HH:MM`` of an excluded end: midnight is ``24:00`` of the day before."""
    if moment.hour == moment.minute == moment.second == 0:
        return "24:00"
    return clock(moment)


def _single_day(start: datetime, end: datetime) -> bool:
    """Whether [start, end) lies within ``start``'s local day."""
    next_midnight = _midnight(start.date() + timedelta(days=1), zone_of(start))
    return end <= next_midnight


def zone_of(moment: datetime) -> ZoneInfo:
    """The zone ``moment`` is written in (UTC when it has no named zone)."""
    zone = moment.tzinfo
    return zone if isinstance(zone, ZoneInfo) else ZoneInfo("UTC")


def span_words(start: datetime, end: datetime) -> str:
    """One way to write a stretch of time whose end is excluded, in its own zone:
    ``Sat 21 Nov`` (a whole local day), ``Sat 21 Nov 08:00–14:27`` (within a day),
    ``Fri 20 Nov 18:00 → Sat 21 Nov 18:00``."""
    midnight = start.hour == start.minute == 0 and end.hour == end.minute == 0
    if midnight and end - start <= timedelta(hours=25) and end.date() != start.date():
        return day(start)
    if _single_day(start, end):
        return f"{day_time(start)}–{_clock(end)}"
    return f"{day_time(start)} → {day_time(end)}"


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
    chosen = PERIOD_ALIASES.get(fold(chosen), chosen)
    if chosen not in PERIOD_WORDS:
        raise PeriodError(
            _("'{word}' is not a period; use one of {periods}.").format(
                word=word, periods=", ".join(period_words())
            )
        )
    current = _now(tz, now)
    today = current.date()
    if chosen == "yesterday":
        start = _midnight(today - timedelta(days=1), tz)
        end = _midnight(today, tz) - timedelta(seconds=1)
    else:
        start = _midnight(today - timedelta(days=_DAYS_BACK.get(chosen, 0)), tz)
        end = current
    return Period(word=chosen, label=_(_LABEL[chosen]), start=start, end=end)


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
    lowered = MOMENT_ALIASES.get(fold(value), value.lower())
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
            raise PeriodError(
                _("'{value}' is not a date ({error}).").format(value=value, error=exc)
            ) from exc
    elif _DATE_TIME.match(value):
        try:
            naive = datetime.fromisoformat(value.replace("T", " "))
        except ValueError as exc:
            raise PeriodError(
                _("'{value}' is not a time ({error}).").format(value=value, error=exc)
            ) from exc
        return naive.replace(tzinfo=tz)
    else:
        raise PeriodError(
            _(
                "'{value}' is not a time; write YYYY-MM-DD, \"YYYY-MM-DD HH:MM\", today or "
                "yesterday."
            ).format(value=value)
        )
    if end:
        return _midnight(day + timedelta(days=1), tz) - timedelta(seconds=1)
    return _midnight(day, tz)


def format_moment(moment: datetime, tz: ZoneInfo) -> str:
    """The inverse of ``parse_moment`` to the second, for commands rebuilt into buttons."""
    return moment.astimezone(tz).strftime("%Y-%m-%d %H:%M:%S")
