"""What the customer will hear: an autocall value read aloud in Vietnamese words.

The service reads each value of an autocall's ``param`` by its form, not by the
placeholder's name (spec §4.5): a plain digit string is an amount, digits separated by
spaces are read one by one, a value prefixed with ``#`` is a number, and a date is
``dd/mm/yyyy`` or ``yyyy-mm-dd``.  ``reading`` classifies a value the same way and says
it in words, so a supervisor (and the approver) hears the call before any customer.

The spec leaves two things open, and this is how callops reads it (docs/autocalls.md says so
too): an amount is read as a whole number of đồng without the word "đồng" (templates
write the unit themselves: "số tiền {{amount}} đồng"), and a ``#`` number is read as a
cardinal number whose optional decimal part, after ``,`` or ``.``, is read "phẩy" and
digit by digit.  A value that follows none of the rules is read as written.

Numbers are read as Vietnamese speakers say them, not as num2words writes them: every
group of three after the first keeps its hundreds ("hai nghìn không trăm hai mươi
bốn"), a lone unit after a hundred takes "lẻ" (or "linh", the northern form), 1 after
"mươi" is "mốt", 5 after "mười"/"mươi" is "lăm", and 4 after "mươi" may be "tư".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import Final

DIGITS: Final = ("không", "một", "hai", "ba", "bốn", "năm", "sáu", "bảy", "tám", "chín")
BILLION: Final = 1_000_000_000


@dataclass(frozen=True)
class Voice:
    """The spoken variants a region prefers; the default is what the issue's examples
    and most Southern call centres say."""

    zero_ten: str = "lẻ"
    """The word before a lone unit after a hundred: "lẻ" (South) or "linh" (North)."""
    four_after_tens: str = "bốn"
    """4 after "mươi": "bốn", or the colloquial "tư"."""
    thousand: str = "nghìn"
    """A thousand: "nghìn" (North) or "ngàn" (South)."""
    region: str = ""
    """``north`` or ``south`` for a region's voice; empty for the mixed default."""


DEFAULT_VOICE: Final = Voice()
NORTHERN: Final = Voice(zero_ten="linh", thousand="nghìn", region="north")
SOUTHERN: Final = Voice(zero_ten="lẻ", thousand="ngàn", region="south")


def voice_for(name: str | None) -> Voice:
    """The forms of the template's voice (``female_north``, ``male_south``): a southern
    or central voice says "lẻ" and "ngàn", a northern one (and a voice that names no
    region: the standard broadcast forms) "linh" and "nghìn"."""
    region = (name or "").strip().lower()
    if region.endswith(("south", "central")):
        return SOUTHERN
    return NORTHERN


def _tens_and_units(tens: int, units: int, voice: Voice, after_hundred: bool) -> list[str]:
    if tens == 0:
        if units == 0:
            return []
        return [voice.zero_ten, DIGITS[units]] if after_hundred else [DIGITS[units]]
    words = ["mười"] if tens == 1 else [DIGITS[tens], "mươi"]
    if units == 0:
        return words
    if units == 5:
        return [*words, "lăm"]
    if units == 1 and tens > 1:
        return [*words, "mốt"]
    if units == 4 and tens > 1:
        return [*words, voice.four_after_tens]
    return [*words, DIGITS[units]]


def _group(value: int, voice: Voice, *, leading: bool) -> list[str]:
    """0-999; a group after the first says its hundreds even when they are zero."""
    hundreds, rest = divmod(value, 100)
    tens, units = divmod(rest, 10)
    if leading and hundreds == 0:
        return _tens_and_units(tens, units, voice, after_hundred=False)
    return [DIGITS[hundreds], "trăm", *_tens_and_units(tens, units, voice, after_hundred=True)]


