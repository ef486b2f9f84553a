"""What a Vietnamese reader is shown, and what of it is still English.

``shown`` collects every string a person reads in a reply, a modal, a Home tab or a call
card: the notification text and every ``text`` of the Block Kit (sections, fields,
context, headers, buttons, options, confirm dialogs, table cells), modal titles, submit
and close buttons, labels and placeholders, which slack_sdk all serializes as
``{"type": "plain_text" | "mrkdwn", "text": ...}``.

``english_left`` then takes out what is not ours to translate (emoji shortcodes,
mentions and links, `code` that people type, URLs, the service's own data, numbers)
and reports the common English words of the app's vocabulary that are left and that no
Vietnamese translation of the catalog uses either ("Slack", "API", a command word kept in
a translation).  A surface that shows an unwrapped sentence has some of those words;
a translated one has none.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po
from slack_sdk.models.views import View

from commands.kernel.reply import Reply

ROOT = Path(__file__).resolve().parents[2]
PO = ROOT / "commands" / "locales" / "vi" / "LC_MESSAGES" / "callops.po"

_VOCABULARY = """
    a about after again agent agents alert alerts all already an and answered any app
    approval approvals approve approved approver are as ask asked at available back be
    because before busy but by call calls campaign campaigns can cancel cancelled cannot
    card change changed channel check choose click close confirm confirmed connect
    connected could day days decided denied deny did digest digests does done each edit
    ended every expired expires failed for form from group groups has have here hour how
    if in is it its last lead leads list live look manager mean minutes more name needs
    next no nobody none not nothing now of on once one only open or other over page
    paused pending please previous request requested requester requests run running
    see sent shows so some start started still stop stopped sure than that the their
    them there these this time to today too total transfer try until up upload use user
    users waiting was were what when where which who why will with without workspace
    yesterday yet you your
"""
ENGLISH = frozenset(_VOCABULARY.split())
"""Common words of the app's English: any of them left on a Vietnamese surface means an
English sentence, label or button got through."""

_EMOJI = re.compile(r":[a-z0-9_+\-']+:")
_SLACK_MARKUP = re.compile(r"<[^<>]*>")
_CODE = re.compile(r"`[^`]*`")
_URL = re.compile(r"https?://\S+")
_COMMAND = re.compile(r"(?<![\w/])/[a-z]+(?: [@#]?[A-Za-z0-9_|=\-]+)*")
"""A command people type, ``/callops role @you operator`` (its words are not translated)."""
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")
_IDS = re.compile(r'"(?:block_id|action_id|callback_id|value|type)": "[^"]*"')
"""A message's JSON, where a test shows it whole: ids Slack makes up (a random
``block_id`` such as ``xIf9k`` holds "If"), values and types nobody reads."""
_KEY = re.compile(r"\b[a-z][a-z0-9_]*=")
"""An option people type, ``identity_issued_at=`` (its key is grammar, not English)."""


def shown(surface: Any) -> list[str]:
    """Every string a person reads on ``surface`` (a ``Reply``, a ``View``, anything with
    ``text`` and ``blocks`` such as a call card, or an already serialized dict)."""
    if isinstance(surface, Reply):
        data: Any = surface.payload()
    elif isinstance(surface, View):
        data = surface.to_dict()
    elif hasattr(surface, "blocks") and hasattr(surface, "text"):
        data = {
            "text": surface.text,
            "blocks": [b.to_dict() if hasattr(b, "to_dict") else b for b in surface.blocks],
        }
    else:
        data = surface
    found: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("text", "alt_text") and isinstance(value, str):
                    found.append(value)
                else:
                    walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(data)
    return [text for text in found if text.strip()]


def words(text: str) -> set[str]:
    """The words of ``text``, folded to lower case."""
    return {w.lower() for w in _WORD.findall(text)}


@cache
def vi_catalog() -> Catalog:
    with PO.open("rb") as fp:
        return read_po(fp, locale="vi")


@cache
def catalog_words() -> frozenset[str]:
    """Every word some Vietnamese translation keeps as it is (``Slack``, ``API``,
    ``token``), besides the commands and code it quotes."""
    found: set[str] = set()
    for message in vi_catalog():
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple | list) else [message.string]
        for string in strings:
            found |= words(readable(string or ""))
    return frozenset(found)


_DATA_KEY = re.compile(r"(name|description|title|content|text|message)$")
"""Fields of the service's data that hold words people wrote (a campaign's name, a
template's text), not values of the service's vocabulary (``start``, ``autocall``)."""


def data_words(values: Iterable[object]) -> frozenset[str]:
    """The words of the service's own data: the strings given, and in rows (dicts, JSON
    text) the values of the fields that hold names and texts."""
    found: set[str] = set()

    def walk(node: object, named: bool) -> None:
        if isinstance(node, str):
            text = node.strip()
            if text[:1] in ("{", "[") and text[-1:] in ("}", "]"):
                try:
                    walk(json.loads(text), named)
                except ValueError:
                    pass
                else:
                    return
            if named:
                found.update(words(node))
        elif isinstance(node, dict):
            for key, value in node.items():
                walk(value, bool(_DATA_KEY.search(str(key))))
        elif isinstance(node, list | tuple | set | frozenset):
            for item in node:
                walk(item, named)

    walk(list(values), True)
    return frozenset(found)


def readable(text: str) -> str:
    """``text`` without what nobody translates: emoji, mentions, links, code, URLs, the
    commands and the option keys people type."""
    for pattern in (_IDS, _CODE, _SLACK_MARKUP, _URL, _COMMAND, _EMOJI, _KEY):
        text = pattern.sub(" ", text)
    return text


def english_left(texts: Iterable[str], data: frozenset[str] = frozenset()) -> list[str]:
    """``"word" in "text"`` for each English word left on a Vietnamese surface; [] when
    everything shown is from the catalog (or the service's data)."""
    allowed = catalog_words() | data
    problems: list[str] = []
    for text in texts:
        english = sorted(w for w in words(readable(text)) if w in ENGLISH and w not in allowed)
        if english:
            problems.append(f"{', '.join(english)} in {text[:160]!r}")
    return problems
