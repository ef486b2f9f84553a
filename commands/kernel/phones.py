"""Customer phone numbers as people type them, checked with the service's own rule.

The pattern comes from ``callcenter.rules`` (spec 7.2), so a number refused here is one
the service would refuse; blocked numbers come from the service's blacklist, which is
read whole (it is short: numbers people asked never to be called).
"""

from __future__ import annotations

import re

from callcenter import CallCenter
from callcenter.rules import check_phone

_SEPARATORS = re.compile(r"[\s\-.()]")
RULE_WORDS = "10 digits starting 03, 05, 07, 08 or 09, or 84 followed by 8 digits or more"


def normalize_phone(raw: str) -> str:
    """Spaces, dashes, dots and brackets dropped.  An international ``+84 35 678 9013``
    becomes the national ``0356789013`` when that is a number the service accepts (its
    pattern wants 84 followed by 8 digits, which most international numbers are not)."""
    compact = _SEPARATORS.sub("", raw.strip())
    if compact.startswith("+84"):
        national = "0" + compact[3:]
        return national if not check_phone(national) else compact[1:]
    return compact.removeprefix("+")


def phone_problem(phone: str) -> str | None:
    """None when the service would accept the number, else why not, in plain words."""
    if not phone:
        return "The phone number is missing."
    if check_phone(phone):
        return f"'{phone[:40]}' is not a phone number the service accepts ({RULE_WORDS})."
    return None


async def blocked_numbers(cc: CallCenter) -> set[str]:
    """Every number on the service's blacklist, normalized."""
    return {normalize_phone(entry.phone_number) async for entry in cc.blacklist.iterate()}


_DIGIT_RUN = re.compile(r"\+?\d(?:[\d\s.\-()]*\d)?")
_DIGIT_GROUP = re.compile(r"\+?\d+")
_MOST_DIGITS = 13


def find_phones(text: str) -> list[str]:
    """Every number in free text that the service would accept, normalized, in order and
    once each: ``Khách hàng gọi lại số 0912 345 678 nhé`` -> ``["0912345678"]``.

    People space numbers out (``0912 345 678``, ``0912.345.678``, ``+84 912-345-678``) and
    write several in a row, so each run of digits and separators is read group by group,
    taking the longest run of groups that makes a valid number, then going on after it."""
    found: list[str] = []
    for run in _DIGIT_RUN.finditer(text):
        groups = _DIGIT_GROUP.findall(run.group())
        start = 0
        while start < len(groups):
            best: tuple[int, str] | None = None
            joined = ""
            for end in range(start, len(groups)):
                joined += groups[end]
                if len(joined.lstrip("+")) > _MOST_DIGITS:
                    break
                candidate = normalize_phone(joined)
                if not check_phone(candidate):
                    best = (end, candidate)
            if best is None:
                start += 1
                continue
            if best[1] not in found:
                found.append(best[1])
            start = best[0] + 1
    return found