def _below_billion(value: int, voice: Voice, *, leading: bool) -> list[str]:
    """1-999 999 999 in groups of three; empty groups are not said, and every group
    after the first spoken one says its hundreds."""
    groups = [value // 1_000_000, value // 1000 % 1000, value % 1000]
    words: list[str] = []
    for group, scale in zip(groups, ("triệu", voice.thousand, ""), strict=True):
        if group == 0:
            continue
        words += _group(group, voice, leading=leading and not words)
        if scale:
            words.append(scale)
    return words


def cardinal(value: int, voice: Voice = DEFAULT_VOICE) -> str:
    """A whole number in words: 1500000 → "một triệu năm trăm nghìn"; past a billion
    the billions are themselves a number ("một nghìn tỷ")."""
    if value < 0:
        return "âm " + cardinal(-value, voice)
    if value == 0:
        return DIGITS[0]
    billions, rest = divmod(value, BILLION)
    words = [cardinal(billions, voice), "tỷ"] if billions else []
    if rest:
        words += _below_billion(rest, voice, leading=not billions)
    return " ".join(words)


def digit_by_digit(digits: str) -> str:
    """ "0 9 1 2" → "không chín một hai"."""
    return " ".join(DIGITS[int(c)] for c in digits if c.isdigit())


def date_words(day: date, voice: Voice = DEFAULT_VOICE) -> str:
    """31/12/2026 → "ngày ba mươi mốt tháng mười hai năm hai nghìn không trăm hai mươi
    sáu" (April is "tháng tư", as the month is named); days 1 to 10 are said with
    "mùng" ("mùng năm tháng năm"), as speakers say them."""
    month = "tư" if day.month == 4 else cardinal(day.month, voice)
    said_day = (
        f"mùng {cardinal(day.day, voice)}" if day.day <= 10 else f"ngày {cardinal(day.day, voice)}"
    )
    return f"{said_day} tháng {month} năm {cardinal(day.year, voice)}"


def decimal_words(decimals: str, voice: Voice = DEFAULT_VOICE) -> str:
    """The part after "phẩy" as people say it: "25" → "hai mươi lăm"; a part that starts
    with 0 or is longer than three digits is said digit by digit ("05" → "không năm")."""
    if decimals.startswith("0") or len(decimals) > 3:
        return digit_by_digit(decimals)
    return cardinal(int(decimals), voice)


class Rule(StrEnum):
    """Which of the service's reading rules a value falls under."""

    AMOUNT = "amount"
    DIGITS = "digits"
    NUMBER = "number"
    DATE = "date"
    AS_WRITTEN = "as written"


@dataclass(frozen=True)
class Reading:
    rule: Rule
    words: str


@dataclass(frozen=True)
class ValueProblem:
    """A value the service would misread, and what to write instead."""

    kind: str
    """``bad_date``, ``date_format``, ``separators``, ``empty_number`` or ``empty``."""
    suggestion: str | None = None


class UnreadableValue(ValueError):
    def __init__(self, problem: ValueProblem) -> None:
        super().__init__(problem.kind)
        self.problem = problem


_PLAIN_DIGITS = re.compile(r"\d+")
_SPACED_DIGITS = re.compile(r"\d(?: +\d)+")
_NUMBER = re.compile(r"#(\d+)(?:[.,](\d+))?")
_DMY = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")
_YMD = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")
_GROUPED = re.compile(r"\d{1,3}(?:([.,  ])\d{3})+")
"""1.500.000, 1,500,000, 1 500 000: an amount written with separators the rules lack."""
_DATE_LIKE = re.compile(r"(\d{1,4})[/.-](\d{1,2})[/.-](\d{1,4})")
_GROUPED_NUMBER = re.compile(r"#\d{1,3}(?:\.\d{3})+")
"""#1.000, #1.500.000: in Vietnamese "." groups thousands, and the service would read
the first as "một phẩy không không không"."""


def _date_form(match: re.Match[str]) -> str | None:
    """A date written in a form the service does not read (``2026/12/31``,
    ``31-12-2026``) as it reads one: ``31/12/2026``; None when it is no date."""
    first, month, last = match.groups()
    if len(first) == 4:
        year, day = int(first), int(last)
    elif len(last) == 4:
        year, day = int(last), int(first)
    else:
        return None
    return f"{day:02d}/{int(month):02d}/{year}"


def _date(year: int, month: int, day: int) -> date:
    try:
        return date(year, month, day)
    except ValueError:
        raise UnreadableValue(ValueProblem("bad_date")) from None


def calendar_date(value: str) -> date | None:
    """The date ``value`` is in a form the service reads (``dd/mm/yyyy``,
    ``yyyy-mm-dd``), else None (not a date, or not one on the calendar)."""
    text = value.strip()
    try:
        if match := _DMY.fullmatch(text):
            day, month, year = (int(g) for g in match.groups())
            return date(year, month, day)
        if match := _YMD.fullmatch(text):
            year, month, day = (int(g) for g in match.groups())
            return date(year, month, day)
    except ValueError:
        return None
    return None


def read_value(value: str, voice: Voice = DEFAULT_VOICE) -> Reading:
    """How the service will read ``value`` aloud, or ``UnreadableValue`` when it would
    misread it (a date that does not exist, an amount with separators, ``#`` alone, an
    empty value)."""
    text = value.strip()
    if not text:
        raise UnreadableValue(ValueProblem("empty"))
    if _PLAIN_DIGITS.fullmatch(text):
        return Reading(Rule.AMOUNT, cardinal(int(text), voice))
    if _SPACED_DIGITS.fullmatch(text):
        return Reading(Rule.DIGITS, digit_by_digit(text))
    if text.startswith("#"):
        if _GROUPED_NUMBER.fullmatch(text):
            raise UnreadableValue(ValueProblem("separators", "#" + re.sub(r"\D", "", text)))
        match = _NUMBER.fullmatch(text)
        if match is None:
            raise UnreadableValue(ValueProblem("empty_number"))
        whole, decimals = match.groups()
        words = cardinal(int(whole), voice)
        if decimals:
            words += " phẩy " + decimal_words(decimals, voice)
        return Reading(Rule.NUMBER, words)
    if match := _DMY.fullmatch(text):
        day, month, year = (int(g) for g in match.groups())
        return Reading(Rule.DATE, date_words(_date(year, month, day), voice))
    if match := _YMD.fullmatch(text):
        year, month, day = (int(g) for g in match.groups())
        return Reading(Rule.DATE, date_words(_date(year, month, day), voice))
    if _GROUPED.fullmatch(text):
        raise UnreadableValue(ValueProblem("separators", re.sub(r"\D", "", text)))
    if match := _DATE_LIKE.fullmatch(text):
        raise UnreadableValue(ValueProblem("date_format", _date_form(match)))
    return Reading(Rule.AS_WRITTEN, text)


PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}")
"""``{{name}}`` in a template's content (spec §2.6)."""


def placeholders(content: str) -> list[str]:
    """The template's placeholder names, each once, in the order they are said."""
    seen: dict[str, None] = {}
    for match in PLACEHOLDER.finditer(content):
        seen.setdefault(match.group(1), None)
    return list(seen)


def spoken(content: str, readings: dict[str, Reading]) -> str:
    """The template's content with every placeholder replaced by its reading; a
    placeholder without a value stays as written."""

    def replace(match: re.Match[str]) -> str:
        reading = readings.get(match.group(1))
        if reading is None:
            return match.group(0)
        before = content[: match.start()].rstrip().lower()
        if reading.rule is Rule.DATE and before.endswith("ngày"):
            # The template says "ngày {{date}}" itself: no "ngày ngày".
            return reading.words.removeprefix("ngày ")
        return reading.words

    return PLACEHOLDER.sub(replace, content)
