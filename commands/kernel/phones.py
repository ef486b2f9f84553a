"""Customer phone numbers as people type them, checked with the service's own rule, and
shown the way people write them.

One parser (``normalize_phone``) reads whatever a person typed (``+84 912 345 678``,
``84912345678``, ``0912.345.678``, ``(091) 234-5678``) with the ``phonenumbers``
library, region VN, into the national form ``0912345678``: the form the service's lead
rule accepts (spec 7.2 wants ``0`` and a mobile prefix, or ``84`` followed by exactly
eight digits, which a full international mobile number is not) and the form its call
records are stored and searched under, so every way of typing one number finds the same
records.  The pattern comes from ``callcenter.rules``, so a number refused here is one
the service would refuse; blocked numbers come from the service's blacklist, which is
read whole (it is short: numbers people asked never to be called).

One display function (``show_phone``) writes a number grouped (``0912 345 678``) and,
for a message many people read, masked (``0912 *** 678``).
"""

from __future__ import annotations

import functools
import re
from contextvars import ContextVar

import phonenumbers
from phonenumbers import Leniency, PhoneNumberFormat, PhoneNumberType

from callcenter import CallCenter
from callcenter.rules import check_phone
from commands.kernel.i18n import N_, _, audience

_SEPARATORS = re.compile(r"[\s\-.()]")
_MOBILE = re.compile(r"(?:\+84|0084|84|0)([35789]\d{8})")
"""A Vietnamese mobile number written the common ways, read without the library (which
reads these the same): a registry file has millions of them."""
_TRAILING = re.compile(r"\D+$")
"""What is left of ``0912 345 678 ext. 12`` once its extension is cut off."""
REGION = "VN"
RULE_WORDS = N_("10 digits starting 03, 05, 07, 08 or 09, or 84 followed by 8 digits or more")
"""The service's phone rule (spec 7.2) in words; shown with ``rule_words()``."""
_MASK = "***"


def rule_words() -> str:
    """The service's phone rule in the reader's language."""
    return _(RULE_WORDS)


@functools.lru_cache(maxsize=4096)
def _parsed(compact: str) -> phonenumbers.PhoneNumber | None:
    """``compact`` read as a number dialled from Vietnam; None when it is no number."""
    try:
        return phonenumbers.parse(compact, REGION)
    except phonenumbers.NumberParseException:
        return None


def _national(number: phonenumbers.PhoneNumber) -> str | None:
    """A Vietnamese number in its national digits (``0912345678``, ``19001234`` for a
    number dialled without the trunk 0); None for another country's."""
    if number.country_code != 84:
        return None
    written = phonenumbers.format_number(number, PhoneNumberFormat.NATIONAL)
    return "".join(ch for ch in written if ch.isdigit())


@functools.lru_cache(maxsize=4096)
def normalize_phone(raw: str) -> str:
    """The number as the service accepts and stores it: ``0912345678`` for any way of
    writing a Vietnamese mobile number (a ``+84``, ``84``, ``0084`` or ``0`` prefix,
    spaces, dots, dashes, brackets), and another Vietnamese number (a landline) in the
    same national form.  Anything else comes back with its separators dropped (and a
    ``+84`` as ``84``), for ``phone_problem`` to name."""
    compact = _SEPARATORS.sub("", raw.strip())
    mobile = _MOBILE.fullmatch(compact)
    if mobile is not None:
        return "0" + mobile.group(1)
    if not compact or (compact[0] == "0" and not check_phone(compact)):
        return compact
    number = _parsed(compact) if any(ch.isdigit() for ch in compact) else None
    if number is not None:
        national = _national(number)
        if national is not None and (
            not check_phone(national) or phonenumbers.is_valid_number(number)
        ):
            return national
    if compact.startswith("+84"):
        return compact[1:]
    return compact.removeprefix("+")


def parse_phone(raw: str) -> str | None:
    """The number the service accepts for what was typed, or None when there is none."""
    phone = normalize_phone(raw)
    return phone if phone and not check_phone(phone) else None


def record_number(raw: str) -> str | None:
    """The number as call records are stored and searched under: a customer's mobile the
    way ``parse_phone`` reads it, or another Vietnamese number (a hotline is a landline)
    in the same national form; None when it is no Vietnamese number at all."""
    phone = normalize_phone(raw)
    if not check_phone(phone):
        return phone
    number = _parsed(phone) if phone else None
    if number is None or not phonenumbers.is_valid_number(number):
        return None
    return _national(number)


def phone_problem(phone: str) -> str | None:
    """None when the service would accept the number, else why not, naming the rule."""
    if not phone:
        return _("The phone number is missing.")
    if not check_phone(phone):
        return None
    shown = phone[:40]
    number = _parsed(phone)
    if (
        number is not None
        and number.country_code == 84
        and phonenumbers.number_type(number) == PhoneNumberType.FIXED_LINE
    ):
        return _(
            "'{phone}' is a landline number; the service calls only mobile numbers ({rule})."
        ).format(phone=shown, rule=rule_words())
    return _("'{phone}' is not a phone number the service accepts ({rule}).").format(
        phone=shown, rule=rule_words()
    )


