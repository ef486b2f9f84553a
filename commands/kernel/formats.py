"""Numbers, amounts, spans of time and days the way the reader's language writes them.

Vietnamese groups thousands with a dot and writes decimals with a comma
(``1.234.567``, ``12,5%``), spells a span out (``2 giờ 07 phút``) and names a day
``Thứ Năm, 26/11``; English keeps ``1,234,567``, ``12.5%``, ``2h 07m`` and
``Thu 26 Nov``.  Numbers, amounts and days are written by Babel's own formatters
(``format_decimal``, ``format_percent``, ``format_currency``, ``format_date``,
``format_datetime``, ``format_time``) with one CLDR pattern per language: the separators,
the day and month names come from its locale data.  Spans are prose through the catalog
(CLDR's ``format_timedelta`` says one unit, ``2 giờ``, where a wallboard says two).
"""

from __future__ import annotations

import functools
from datetime import date, datetime
from decimal import Decimal

from babel import Locale
from babel.dates import format_date, format_datetime, format_time
from babel.numbers import (
    NumberPattern,
    format_currency,
    format_decimal,
    format_percent,
    parse_pattern,
)

from commands.kernel.i18n import N_, Language, _, current_language

CURRENCY = "VND"
"""The call center's amounts are in đồng."""


@functools.cache
def locale_of(language: Language) -> Locale:
    """Babel's locale for ``language``, parsed once."""
    return Locale.parse(language)


def _locale() -> Locale:
    return locale_of(current_language())


# The CLDR patterns are parsed once, here, rather than by Babel on every call (a quarter
# of the time of writing a number: a table writes hundreds).
WHOLE = parse_pattern("#,##0")
"""A count: ``1,234,567`` / ``1.234.567``."""
ONE_DECIMAL = parse_pattern("#,##0.0")
"""A fraction, to one decimal: ``1,234.5`` / ``1.234,5``."""


def number(value: int | float) -> str:
    """Thousands separated, the way a wallboard shows counts (one decimal for a
    fraction, rounded half to even as Babel rounds the decimal written: ``0.25`` is
    ``0.2``): ``1,234,567`` / ``1.234.567``."""
    if isinstance(value, float) and not value.is_integer():
        return format_decimal(value, format=ONE_DECIMAL, locale=_locale())
    return _whole(value, current_language())


@functools.lru_cache(maxsize=4096, typed=True)
def _whole(value: int | float, language: Language) -> str:
    """A whole number as ``language`` writes it.  Kept: the same counts come back on
    every listing, and Babel's ``apply`` (a ``Decimal``, its quantum, the locale's
    symbols) costs more than the rest of a table's row."""
    return format_decimal(value, format=WHOLE, locale=locale_of(language))


@functools.cache
def _percent_pattern(digits: int) -> NumberPattern:
    return parse_pattern("#,##0" + ("." + "0" * digits if digits > 0 else "") + "%")


def percent(value: float | int | None, digits: int = 1) -> str:
    """A rate the service already expresses in percent (0-100): ``12.5%`` / ``12,5%``."""
    if value is None:
        return "–"
    # Babel takes a fraction; in decimal, so 12.5 is 0.125 exactly, not a float near it.
    share = Decimal(repr(float(value))) / 100
    return format_percent(share, format=_percent_pattern(digits), locale=_locale())


def money(amount: int | float) -> str:
    """An amount in đồng as the reader writes money: ``1.500.000 ₫`` / ``₫1,500,000``."""
    return format_currency(amount, CURRENCY, locale=_locale())


DAYS_HOURS = N_("{days}d {hours}h")
HOURS_MINUTES = N_("{hours}h {minutes}m")
MINUTES_SECONDS = N_("{minutes}m {seconds}s")
SECONDS = N_("{seconds}s")


def duration(seconds: float | int | None, *, one_call: bool = False) -> str:
    """A span, one way everywhere: ``45s``, ``3m 05s``, ``2h 04m`` in English; in
    Vietnamese prose without padding or an empty last unit (``45 phút``, ``12 phút 1
    giây``, ``2 giờ 4 phút``).  A total is counted in hours (``52h 00m``): days are said
    only of ``one_call`` longer than a day (``3d 4h``)."""
    if seconds is None:
        return "–"
    total = max(0, round(seconds))
    days, rem = divmod(total, 86400) if one_call else (0, total)
    hours, rem = divmod(rem, 3600)
    minutes, secs = divmod(rem, 60)
    if current_language() != "en":
        return _prose(days, hours, minutes, secs)
    if days:
        return _(DAYS_HOURS).format(days=days, hours=hours)
    if hours:
        return _(HOURS_MINUTES).format(hours=hours, minutes=f"{minutes:02d}")
    if minutes:
        return _(MINUTES_SECONDS).format(minutes=minutes, seconds=f"{secs:02d}")
    return _(SECONDS).format(seconds=secs)


