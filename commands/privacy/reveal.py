"""The "Show number" button of a masked post: the customer's number, to the clicker alone.

A post that shows customers' numbers masked carries one button whose value is a random
reference (``storage.privacy_posts``), never the number.  Clicking it answers the clicker
alone (an ephemeral reply) with the numbers in full when their role lets them see
customers' numbers (operators and admins), masked otherwise, and writes to the audit log
who saw which number (its keyed hash) in which post, when.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import StringConstraints
from slack_sdk.models.blocks import ActionsBlock, ButtonElement

from commands.kernel.context import CommandContext
from commands.kernel.i18n import _
from commands.kernel.interactions import Click
from commands.kernel.phones import show_phone
from commands.kernel.reply import Outcome, notice
from commands.kernel.text import escape
from commands.kernel.values import OutOfDate, Value, compact_json, read
from storage import Role, off_loop

SHOW_NUMBER_BUTTON = "privacy_show_number"
SHOW_NUMBER_BLOCK = "privacy_show_number"
REVEAL_ROLE = Role.OPERATOR
"""The least role that sees a customer's number in full."""
REVEAL_ACTION = "privacy.reveal"
"""The audit log's name for a number shown in full to one person."""


class ShowNumberValue(Value):
    """The Show number button's value: the post's reference, nothing else."""

    ref: Annotated[str, StringConstraints(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]


def show_number_block(ref: str) -> ActionsBlock:
    """The row a masked post gets: one button that reveals its numbers to the clicker."""
    return ActionsBlock(
        block_id=SHOW_NUMBER_BLOCK,
        elements=[
            ButtonElement(
                text=_("Show number"),
                action_id=SHOW_NUMBER_BUTTON,
                value=compact_json(ShowNumberValue(ref=ref).model_dump()),
            )
        ],
    )


async def show_number_clicked(ctx: CommandContext, click: Click) -> Outcome:
    """The numbers of the clicked post, to the clicker alone; audited."""
    value = read(ShowNumberValue, click.value)
    storage = ctx.storage
    phones = await off_loop(storage.privacy_posts.numbers_of, ctx.team_id, value.ref)
    if phones is None:
        raise OutOfDate("a Show number button", "no post carries this reference")
    if not phones:
        return notice(
            _(
                "This message's numbers are no longer kept: they were erased or aged out "
                "under the workspace's retention."
            ),
            emoji=":lock:",
        )
    full = ctx.role.at_least(REVEAL_ROLE)
    shown = ", ".join(f"*{escape(show_phone(p, mask=not full))}*" for p in phones)
    for phone in phones:
        await off_loop(
            storage.audit.append,
            ctx.team_id,
            ctx.user_id,
            REVEAL_ACTION,
            {
                "phone_hash": storage.privacy_posts.phone_hash(phone),
                "channel": ctx.channel_id,
                "ts": click.message_ts,
                "full": full,
            },
        )
    if not full:
        return notice(
            _(
                "{numbers}: customers' numbers are shown in full only to operators and "
                "admins; ask an admin for the role if your work needs them."
            ).format(numbers=shown),
            emoji=":lock:",
        )
    return notice(
        _("{numbers}: for you alone. Keep it out of channels.").format(numbers=shown),
        emoji=":telephone_receiver:",
    )
