"""What a command hands back to the Slack layer: blocks plus a plain-text fallback.

Commands know nothing of Bolt or HTTP; ``bot/`` decides whether a reply goes through
``response_url``, ``chat.postMessage`` or ``views.publish``.  A handler that has more to
say than its answer (a note in a thread, a DM) says it in its outcome (``Post``,
``Also``) and ``bot/`` sends it: a handler never posts itself.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import KW_ONLY, dataclass, field
from functools import lru_cache
from typing import Any, Literal, TypeVar

from slack_sdk.models.blocks import (
    Block,
    ContextBlock,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)
from slack_sdk.models.views import View

from commands.kernel.catalog import usage_for_reader
from commands.kernel.i18n import _, current_language, ngettext
from commands.kernel.text import escape, fallback, truncate

MAX_MESSAGE_BLOCKS = 50
"""Slack's limit for one message; ``fit`` keeps replies under it."""
SECTION_TEXT_LIMIT = 3000
FIELD_TEXT_LIMIT = 2000


ReplyKind = Literal["ok", "error", "service_error", "failed"]
"""``error``: bad input or a refusal; ``service_error``: the call-center service failed;
``failed``: a bug (logged with its ref)."""


@dataclass
class Reply:
    text: str
    """Notification and screen-reader fallback; escaped where it holds outside values."""
    blocks: list[Block] = field(default_factory=list)
    _: KW_ONLY
    ephemeral: bool = True
    replace_original: bool = False
    kind: ReplyKind = "ok"
    """What the reply says happened, for the operator's counts (never shown to Slack)."""

    def payload(self) -> dict[str, Any]:
        """The dict for ``respond()`` / ``chat.postMessage`` (blocks validated by their
        ``to_dict``, once for a block built ``once``)."""
        return {
            "text": fallback(self.text),
            "blocks": [block_dict(b) for b in fit(self.blocks)],
            "response_type": "ephemeral" if self.ephemeral else "in_channel",
            "replace_original": self.replace_original,
        }


@dataclass
class OpenModal:
    """The command's answer is a modal; ``bot`` opens it with the trigger id at once
    (a trigger id lives 3 seconds, so nothing slow may come first).  When the content
    is slow to gather (the wallboard asks the service several things), ``view`` is a
    placeholder and ``fill`` builds the real view, which replaces it once ready."""

    view: View
    fill: Callable[[], Awaitable[View]] | None = None
    _: KW_ONLY
    dismiss_original: bool = False
    """Remove the clicked message once the modal is open (a "Which one?" picker whose
    choice opened a form: it must not stay behind, offering the choice again)."""


@dataclass
class UpdateModal:
    """Replace the modal the person is looking at (the one whose button they clicked)."""

    view: View


@dataclass
class FieldErrors:
    """A submitted form is refused: one message per input block, shown on the fields.
    Only a submission that has not been acknowledged yet can say this."""

    errors: dict[str, str]


@dataclass
class PublishHome:
    """The answer is the person's App Home tab: ``view``, or (None) the wallboard as it
    is now."""

    view: View | None = None


@dataclass
class Rerun:
    """Run a typed command again on the person's behalf (a Next button, a choice among
    campaigns): the dispatcher answers it exactly as if it had been typed."""

    command: str
    _: KW_ONLY
    offset: int = 0
    replace_original: bool = True


@dataclass
class DeleteOriginal:
    """Remove the message that was clicked (a prompt whose request moved elsewhere)."""


@dataclass
class Nothing:
    """Everything was already said where it belongs (a card updated, a thread note)."""


@dataclass
class Post:
    """A message for everyone in a channel (or a thread) instead of an answer;
    ``otherwise`` answers the person when Slack refuses the post."""

    channel: str
    reply: Reply
    _: KW_ONLY
    thread_ts: str | None = None
    otherwise: Reply | None = None


@dataclass
class Tell:
    """A message to one person: ephemeral in ``channel``, else (no channel, or the bot is
    not in it) a DM."""

    user: str
    reply: Reply
    _: KW_ONLY
    channel: str | None = None


@dataclass
class Also:
    """An answer, and a message to someone sent before it (the person whose role
    changed, the channel a form was opened from)."""

    answer: Outcome
    tell: Tell


@dataclass
class StepCompleted:
    """A workflow step finished: its outputs, named as the manifest declares them."""

    outputs: dict[str, Any]


@dataclass
class StepFailed:
    """A workflow step failed; ``error`` (plain text) is shown in the workflow's activity."""

    error: str


@dataclass
class StepPending:
    """A workflow step waits for a person (an approval request): it is completed, or
    failed, when the request is decided, denied or expires."""

    approval_id: str


Outcome = (
    Reply
    | OpenModal
    | UpdateModal
    | FieldErrors
    | PublishHome
    | Rerun
    | DeleteOriginal
    | Nothing
    | Post
    | Also
    | StepCompleted
    | StepFailed
    | StepPending
)


