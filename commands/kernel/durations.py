"""Spans of time as people type them (``30m``, ``2h``, ``1d``, ``90s``) and as they read them.

One grammar for every command that takes a span (an approval's expiry, the monitor's and
an alert's window), so ``90min`` means the same everywhere and the error says the same
thing; one way of saying a span back (``30 minutes``, ``the last hour``).
"""

from __future__ import annotations

import re

from commands.kernel.grammar import UsageError
from commands.kernel.i18n import _, ngettext

_SPAN = re.compile(r"^(\d{1,7})\s*([a-z]*)$")
UNIT_SECONDS = {
    "s": 1,
    "sec": 1,
    "m": 60,
    "min": 60,
    "h": 3600,
    "hr": 3600,
    "d": 86400,
}
_UNITS = (86400, 3600, 60, 1)


class DurationError(UsageError):
    """Not a span this command takes; the message says how to write one."""


def is_duration(word: str) -> bool:
    """Whether ``word`` is a span with its unit (``30m``, ``2h``): a bare number is not,
    so it can stay what else it may be (a campaign named ``2024``)."""
    match = _SPAN.match(word.strip().lower())
    return bool(match and match.group(2) in UNIT_SECONDS)


def parse_duration(
    text: str,
    *,
    bare_unit: str = "m",
    smallest: int = 1,
    longest: int | None = None,
    name: str | None = None,
    usage: str | None = None,
) -> int:
    """Seconds in ``text``: ``90s``, ``30m`` (or ``30min``), ``2h``, ``1d``; a bare number
    counts in ``bare_unit`` (minutes unless a command says otherwise).

    ``smallest`` is the resolution in seconds the command works in (60: whole minutes),
    ``longest`` its upper bound; zero is never a span.  ``name`` (``window=``) heads the
    error, which carries the command's ``usage``."""
    match = _SPAN.match(text.strip().lower())
    unit = (match.group(2) or bare_unit) if match else ""
    if match is None or unit not in UNIT_SECONDS:
        raise DurationError(_how(text, smallest, longest, name), usage)
    seconds = int(match.group(1)) * UNIT_SECONDS[unit]
    if seconds <= 0 or seconds % smallest or (longest is not None and seconds > longest):
        raise DurationError(_how(text, smallest, longest, name), usage)
    return seconds


def parse_minutes(
    text: str, *, longest_minutes: int, name: str | None = None, usage: str | None = None
) -> int:
    """Whole minutes in ``text`` (``90``, ``90m``, ``2h``, ``1d``), up to ``longest_minutes``."""
    seconds = parse_duration(
        text, smallest=60, longest=longest_minutes * 60, name=name, usage=usage
    )
    return seconds // 60


def _how(text: str, smallest: int, longest: int | None, name: str | None) -> str:
    examples = _("30m, 2h or 1d") if smallest >= 60 else _("90s, 30m, 2h or 1d")
    if name and longest:
        how = _("{name} takes a duration such as {examples}, up to {longest}; '{text}' is not one.")
    elif name:
        how = _("{name} takes a duration such as {examples}; '{text}' is not one.")
    elif longest:
        how = _("'{text}' is not a duration: write {examples}, up to {longest}.")
    else:
        how = _("'{text}' is not a duration: write {examples}.")
    return how.format(name=name, examples=examples, longest=span_words(longest or 0), text=text)


def _count(size: int, count: int) -> str:
    """``count`` of the unit ``size`` seconds long: ``1 hour``, ``30 minutes``."""
    if size == 86400:
        words = ngettext("{n} day", "{n} days", count)
    elif size == 3600:
        words = ngettext("{n} hour", "{n} hours", count)
    elif size == 60:
        words = ngettext("{n} minute", "{n} minutes", count)
    else:
        words = ngettext("{n} second", "{n} seconds", count)
    return words.format(n=count)


def span_words(seconds: int) -> str:
    """``90 seconds``, ``30 minutes``, ``1 hour``, ``2 days``: the largest unit that
    divides the span evenly."""
    for size in _UNITS:
        if seconds >= size and seconds % size == 0:
            return _count(size, seconds // size)
    return _count(1, seconds)


def recent_words(seconds: int) -> str:
    """The span after "the last": ``hour``, ``24 hours``, ``2 days``, ``30 minutes``."""
    if seconds == 3600:
        return _("hour")
    if seconds == 86400:
        return _("24 hours")
    if seconds > 2 * 3600 and seconds % 3600 and not seconds % 60:
        # A digest's period since its last slot: ``56 hours 30 minutes``, not 3390 minutes.
        hours, minutes = divmod(seconds // 60, 60)
        return ngettext(
            "{hours} hours {minutes} minute", "{hours} hours {minutes} minutes", minutes
        ).format(hours=hours, minutes=minutes)
    return span_words(seconds)
