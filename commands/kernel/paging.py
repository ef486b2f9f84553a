"""Next/Previous buttons for long listings.

A button carries the command text and the offset to show, so the click handler simply
runs the same command again at the new offset and replaces the message: no state is
kept between pages, and a stale page stays consistent with itself.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated

from pydantic import Field
from slack_sdk.models.blocks import ActionsBlock, ButtonElement, ContextBlock

from commands.kernel.context import CommandContext
from commands.kernel.i18n import Language, _, current_language
from commands.kernel.interactions import Click
from commands.kernel.reply import Outcome, Rerun, context_line, once
from commands.kernel.text import number
from commands.kernel.values import Text, Value, compact_json, read

PAGE_ACTION = "callops_page"


BUTTON_VALUE_LIMIT = 2000
"""Slack's limit on a button's value, in characters."""


def page_value(command: str, offset: int) -> str:
    return compact_json({"command": command, "offset": max(0, offset)})


MAX_OFFSET = 1_000_000
"""Further than any listing goes: a forged offset beyond it is out of date."""


class PageValue(Value):
    """What a Previous/Next button carries (``page_value``)."""

    command: Text
    offset: Annotated[int, Field(ge=0, le=MAX_OFFSET)]


def read_page_value(value: str) -> tuple[str, int]:
    page = read(PageValue, value)
    return page.command, page.offset


def showing(
    offset: int, shown: int, total: int, *, one: str, many: str | None = None
) -> ContextBlock:
    """``1 call record.``, ``12 campaigns.``, ``Showing 11–20 of 42 users.``: ``one`` is
    the noun for one item, ``many`` its plural when adding an s is wrong.  Both are
    English, marked for the catalog by the caller (``N_``), and shown translated."""
    plural_noun = many or one + "s"
    several = _(plural_noun)
    if total == 0:
        text = _("No {items}.").format(items=several)
    elif shown >= total and offset == 0:
        noun = _(one) if total == 1 else several
        text = _("{n} {noun}.").format(n=number(total), noun=noun)
    else:
        text = _("Showing {first}–{last} of {total} {items}.").format(
            first=number(offset + 1),
            last=number(offset + shown),
            total=number(total),
            items=several,
        )
    return context_line(text)


def pager(
    command: str, offset: int, page_size: int, total: int
) -> list[ActionsBlock | ContextBlock]:
    """Previous/Next buttons when there is more than one page; none otherwise (the same
    page of the same command makes the same blocks, built once: never change them)."""
    return list(_pager(command, offset, page_size, total, current_language()))


@lru_cache(maxsize=256)
def _pager(
    command: str, offset: int, page_size: int, total: int, language: Language
) -> tuple[ActionsBlock | ContextBlock, ...]:
    """``language`` is the reader's (the one ``_`` uses): part of the cache's key."""
    buttons: list[ButtonElement] = []
    if offset > 0:
        buttons.append(
            ButtonElement(
                text=_("◀ Previous"),
                action_id=f"{PAGE_ACTION}_prev",
                value=page_value(command, offset - page_size),
            )
        )
    if offset + page_size < total:
        buttons.append(
            ButtonElement(
                text=_("Next ▶"),
                action_id=f"{PAGE_ACTION}_next",
                value=page_value(command, offset + page_size),
            )
        )
    if any(len(b.value or "") > BUTTON_VALUE_LIMIT for b in buttons):
        # The command is too long to carry in a button; never send a value Slack refuses.
        note = _(
            "More results follow, but this command is too long to page with a button: "
            "narrow it to see them."
        )
        return (context_line(note),)
    return (once(ActionsBlock(block_id="pager", elements=buttons)),) if buttons else ()


async def page_clicked(ctx: CommandContext, click: Click) -> Outcome:
    """Previous/Next: the same command again, from the offset the button carries."""
    command, offset = read_page_value(click.value)
    return Rerun(command, offset=offset)
