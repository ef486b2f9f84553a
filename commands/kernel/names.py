"""A person's name, written one way on every surface.

The service keeps a person's name in three parts (``last_name``, ``middle_name``,
``first_name``; lead lists and the extension report spell them ``lastname`` ...).  A
Vietnamese name is written family first ("Vũ Bảo Minh"), which is how callops writes
it unless the reader asked for the given name first ("Minh Bảo Vũ",
``Audience.names``), so the agent on a live call, in the directory, on a digest and
on an approval card is the same string.  Call records carry the agent's name as one
string, written family first as the service writes Vietnamese names; it is turned
round the same way for a reader who reads given names first.

Nothing here escapes: callers clip and escape as for any other outside value.
"""

from __future__ import annotations

from typing import Protocol

from commands.kernel.i18n import audience


class Named(Protocol):
    """Anything the service names in three parts (a user, an agent's time, a report row)."""

    @property
    def last_name(self) -> str | None: ...

    @property
    def middle_name(self) -> str | None: ...

    @property
    def first_name(self) -> str | None: ...


def person_name(last: str | None, middle: str | None, first: str | None) -> str:
    """The parts joined in the reader's order, skipping empty ones (not escaped)."""
    given_first = audience().names == "given-first"
    parts = (first, middle, last) if given_first else (last, middle, first)
    return " ".join(p.strip() for p in parts if p and p.strip())


def name_of(person: Named, fallback: str | None = "") -> str:
    """``person``'s name in the reader's order, else ``fallback`` (a username)."""
    return person_name(person.last_name, person.middle_name, person.first_name) or (fallback or "")


def written_name(full: str | None) -> str:
    """A name the service gives as one string, family first ("Vũ Bảo Minh"), in the
    reader's order: the given name moved to the front for a given-first reader."""
    words = (full or "").split()
    if len(words) < 2 or audience().names != "given-first":
        return " ".join(words)
    return " ".join([words[-1], *words[1:-1], words[0]])
