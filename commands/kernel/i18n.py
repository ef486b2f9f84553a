"""The reader's language: gettext catalogs managed with Babel, chosen per request.

Every string a person reads is written in English in the code and looked up in the
catalog of the reader's language when it is shown:

- ``_("Paused {name}.").format(name=...)`` for a sentence (named placeholders, so a
  translator can move them);
- ``ngettext("{n} call", "{n} calls", count).format(n=number(count))`` where English
  has a plural (Vietnamese has none: its catalog has one form);
- ``N_("...")`` marks a string kept in a module-level constant (a table of labels, a
  command's summary); it is translated where it is shown, with ``_(constant)``: a
  constant is made once at import, when nobody is reading yet.

Which language is the reader's is decided once per request by ``bot/`` (the person's
choice, else their Slack locale, else the workspace's default) or per post (a digest,
an alert, a notification route has its own or the workspace's) and set with
``use_audience`` around the work; asyncio copies it into the tasks the work starts.
Outside any ``use_audience`` the language is English, as for the command line.

The catalogs are ``commands/locales/<lang>/LC_MESSAGES/callops.po`` (``pybabel
extract / update`` keep them, ``babel.cfg`` at the top says where the strings are);
``make install`` compiles them to ``.mo``.  A checkout whose ``.mo`` is missing or older
than its ``.po`` compiles the ``.po`` in memory instead, so a catalog just edited is
what the app speaks.
"""

from __future__ import annotations

import functools
import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from gettext import NullTranslations
from pathlib import Path
from typing import Literal, get_args

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

log = logging.getLogger(__name__)

Language = Literal["vi", "en"]
LANGUAGES: tuple[Language, ...] = get_args(Language)
"""The languages callops speaks; the first is its users' own."""
DOMAIN = "callops"
LOCALES = Path(__file__).resolve().parent.parent / "locales"
"""``commands/locales``: one folder per language with its ``.po`` (and built ``.mo``)."""

NameOrder = Literal["family-first", "given-first"]
NAME_ORDERS: tuple[NameOrder, ...] = get_args(NameOrder)


@dataclass(frozen=True)
class Audience:
    """Who reads what is being written: their language, how they write a person's name,
    and whether customers' numbers are masked (a message posted where many read)."""

    language: Language = "en"
    names: NameOrder = "family-first"
    mask_phones: bool = False
    public: bool = False
    """A message many read (a channel post, a file in a channel): the customers' numbers
    it shows are noted (``commands.kernel.phones.take_shown``) so the post can be found
    again, revealed and erased."""


_AUDIENCE: ContextVar[Audience] = ContextVar(
    "callops_audience",
    default=Audience(),  # noqa: B039 - frozen, never mutated
)


def audience() -> Audience:
    """Whoever reads what is being written now."""
    return _AUDIENCE.get()


def current_language() -> Language:
    return _AUDIENCE.get().language


@contextmanager
def use_audience(who: Audience) -> Iterator[Audience]:
    """Write for ``who`` inside the block (and in the tasks it starts)."""
    token = _AUDIENCE.set(who)
    try:
        yield who
    finally:
        _AUDIENCE.reset(token)


@contextmanager
def use_language(language: Language) -> Iterator[Audience]:
    """The current audience, in ``language``."""
    current = _AUDIENCE.get()
    with use_audience(
        Audience(
            language=language,
            names=current.names,
            mask_phones=current.mask_phones,
            public=current.public,
        )
    ) as who:
        yield who


def language_of(value: str | None) -> Language | None:
    """A language callops speaks from a Slack locale (``vi-VN``, ``en-US``) or a code
    (``vi``); None when it speaks none of it."""
    if not value:
        return None
    code = value.strip().replace("_", "-").split("-", 1)[0].lower()
    return code if code in LANGUAGES else None


@functools.cache
def translations(language: Language) -> NullTranslations:
    """The catalog of ``language`` (English is the code's own words)."""
    if language == "en":
        return NullTranslations()
    folder = LOCALES / language / "LC_MESSAGES"
    po, mo = folder / f"{DOMAIN}.po", folder / f"{DOMAIN}.mo"
    if mo.exists() and (not po.exists() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as fp:
            return Translations(fp, domain=DOMAIN)
    if not po.exists():
        log.error("No catalog for %s at %s: showing English", language, folder)
        return NullTranslations()
    with po.open("rb") as fp:
        catalog = read_po(fp, locale=language, domain=DOMAIN)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return Translations(buffer, domain=DOMAIN)


def _(message: str) -> str:
    """``message`` in the reader's language."""
    language = _AUDIENCE.get().language
    if language == "en":
        return message
    return translations(language).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` for ``n`` in the reader's language."""
    language = _AUDIENCE.get().language
    if language == "en":
        return singular if n == 1 else plural
    return translations(language).ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` in the reader's language, where the same English word needs two
    translations (``context`` tells them apart)."""
    language = _AUDIENCE.get().language
    if language == "en":
        return message
    return translations(language).pgettext(context, message)


def N_(message: str) -> str:
    """Marks a string for the catalog without translating it now (a module constant)."""
    return message


def in_language(language: Language, message: str) -> str:
    """``message`` in ``language`` whoever reads now (a word matched in both languages)."""
    with use_language(language):
        return _(message)
