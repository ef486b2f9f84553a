"""The mobile network a Vietnamese number was issued by, read from its prefix.

A brand name registered with one network shows only to that network's subscribers, and a
number flagged as spam by one network sees its answer rate there collapse: figures per
network need each customer's network.  ``phonenumbers``' carrier data names most
prefixes; the few it leaves blank are filled from the Ministry of Information and
Communications' allocation of 10-digit mobile prefixes (the 2018 conversion of 11-digit
numbers, Decision 798/QĐ-BTTTT, and the ranges granted since).

A number keeps its original network's prefix when its subscriber moves to another
network (mobile number portability, in force in Vietnam since 2018), and nothing in a
call record says it moved: a figure per network is a figure per *issuing* network, and
the reports say so.
"""

from __future__ import annotations

import functools

import phonenumbers
from phonenumbers import carrier

from commands.kernel.phones import REGION

UNKNOWN = ""
"""The network of a number no table names (a landline, another country's, a new range)."""

NETWORKS = ("Viettel", "Vinaphone", "MobiFone", "Vietnamobile", "Gmobile", "iTel", "Reddi")
"""Every network a Vietnamese mobile prefix is allocated to, as the reports name them."""

MINISTRY_PREFIXES: dict[str, str] = {
    **dict.fromkeys(("086", "096", "097", "098", "032", "033", "034", "035"), "Viettel"),
    **dict.fromkeys(("036", "037", "038", "039"), "Viettel"),
    **dict.fromkeys(("088", "091", "094", "081", "082", "083", "084", "085"), "Vinaphone"),
    **dict.fromkeys(("089", "090", "093", "070", "076", "077", "078", "079"), "MobiFone"),
    **dict.fromkeys(("092", "052", "056", "058"), "Vietnamobile"),
    **dict.fromkeys(("099", "059"), "Gmobile"),
    "087": "iTel",
    "055": "Reddi",
}
"""The Ministry's allocation of 10-digit mobile prefixes, by the national first three
digits; used where the library's carrier data has no name."""

_LIBRARY_NAMES = {"G-Mobile": "Gmobile", "Mobifone": "MobiFone", "VinaPhone": "Vinaphone"}
"""The library's spellings, mapped to the ones the reports use."""


@functools.lru_cache(maxsize=65536)
def network_of(phone: str) -> str:
    """The issuing network of ``phone`` (any way it is written: ``0912345678``,
    ``+84 912 345 678``), or ``UNKNOWN``."""
    try:
        parsed = phonenumbers.parse(phone, REGION)
    except phonenumbers.NumberParseException:
        return UNKNOWN
    if parsed.country_code != 84:
        return UNKNOWN
    named = carrier.name_for_number(parsed, "en")
    if named:
        return _LIBRARY_NAMES.get(named, named)
    national = "0" + str(parsed.national_number)
    return MINISTRY_PREFIXES.get(national[:3], UNKNOWN) if len(national) == 10 else UNKNOWN
