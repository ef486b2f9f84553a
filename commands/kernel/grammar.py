"""The ``/callops`` grammar: words, quoted names, Slack's escaped mentions and ``key=value``.

The manifest sets ``should_escape: true``, so Slack sends users and channels as
``<@U123|name>`` and ``<#C123|name>``; people also type ``@name`` and ``#name`` by hand
(or paste text where Slack did not escape them).  Both forms parse to the same refs;
a plain name is resolved later by whoever has a Web API client.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from commands.kernel.i18n import _
from commands.kernel.matching import alternatives, fold, suggest


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
    "goi-vao": "inbound",
    "vao": "inbound",
    "goi-ra": "outbound",
    "ra": "outbound",
    "noi-bo": "local",
}
"""How people name a call's direction, to the service's word for it (the Vietnamese
ones typed without diacritics: ``goi-vao``, ``goi-ra``, ``noi-bo``)."""

_ESCAPED_USER = re.compile(r"^<@([UW][A-Z0-9]+)(?:\|([^>]*))?>$")
_ESCAPED_CHANNEL = re.compile(r"^<#([CGD][A-Z0-9]+)(?:\|([^>]*))?>$")
_PLAIN_NAME = re.compile(r"^[\w.\-]{1,80}$")


_QUOTES = "\"'"
_CURLY = str.maketrans({"\u201c": '"', "\u201d": '"', "\u201e": '"', "\u2018": "'", "\u2019": "'"})
_SLACK_LINK = re.compile(r"<((?:https?://|mailto:|tel:)[^|>]*)(?:\|([^>]*))?>")
"""A link Slack made of what was typed (an address, an e-mail, a number): what the
person typed is its label, or the target itself when there is none."""


def tokenize(text: str) -> list[str]:
    """Split on whitespace, honouring quotes so ``campaign "Summer sale"`` is two words.

    A quote opens a quoted part at the start of a word or right after ``=``
    (``name="Nguyễn Văn An"``); anywhere else it is just a letter, so ``O'Brien`` and
    ``Hà Nội's`` need no care.  Inside double quotes, ``\\"`` is a quote.  Slack turns
    straight quotes into curly ones on some clients; those count as quotes too.
    Slack also sends what the user typed as ``&``, ``<`` and ``>`` escaped (``&amp;``...),
    and links it made itself (``<mailto:a@b.vn|a@b.vn>``) in angle brackets: links become
    what was typed, then each word is unescaped, so ``name=A&B`` reaches the service as
    ``A&B``.  Mentions Slack made (``<@U1|name>``) stay whole for ``parse_user``.
    """
    normalized = _SLACK_LINK.sub(lambda m: m.group(2) or m.group(1), text.translate(_CURLY))
    return [unescape_slack(word) for word in _split(normalized)]


def _split(text: str) -> list[str]:
    words: list[str] = []
    current: list[str] = []
    started = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            if started:
                words.append("".join(current))
                current, started = [], False
            i += 1
        elif ch in _QUOTES and (not current or current[-1] == "="):
            i = _quoted(text, i, current)
            started = True
        elif ch == "<" and not current and ">" in text[i:]:
            end = text.index(">", i)  # Slack's own <@U1|name>: one word, spaces and all
            current.append(text[i : end + 1])
            started, i = True, end + 1
        else:
            current.append(ch)
            started, i = True, i + 1
    if started:
        words.append("".join(current))
    return words


def _quoted(text: str, start: int, into: list[str]) -> int:
    """Copy the quoted part opening at ``start`` into ``into``; where scanning resumes."""
    quote = text[start]
    i = start + 1
    while i < len(text):
        ch = text[i]
        if quote == '"' and ch == "\\" and i + 1 < len(text) and text[i + 1] in '"\\':
            into.append(text[i + 1])
            i += 2
        elif ch == quote:
            return i + 1
        else:
            into.append(ch)
            i += 1
    raise UsageError(
        _(
            "I could not read that: the quote ({quote}) before '{start}' is not closed. "
            "Close it, or leave the quotes out: names and values may have spaces."
        ).format(quote=quote, start=unescape_slack(text[start + 1 : start + 21]))
    )


def quote_word(word: str) -> str:
    """``word`` written as Slack would send it, so that ``tokenize`` reads it back as the
    same one word (for the command text a button carries): escaped like typed text,
    quoted when it holds a space or starts like a quote."""
    sent = word.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    plain = sent and not any(ch.isspace() for ch in sent) and sent[0] not in _QUOTES
    if plain and '="' not in sent and "='" not in sent:
        return sent
    return '"' + sent.replace("\\", "\\\\").replace('"', '\\"') + '"'


def join_words(words: Sequence[str]) -> str:
    """Words back into command text that ``tokenize`` splits into exactly these words."""
    return " ".join(quote_word(w) for w in words)


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
    """``in``, ``Inbound``, ``out``, ``goi vao``...: the service's direction, or None."""
    return DIRECTION_WORDS.get(fold(word).replace(" ", "-"))


class _AnyKey(frozenset[str]):
    def __contains__(self, item: object) -> bool:
        return True


