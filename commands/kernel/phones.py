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