def _prose(days: int, hours: int, minutes: int, secs: int) -> str:
    """``45 phút``, ``12 phút 1 giây``: the two largest units, no padding, a zero last
    unit left out (the pattern up to its second placeholder)."""
    values = {"days": days, "hours": hours, "minutes": minutes, "seconds": secs}
    for value, pattern, smaller in (
        (days, DAYS_HOURS, hours),
        (hours, HOURS_MINUTES, minutes),
        (minutes, MINUTES_SECONDS, secs),
    ):
        if not value:
            continue
        said = _(pattern)
        if not smaller:
            said = "{" + said.split("{", 2)[1].rstrip()
        return said.format(**values)
    return _(SECONDS).format(seconds=secs)


# --- days: a CLDR pattern per language, written by Babel -------------------------------

_DAY_PATTERN: dict[Language, str] = {"en": "EEE dd MMM", "vi": "EEEE, dd/MM"}
"""``Thu 26 Nov`` / ``Thứ Năm, 26/11``."""
_YEAR_DAY_PATTERN: dict[Language, str] = {"en": "EEE dd MMM y", "vi": "EEEE, dd/MM/y"}
"""A day of another year than the current one: ``Fri 05 Jun 2025`` / ``Thứ Sáu, 05/06/2025``."""
_FULL_DATE_PATTERN: dict[Language, str] = {"en": "dd MMM y", "vi": "dd/MM/y"}
"""A date with its year and no weekday: ``05 Dec 2026`` / ``05/12/2026``."""
_DATE_PATTERN: dict[Language, str] = {"en": "dd MMM", "vi": "dd/MM"}
"""``26 Nov`` / ``26/11``: a date without its weekday."""
_MONTH_PATTERN: dict[Language, str] = {"en": "MMM y", "vi": "MM/y"}
"""``Nov 2026`` / ``11/2026``."""
WEEK_OF = N_("wk {date}")
"""A week's bucket in a table, by its first day: ``wk 23 Nov``."""
CLOCK = "HH:mm"
"""``14:27``, the same in both languages."""
CLOCK_SECONDS = "HH:mm:ss"
SUNDAY_AS_CLDR_WRITES_IT = "Chủ Nhật"
SUNDAY = "Chủ nhật"
"""The standard Vietnamese spelling of Sunday (CLDR capitalises both words)."""


def _pattern(table: dict[Language, str], language: Language) -> str:
    return table.get(language, table["en"])


def _spelled(text: str, language: Language) -> str:
    return text.replace(SUNDAY_AS_CLDR_WRITES_IT, SUNDAY) if language == "vi" else text


def write_day(moment: datetime, *, time: bool = False, seconds: bool = False) -> str:
    """``moment`` (already in the reader's zone) as a day, with its time if asked:
    ``Thu 26 Nov 14:27`` / ``Thứ Năm, 26/11 14:27``; a day of another year than the
    current one says its year (``Thứ Sáu, 05/06/2025 09:04``)."""
    language = current_language()
    same_year = moment.year == datetime.now(moment.tzinfo).year
    pattern = _pattern(_DAY_PATTERN if same_year else _YEAR_DAY_PATTERN, language)
    if time:
        pattern = f"{pattern} {CLOCK_SECONDS if seconds else CLOCK}"
    # An aware moment is written in its own zone; a naive one as it stands.
    written = format_datetime(moment, pattern, locale=locale_of(language))
    return _spelled(written, language)


def write_clock(moment: datetime, *, seconds: bool = False) -> str:
    """``14:27`` (``14:27:05``): the time of ``moment`` in its own zone."""
    return format_time(moment, CLOCK_SECONDS if seconds else CLOCK, locale=_locale())


def write_date(day: date) -> str:
    """A calendar date with its year, as the reader writes one: ``05 Dec 2026`` /
    ``05/12/2026`` (never the ISO form)."""
    language = current_language()
    return format_date(day, _pattern(_FULL_DATE_PATTERN, language), locale=locale_of(language))


def write_week(start: datetime) -> str:
    """The week beginning ``start``: ``wk 23 Nov`` / ``tuần 23/11``."""
    language = current_language()
    day = format_date(start, _pattern(_DATE_PATTERN, language), locale=locale_of(language))
    return _(WEEK_OF).format(date=day)


def write_month(start: datetime) -> str:
    """The month of ``start``: ``Nov 2026`` / ``11/2026``."""
    language = current_language()
    return format_date(start, _pattern(_MONTH_PATTERN, language), locale=locale_of(language))