ANY_KEY: Collection[str] = _AnyKey()
"""For ``split_options(spaced=...)``: every key's value may run over several words."""

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUMBER_PART = re.compile(r"^\+?[\d().\-]+$")
"""A group of a phone number as people space it out: ``+84``, ``912``, ``(028)``, ``345-678``."""
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_TIME_OF_DAY = re.compile(r"\d{1,2}:\d{2}(?::\d{2})?")


def option_key(token: str) -> str | None:
    """The ``key`` of a ``key=value`` word; None when the word is no option (a URL with
    ``=`` in its query, ``=5``, a plain word)."""
    key, sep, _ = token.partition("=")
    return key if sep and _KEY.fullmatch(key) else None


def split_options(
    tokens: Sequence[str], *, spaced: Collection[str] = (), numbers: Collection[str] = ()
) -> tuple[list[str], dict[str, str]]:
    """Separate positional words from ``key=value`` options (later keys win).

    The value of a key in ``spaced`` (free text: a name, an address, a campaign) runs on
    over the following words up to the next ``key=``, so ``lead_name=Nguyễn Văn An``
    needs no quotes; other values are one word, so ``status=busy Summer`` leaves
    ``Summer`` positional.  A word whose part before ``=`` is not a plain identifier
    stays positional, so a value such as a URL with ``=`` in its query is not mistaken
    for an option.  A date followed by a time of day (``from=2026-11-01 08:00``) is one
    value whatever the key.  The value of a key in ``numbers`` (a phone number) runs on
    over the following words while they are groups of digits, so ``phone=+84 912 345
    678`` is one number and ``phone=0912345678 Summer`` leaves ``Summer`` positional.
    """
    positional: list[str] = []
    options: dict[str, str] = {}
    running: str | None = None
    number: str | None = None
    last: str | None = None
    for token in tokens:
        key = option_key(token)
        if key is not None:
            options[key] = token.partition("=")[2]
            running = key if key.lower() in spaced or key in spaced else None
            number = key if key.lower() in numbers or key in numbers else None
            last = key
        elif running is not None:
            options[running] = f"{options[running]} {token}".strip()
        elif number is not None and _NUMBER_PART.match(token):
            options[number] = f"{options[number]} {token}".strip()
        elif last is not None and _DATE.fullmatch(options[last]) and _TIME_OF_DAY.fullmatch(token):
            options[last] = f"{options[last]} {token}"
            last = None
        else:
            positional.append(token)
            number = last = None
    return positional, options


def replace_run(words: Sequence[str], query: str, replacement: str) -> list[str] | None:
    """``words`` with the run of consecutive words that spells ``query`` (as words of
    their own, as the value of a ``key=``, or before a comma) replaced by
    ``replacement``; None when no run spells it.  The leftmost run is replaced."""
    target = query.strip()
    for i in range(len(words)):
        key = option_key(words[i])
        prefix = f"{key}=" if key is not None else ""
        for j in range(i + 1, len(words) + 1):
            body = " ".join(words[i:j])[len(prefix) :].strip()
            suffix = "," if body.endswith(",") else ""
            if body.strip(",").strip() == target:
                return [*words[:i], prefix + replacement + suffix, *words[j:]]
    return None


def check_keys(
    options: Collection[str], allowed: Sequence[str], *, what: str, usage: str | None
) -> None:
    """Refuse the first key not in ``allowed`` (any case), naming the nearest ones."""
    lowered = {a.lower() for a in allowed}
    for key in options:
        if key.lower() in lowered:
            continue
        near = suggest(key, allowed, limit=2)
        listed = ", ".join(a + "=" for a in allowed)
        if near:
            message = _("'{key}=' is not {what}. Did you mean {choices}? Use {listed}.").format(
                key=key, what=_(what), choices=alternatives([n + "=" for n in near]), listed=listed
            )
        else:
            message = _("'{key}=' is not {what}. Use {listed}.").format(
                key=key, what=_(what), listed=listed
            )
        raise UsageError(message, usage)


def key_values(given: str | Mapping[str, object] | None) -> dict[str, str]:
    """Values written as ``name="Nguyễn An" amount=150000`` (spaces or new lines between
    them), as a JSON object, or already an object (a workflow step's input): every value
    as text.  Anything that is no ``key=value`` is a ``UsageError`` naming it."""
    if given is None:
        return {}
    if isinstance(given, Mapping):
        return {str(k): "" if v is None else str(v) for k, v in given.items()}
    text = given.strip()
    if text.startswith("{"):
        try:
            loaded = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UsageError(
                _("The values look like JSON but are not: {error}.").format(error=exc.msg)
            ) from exc
        if not isinstance(loaded, dict):
            raise UsageError(_('The values must be a JSON object, like {"name": "An"}.'))
        return key_values(loaded)
    positional, options = split_options(tokenize(text.replace(",\n", "\n")))
    if positional:
        raise UsageError(
            _("'{word}' is not name=value; write the values like name=An amount=150000.").format(
                word=positional[0]
            )
        )
    return options
