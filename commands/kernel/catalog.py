"""Every ``/callops`` subcommand with its usage line, summary, the role it needs and its
handler.

Each family declares its commands (``CommandSpec``, in its ``family.py``); the one table
made of them for an app (``Catalog``, built by ``commands/registry.py``) feeds the parser
(longest match of the leading words), ``help``, the permission check and the demo
console's completion, so they cannot disagree.

Each command also has a Vietnamese alias typed without diacritics (``chien-dich`` for
``campaigns``, ``tam-dung tat-ca`` for ``pause all``; the table is in
``docs/glossary-vi.md``).  Both are matched folded, word by word, so ``chien dich``,
``Chiến dịch`` and ``chien-dich`` all name the campaigns command.  Usage lines and
summaries are marked for the catalog (``N_``) and translated where they are shown.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Awaitable, Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import KW_ONLY, dataclass, field
from typing import TYPE_CHECKING

from commands.kernel.i18n import _, current_language
from commands.kernel.matching import fold
from storage import Role

if TYPE_CHECKING:
    from commands.kernel.context import CommandContext
    from commands.kernel.reply import Outcome

Handler = Callable[["CommandContext", list[str]], Awaitable["Outcome"]]


@dataclass(frozen=True)
class CommandSpec:
    name: str
    """The leading words, e.g. ``"pause all"`` or ``"digest add"``."""
    alias: str
    """The Vietnamese words, typed without diacritics: ``"tam-dung tat-ca"`` (a space
    between command words, hyphens inside one)."""
    usage: str
    """English and marked for the catalog (``N_``) where it has placeholders to
    translate; shown with ``_(spec.usage)``."""
    summary: str
    """Marked for the catalog; shown with ``_(spec.summary)``."""
    role: Role
    examples: tuple[str, ...] = ()
    _: KW_ONLY
    handler: Handler = field(compare=False, repr=False)
    """What runs it: ``(ctx, the words after the command's) -> Outcome``."""
    family: str = ""
    """The help's group (``campaigns``, ``general``...): its family's name unless given."""

    @functools.cached_property
    def words(self) -> tuple[str, ...]:
        return tuple(self.name.split())

    @functools.cached_property
    def alias_words(self) -> tuple[str, ...]:
        """The alias as it compares: folded, hyphens as spaces (``("tam", "dung")``)."""
        return tuple(fold(self.alias).split())

    @property
    def alias_usage(self) -> str:
        """The usage line with the alias in place of the English words."""
        return self.alias + self.usage[len(self.name) :]


MAX_WORDS = 4
"""The most words a command is written with (``ban tin xem truoc``)."""


class Catalog:
    """Every command of one app, in the help's order, and the ways to find one.

    Built from the families' declarations (``commands/registry.py``) and handed to the
    dispatcher with the rest of the app's registry; importing this module builds none.
    Words that name two commands, or too many words, are a mistake in a declaration and
    stop the app at once."""

    def __init__(self, specs: Iterable[CommandSpec]) -> None:
        self.commands: tuple[CommandSpec, ...] = tuple(specs)
        table: dict[tuple[str, ...], CommandSpec] = {}
        for spec in self.commands:
            for words in (spec.words, spec.alias_words):
                if words in table:
                    raise ValueError(f"{words!r} names both {table[words].name} and {spec.name}")
                if len(words) > MAX_WORDS:
                    raise ValueError(f"{spec.name}: {words!r} is longer than {MAX_WORDS} words")
                table[words] = spec
        self._by_words = table
        """The commands by their words, English and Vietnamese (folded): a typed line is
        looked up a few words at a time (the observer naming the request for its logs
        and metrics, then the dispatcher)."""

    def match(self, tokens: list[str]) -> tuple[CommandSpec, list[str]] | None:
        """The command whose words lead ``tokens`` (longest match wins), and the rest.
        Words compare folded: ``Campaign``, ``CAMPAIGNS`` and ``Digest  Add`` all count,
        and so do the Vietnamese words with or without hyphens or diacritics
        (``chien-dich``, ``chien dich``, ``chiến dịch``).  A token is never split:
        ``tam-dung-tat-ca`` is ``pause all``, but no command ends in the middle of a word."""
        best: tuple[CommandSpec, int] | None = None
        words: list[str] = []
        for count, token in enumerate(tokens, start=1):
            folded = fold(token).split()
            if not folded:
                break
            words.extend(folded)
            if len(words) > MAX_WORDS:
                break
            spec = self._by_words.get(tuple(words))
            if spec is not None:
                best = (spec, count)
        if best is None:
            return None
        spec, count = best
        return spec, tokens[count:]

    def heads(self) -> dict[str, list[CommandSpec]]:
        """The commands by the word they start with, folded, in both languages: ``digest``
        and ``ban tin`` each name the digest commands (``help digest``)."""
        grouped: dict[str, list[CommandSpec]] = {}
        for spec in self.commands:
            grouped.setdefault(spec.words[0], []).append(spec)
            head = fold(spec.alias.split()[0])
            if head != spec.words[0]:
                grouped.setdefault(head, []).append(spec)
        return grouped

    def find(self, name: str) -> CommandSpec | None:
        for spec in self.commands:
            if spec.name == name:
                return spec
        return None

    def usage_of(self, name: str) -> str:
        """How to write the command ``name``, for a ``UsageError``.  An unknown name is a
        mistake in the code, not in the input, so it fails loudly instead of guessing."""
        spec = self.find(name)
        if spec is None:
            raise LookupError(f"no command is called {name!r}")
        return spec.usage

    def spec_of_usage(self, usage: str) -> CommandSpec | None:
        """The command a usage line is written for: the one whose usage it is, else the
        one whose words lead it (longest first), else None (a hint passed as a usage)."""
        for spec in self.commands:
            if spec.usage == usage:
                return spec
        leading = [s for s in self.commands if usage == s.name or usage.startswith(s.name + " ")]
        return max(leading, key=lambda s: len(s.name), default=None)

    def usage_for_reader(self, usage: str) -> str:
        """A usage line as the reader types it: English, or the Vietnamese alias with the
        placeholders of the catalog (``tam-dung <chiến dịch>``).  The translation keeps
        the English command word at its start (the help and errors swap it here), so a
        usage that names its command twice (``lead <uuid> | lead <campaign> ...``) gets
        the alias both times."""
        translated = _(usage)
        if current_language() == "en":
            return translated
        spec = self.spec_of_usage(usage)
        if spec is None:
            return translated
        if translated == spec.name or translated.startswith(spec.name + " "):
            translated = spec.alias + translated[len(spec.name) :]
        else:  # a usage that is one common word (``calls``) shares a message of its own
            translated = spec.alias + usage[len(spec.name) :]
        return translated.replace(f"| {spec.name} ", f"| {spec.alias} ")


_IN_USE: ContextVar[Catalog] = ContextVar("callops_catalog")
"""The catalog of the app whose request (or background job) this task runs, set by the
dispatcher from the registry it was given (``using``), like the reader's language
(``use_audience``): what a handler writes about a command (its usage line, in the
reader's words) is looked up there."""


@contextlib.contextmanager
def using(catalog: Catalog) -> Iterator[Catalog]:
    """Make ``catalog`` the one ``in_use`` answers for the rest of the block (this task)."""
    token = _IN_USE.set(catalog)
    try:
        yield catalog
    finally:
        _IN_USE.reset(token)


def in_use() -> Catalog:
    """The catalog of the app running this task; outside one it fails loudly (a module
    imported on its own has no commands)."""
    try:
        return _IN_USE.get()
    except LookupError:
        raise LookupError("no command catalog is in use: run inside the app's registry") from None


def usage_of(name: str) -> str:
    """``Catalog.usage_of`` of the catalog in use."""
    return in_use().usage_of(name)


def usage_for_reader(usage: str) -> str:
    """``Catalog.usage_for_reader`` of the catalog in use."""
    return in_use().usage_for_reader(usage)


def role_allows(role: Role, needed: Role) -> bool:
    """Whether someone with ``role`` may run what needs ``needed`` (admin > operator > viewer)."""
    return role.at_least(needed)
