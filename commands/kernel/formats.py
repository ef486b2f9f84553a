"""Numbers, amounts, spans of time and days the way the reader's language writes them.

Vietnamese groups thousands with a dot and writes decimals with a comma
(``1.234.567``, ``12,5%``), spells a span out (``2 giờ 07 phút``) and names a day
``Thứ Năm, 26/11``; English keeps ``1,234,567``, ``12.5%``, ``2h 07m`` and
``Thu 26 Nov``.  The separators, the day names and the currency come from Babel's
locale data (CLDR), read once per language; the digits themselves are laid out by
Python's own formatting, the same for both languages, with the separators swapped.
"""

from __future__ import annotations

import functools
from datetime import date, datetime

from babel import Locale
from babel.numbers import format_currency

from commands.kernel.i18n import N_, Language, _, current_language

CURRENCY = "VND"
"""The call center's amounts are in đồng."""


@functools.cache
def locale_of(language: Language) -> Locale:
    """Babel's locale for ``language``, parsed once."""
    return Locale.parse(language)


@functools.cache
def _separators(language: Language) -> dict[int, str]:
    """A ``str.translate`` table from Python's ``,`` and ``.`` to the language's own."""
    symbols = locale_of(language).number_symbols["latn"]
    return str.maketrans({",": symbols["group"], ".": symbols["decimal"]})


def localize_digits(text: str) -> str:
    """A number Python wrote (``1,234.5``) with the reader's separators (``1.234,5``)."""
    language = current_language()
    if language == "en":
        return text
    return text.translate(_separators(language))


def number(value: int | float) -> str:
    """Thousands separated, the way a wallboard shows counts (one decimal for a
    fraction): ``1,234,567`` / ``1.234.567``."""
    if isinstance(value, float) and not value.is_integer():
        return localize_digits(f"{value:,.1f}")
    return localize_digits(f"{int(value):,}")


def percent(value: float | int | None, digits: int = 1) -> str:
    """A rate the service already expresses in percent (0-100): ``12.5%`` / ``12,5%``."""
    if value is None:
        return "–"
    return localize_digits(f"{float(value):.{digits}f}%")


def money(amount: int | float) -> str:
    """An amount in đồng as the reader writes money: ``1.500.000 ₫`` / ``₫1,500,000``."""
    language = current_language()
    return format_currency(amount, CURRENCY, locale=locale_of(language))


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


# --- days: a strftime pattern per language, day names from Babel ------------------------

_DAY_PATTERN: dict[Language, str] = {"en": "%a %d %b", "vi": "%A, %d/%m"}
"""``Thu 26 Nov`` / ``Thứ Năm, 26/11``; ``%A`` stands for the weekday's name in the
language (strftime's own names are the C locale's English)."""
_YEAR_DAY_PATTERN: dict[Language, str] = {"en": "%a %d %b %Y", "vi": "%A, %d/%m/%Y"}
"""A day of another year than the current one: ``Fri 05 Jun 2025`` / ``Thứ Sáu, 05/06/2025``."""
_FULL_DATE_PATTERN: dict[Language, str] = {"en": "%d %b %Y", "vi": "%d/%m/%Y"}
"""A date with its year and no weekday: ``05 Dec 2026`` / ``05/12/2026``."""
_DATE_PATTERN: dict[Language, str] = {"en": "%d %b", "vi": "%d/%m"}
"""``26 Nov`` / ``26/11``: a date without its weekday."""
_MONTH_PATTERN: dict[Language, str] = {"en": "%b %Y", "vi": "%m/%Y"}
"""``Nov 2026`` / ``11/2026``."""
WEEK_OF = N_("wk {date}")
"""A week's bucket in a table, by its first day: ``wk 23 Nov``."""
CLOCK = "%H:%M"
"""``14:27``, the same in both languages."""


@functools.cache
def _weekdays(language: Language) -> tuple[str, ...]:
    """The weekdays' names, Monday first, as ``datetime.weekday()`` counts them; a
    ``%`` in one is doubled so strftime leaves it alone."""
    wide = locale_of(language).days["format"]["wide"]
    names = tuple(str(wide[i]).replace("%", "%%") for i in range(7))
    if language == "vi":  # the standard spelling is "Chủ nhật" (CLDR writes "Chủ Nhật")
        names = tuple(n.replace("Chủ Nhật", "Chủ nhật") for n in names)
    return names


@functools.cache
def _patterns(language: Language) -> tuple[str, str, str]:
    """The day, the day and time, the day and time to the second."""
    day = _DAY_PATTERN.get(language, _DAY_PATTERN["en"])
    return day, f"{day} {CLOCK}", f"{day} {CLOCK}:%S"


def write_day(moment: datetime, *, time: bool = False, seconds: bool = False) -> str:
    """``moment`` (already in the reader's zone) as a day, with its time if asked:
    ``Thu 26 Nov 14:27`` / ``Thứ Năm, 26/11 14:27``; a day of another year than the
    current one says its year (``Thứ Sáu, 05/06/2025 09:04``)."""
    language = current_language()
    day, day_time, day_time_seconds = _patterns(language)
    if moment.year != datetime.now(moment.tzinfo).year:
        day = _YEAR_DAY_PATTERN.get(language, _YEAR_DAY_PATTERN["en"])
        day_time, day_time_seconds = f"{day} {CLOCK}", f"{day} {CLOCK}:%S"
    pattern = (day_time_seconds if seconds else day_time) if time else day
    if "%A" in pattern:
        pattern = pattern.replace("%A", _weekdays(language)[moment.weekday()])
    return moment.strftime(pattern)


def write_date(day: date) -> str:
    """A calendar date with its year, as the reader writes one: ``05 Dec 2026`` /
    ``05/12/2026`` (never the ISO form)."""
    return day.strftime(_FULL_DATE_PATTERN.get(current_language(), _FULL_DATE_PATTERN["en"]))


def write_week(start: datetime) -> str:
    """The week beginning ``start``: ``wk 23 Nov`` / ``tuần 23/11``."""
    language = current_language()
    date = start.strftime(_DATE_PATTERN.get(language, _DATE_PATTERN["en"]))
    return _(WEEK_OF).format(date=date)


def write_month(start: datetime) -> str:
    """The month of ``start``: ``Nov 2026`` / ``11/2026``."""
    return start.strftime(_MONTH_PATTERN.get(current_language(), _MONTH_PATTERN["en"]))