def fit(blocks: list[Block], limit: int = MAX_MESSAGE_BLOCKS) -> list[Block]:
    """Cut a block list to Slack's limit, saying how much was left out."""
    if len(blocks) <= limit:
        return blocks
    kept = blocks[: limit - 1]
    left = len(blocks) - len(kept)
    more = ngettext("_{n} more block not shown._", "_{n} more blocks not shown._", left)
    kept.append(context_line(more.format(n=left)))
    return kept


B = TypeVar("B", bound=Block)

_dicts: dict[int, dict[str, Any] | None] = {}
"""The dict of each block built ``once``, by the block's id while the block lives (None
until a reply first needs it)."""


def once(block: B) -> B:
    """``block``, never changed from now on: its dict is made (and validated) by its
    ``to_dict`` the first time a reply needs it, then reused for as long as the block
    lives.  ``slack_sdk`` validates on every ``to_dict`` by listing and reading every
    attribute of every object (about 25 µs each): for the blocks a cache hands to every
    request (``help``, a header, a listing's buttons) that was most of a command's CPU."""
    key = id(block)
    if key not in _dicts:
        _dicts[key] = None
        weakref.finalize(block, _dicts.pop, key, None)  # before the id can be reused
    return block


def block_dict(block: Block) -> dict[str, Any]:
    """``block.to_dict()``, made once for a block built ``once``."""
    key = id(block)
    if key not in _dicts:
        return block.to_dict()
    made = _dicts[key]
    if made is None:
        made = _dicts[key] = block.to_dict()
    return made


@lru_cache(maxsize=1024)
def section(text: str) -> SectionBlock:
    """A section of mrkdwn, cut to what Slack takes in one (one block per text: never
    change it)."""
    return once(SectionBlock(text=MarkdownTextObject(text=truncate(text, SECTION_TEXT_LIMIT))))


@lru_cache(maxsize=256)
def header(text: str) -> HeaderBlock:
    """A header block (one per text: never change it)."""
    return once(HeaderBlock(text=text))


def labelled(pairs: Iterable[tuple[str, str]]) -> list[MarkdownTextObject]:
    """A section's fields: each label in bold above its value, cut to what Slack takes
    in one field (at most ten fields fit a section: the caller chooses which)."""
    return [MarkdownTextObject(text=truncate(f"*{k}*\n{v}", FIELD_TEXT_LIMIT)) for k, v in pairs]


@lru_cache(maxsize=1024)
def context_line(text: str) -> ContextBlock:
    """A line of mrkdwn in small print (a context block; one per text: never change it)."""
    return once(ContextBlock(elements=[MarkdownTextObject(text=text)]))


def _one_section(body: str) -> Reply:
    body = truncate(body, SECTION_TEXT_LIMIT)
    return Reply(text=body, blocks=[section(body)])


def notice(text: str, *, emoji: str = ":information_source:") -> Reply:
    """A one-line ephemeral message; ``text`` must already be escaped mrkdwn."""
    return _one_section(f"{emoji} {text}")


def error(what: str, how: str | None = None, *, then: str = "", hint: str = "") -> Reply:
    """Bad input or a refusal: what was wrong, and how to write it (both plain text),
    with a pointer to the one page on writing names and values; ``then`` is mrkdwn of
    our own after it (a command naming the person with a mention); ``hint`` is a line
    of mrkdwn in small print under it, where to look (left out where no command is
    typed, as the usage line is)."""
    body = f":warning: {escape(what)}" + (f" {then}" if then else "")
    if hint:
        body += f"\n_{hint}_"
    if how:
        usage = _("Usage: {usage}").format(usage=f"`/callops {escape(usage_for_reader(how))}`")
        hint = _("Names and values with spaces: {help_writing}").format(
            help_writing=f"`/callops {writing_help()}`"
        )
        body += f"\n{usage}\n_{hint}_"
    reply = _one_section(body)
    reply.kind = "error"
    return reply


WRITING_TOPIC = "writing"
"""The ``help`` topic on writing names and values (``commands.kernel.help``)."""
WRITING_TOPIC_VI = "tro-giup cach-viet"
"""The same page as a Vietnamese reader types it (``help`` is ``tro-giup``)."""


def writing_help() -> str:
    """``help writing``, or ``tro-giup cach-viet`` for a Vietnamese reader."""
    return f"help {WRITING_TOPIC}" if current_language() == "en" else WRITING_TOPIC_VI


_LEADING_EMOJI = re.compile(r"^(:[a-z0-9_+\-]+:\s*)+")


def _usage_lines() -> re.Pattern[str]:
    """The ``/callops`` usage line and the italic hint after it, in the reader's
    language: a workflow has no command."""
    label = re.escape(_("Usage: {usage}").partition("{usage}")[0])
    return re.compile(rf"\n+({label}`[^`]*`|_[^\n]*_)\s*$")


def plain_words(reply: Reply) -> str:
    """A reply's message as plain text, for a surface that shows no mrkdwn (a workflow
    step's error): the same words, without the emoji, the ``/callops`` usage line, the
    bold and code marks, and with Slack's escapes undone."""
    text = reply.text.strip()
    usage_lines = _usage_lines()
    while usage_lines.search(text):
        text = usage_lines.sub("", text).strip()
    text = _LEADING_EMOJI.sub("", text)
    text = text.replace("*", "").replace("`", "")
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&").strip()
