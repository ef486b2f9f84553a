""" "Which one?": the campaigns that match what was typed, as buttons that finish the command.

Any family that resolves a campaign (cards, control, leads, reports, notifications...)
answers an ambiguous name with this reply.  It lives apart from the campaign card so
that the families the card links to (the lead list's Add lead and Upload leads) can
use it without importing the card.
"""

from __future__ import annotations

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    MarkdownTextObject,
    SectionBlock,
)

from commands.kernel.context import CommandContext
from commands.kernel.interactions import Click
from commands.kernel.paging import showing
from commands.kernel.reply import Outcome, Reply, Rerun
from commands.kernel.resolve import AmbiguousCampaign
from commands.kernel.text import escape, truncate

CHOOSE_ACTION = "campaign_choose"
"""Each candidate's button is ``campaign_choose_<n>``; its value is the command to run."""
MAX_VALUE = 2000
"""Slack's limit on a button's value."""


def ambiguous_reply(exc: AmbiguousCampaign, command: str, rest: str = "") -> Reply:
    """Offer the candidates as buttons; the click runs ``command <chosen UUID> rest``
    (``rest``: what was typed after the campaign, e.g. the lead's phone number)."""
    shown = exc.candidates[:20]
    blocks: list[Block] = [
        SectionBlock(
            text=MarkdownTextObject(
                text=f"Several campaigns start with *{escape(exc.query)}*. Which one?"
            )
        )
    ]

    def value(uuid: str) -> str:
        full = f"{command} {uuid} {rest}".strip()
        return full if len(full) <= MAX_VALUE else f"{command} {uuid}"

    for start in range(0, len(shown), 5):
        blocks.append(
            ActionsBlock(
                elements=[
                    ButtonElement(
                        text=truncate(c.campaign_name, 75),
                        action_id=f"{CHOOSE_ACTION}_{i}",
                        value=value(c.campaign_uuid),
                    )
                    for i, c in enumerate(shown[start : start + 5], start=start)
                ]
            )
        )
    if len(exc.candidates) > len(shown):
        blocks.append(showing(0, len(shown), len(exc.candidates), "matches"))
    return Reply(text=f"Several campaigns match {escape(exc.query)}", blocks=blocks)


async def choose_clicked(ctx: CommandContext, click: Click) -> Outcome:
    """One of "Which one?"'s buttons: the command it carries, now with one campaign."""
    return Rerun(click.value)
