"""The ``/callops`` grammar: words, quoted names, Slack's escaped mentions and ``key=value``.

The manifest sets ``should_escape: true``, so Slack sends users and channels as
``<@U123|name>`` and ``<#C123|name>``; people also type ``@name`` and ``#name`` by hand
(or paste text where Slack did not escape them).  Both forms parse to the same refs;
a plain name is resolved later by whoever has a Web API client.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass


class UsageError(Exception):
    """Bad input: ``message`` says what was wrong, ``usage`` how to write it."""

    def __init__(self, message: str, usage: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.usage = usage


@dataclass(frozen=True)
class UserRef:
    id: str | None
    name: str | None

    @property
    def mention(self) -> str:
        return f"<@{self.id}>" if self.id else f"@{self.name}"


@dataclass(frozen=True)
class ChannelRef:
    id: str | None
    name: str | None

    @property
    def mention(self) -> str:
        return f"<#{self.id}>" if self.id else f"#{self.name}"


DIRECTION_WORDS = {
    "inbound": "inbound",
    "in": "inbound",
    "outbound": "outbound",
    "out": "outbound",
    "local": "local",
}
"""How people name a call's direction, to the service's word for it."""

_ESCAPED_USER = re.compile(r"^<@([UW][A-Z0-9]+)(?:\|([^>]*))?>$")
_ESCAPED_CHANNEL = re.compile(r"^<#([CGD][A-Z0-9]+)(?:\|([^>]*))?>$")
_PLAIN_NAME = re.compile(r"^[\w.\-]{1,80}$")


def tokenize(text: str) -> list[str]:
    """Split on whitespace, honouring quotes so ``campaign "Summer sale"`` is two words.

    Slack turns straight quotes into curly ones on some clients; those count as quotes too.
    Slack also sends what the user typed as ``&``, ``<`` and ``>`` escaped (``&amp;``...),
    while the mentions it made itself arrive as real ``<@U1|name>``: each word is unescaped
    after splitting, so ``name=A&B`` reaches the service as ``A&B``.
    """
    normalized = (
        text.replace("\u201c", '"')
        .replace("\u201d", '"')
        .replace("\u2018", "'")
        .replace("\u2019", "'")
    )
    try:
        words = shlex.split(normalized, posix=True)
    except ValueError as exc:
        raise UsageError(f"I could not read that: {exc} (a quote is not closed).") from exc
    return [unescape_slack(word) for word in words]


def unescape_slack(text: str) -> str:
    """Undo Slack's escaping of user-typed text (``&amp;`` last, so ``&amp;lt;`` stays ``&lt;``)."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def parse_user(token: str) -> UserRef | None:
    """``<@U123|name>``, ``<@U123>`` or ``@name``; ``None`` when the token is no user."""
    match = _ESCAPED_USER.match(token)
    if match:
        return UserRef(id=match.group(1), name=match.group(2) or None)
    if token.startswith("@") and _PLAIN_NAME.match(token[1:]):
        return UserRef(id=None, name=token[1:])
    return None


def parse_channel(token: str) -> ChannelRef | None:
    """``<#C123|name>``, ``<#C123>`` or ``#name``; ``None`` when the token is no channel."""
    match = _ESCAPED_CHANNEL.match(token)
    if match:
        return ChannelRef(id=match.group(1), name=match.group(2) or None)
    if token.startswith("#") and _PLAIN_NAME.match(token[1:]):
        return ChannelRef(id=None, name=token[1:])
    return None


def parse_direction(word: str) -> str | None:
    """``in``, ``Inbound``, ``out``...: the service's direction, or None."""
    return DIRECTION_WORDS.get(word.strip().lower())


def split_options(tokens: list[str]) -> tuple[list[str], dict[str, str]]:
    """Separate positional words from ``key=value`` options (later keys win).

    A word whose part before ``=`` is not a plain identifier stays positional, so a
    value such as a URL with ``=`` in its query is not mistaken for an option.
    """
    positional: list[str] = []
    options: dict[str, str] = {}
    for token in tokens:
        key, sep, value = token.partition("=")
        if sep and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            options[key] = value
        else:
            positional.append(token)
    return positional, options