@functools.lru_cache(maxsize=4096)
def _grouped(phone: str) -> tuple[str, ...] | None:
    """A Vietnamese number's national form in its groups (``0912``, ``345``, ``678``)."""
    compact = _SEPARATORS.sub("", phone.strip())
    if len(compact) < 8 or not compact.lstrip("+").isdigit():
        return None
    number = _parsed(compact)
    if number is None or number.country_code != 84 or not phonenumbers.is_valid_number(number):
        return None
    groups = tuple(phonenumbers.format_number(number, PhoneNumberFormat.NATIONAL).split(" "))
    return groups if len(groups) >= 2 else None


_SHOWN: ContextVar[list[tuple[str, bool]] | None] = ContextVar(
    "callops_shown_numbers", default=None
)
"""The customers' numbers written for a public audience since the last post took them,
each with whether it was written masked."""


def _note_shown(value: str, hidden: bool) -> None:
    phone = normalize_phone(value)
    if sum(ch.isdigit() for ch in phone) < 7:
        return
    shown = _SHOWN.get()
    if shown is None:
        shown = []
        _SHOWN.set(shown)
    if (phone, hidden) not in shown:
        shown.append((phone, hidden))


def start_shown() -> None:
    """Begin noting afresh (a request, a poster's round): whatever the task and the
    tasks it starts write for a channel is noted in one list the poster takes."""
    _SHOWN.set([])


def show_parties(source: str | None, destination: str | None, direction: str) -> tuple[str, str]:
    """A call's two numbers as ``show_phone`` writes them, the call center's own side
    never hidden: an inbound call is dialled to a hotline, an outbound one comes from a
    caller id or an extension, and a local call is between extensions."""
    way = direction.strip().lower()
    return (
        show_phone(source, company=way in ("outbound", "local")),
        show_phone(destination, company=way in ("inbound", "local")),
    )


def take_shown() -> list[tuple[str, bool]]:
    """The customers' numbers written for a channel since the last call (each with
    whether it was masked), and forget them: the post about to go out shows them."""
    shown = _SHOWN.get()
    if not shown:
        if shown is None:
            _SHOWN.set([])
        return []
    taken = list(shown)
    shown.clear()
    return taken


def show_phone(phone: str | None, *, mask: bool | None = None, company: bool = False) -> str:
    """A number as people write it (``0912 345 678``), the middle hidden (``0912 *** 678``)
    when the audience reads masked numbers (or ``mask`` says so); a two-part business
    number (``1900 6868``) is never hidden, and anything else (an extension, a number
    abroad) shows as it came, only its last digits when masked.  ``company``: the call
    center's own number (a hotline, a caller id, an extension), which is no personal
    data and is never hidden.  A customer's number written for a channel is noted for
    the post that shows it (``take_shown``).  Not escaped."""
    value = (phone or "").strip()
    if not value:
        return ""
    if company:
        groups = _grouped(value)
        return value if groups is None else " ".join(groups)
    hide = audience().mask_phones if mask is None else mask
    if audience().public:
        _note_shown(value, hide)
    groups = _grouped(value)
    if groups is None:
        if hide and sum(ch.isdigit() for ch in value) >= 7:
            return _MASK + value[-3:]
        return value
    if hide and len(groups) >= 3:
        return f"{groups[0]} {_MASK} {groups[-1]}"
    return " ".join(groups)


async def blocked_numbers(cc: CallCenter) -> set[str]:
    """Every number on the service's blacklist, normalized."""
    return {normalize_phone(entry.phone_number) async for entry in cc.blacklist.iterate()}


def find_phones(text: str) -> list[str]:
    """Every number in free text that the service would accept, normalized, in order and
    once each: ``Khách hàng gọi lại số 0912 345 678 nhé`` -> ``["0912345678"]``.

    ``phonenumbers.PhoneNumberMatcher`` finds the numbers (spaced, dotted, bracketed, with
    ``+84``, an extension after them) at ``POSSIBLE`` leniency: the service's rule, not
    the numbering plan, decides which are customers' numbers (``0992...`` is one to the
    service though no carrier has it yet), so each match is read by ``normalize_phone``
    and kept when the service would accept it.  Two spaced-out numbers with only a space
    between them (``0912 345 678 0987 654 321``) read as one too long to be a number, as
    the library reads them; a comma or a word between them separates them."""
    found: list[str] = []
    for match in phonenumbers.PhoneNumberMatcher(text, REGION, leniency=Leniency.POSSIBLE):
        written = match.raw_string
        extension = match.number.extension
        if extension:  # ``0912 345 678 ext. 12``: the number is what comes before
            written = _TRAILING.sub("", written[: written.rfind(extension)])
        candidate = normalize_phone(written)
        if not check_phone(candidate) and candidate not in found:
            found.append(candidate)
    return found
