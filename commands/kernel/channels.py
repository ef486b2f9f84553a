"""Channels a command will post into later (digests, alerts, call notifications).

Checked when the schedule or route is made, not when the first post fails at 8 a.m.:
the channel must exist and the bot must be in it (callops asks for no chat:write.public).
"""

from __future__ import annotations

from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError, parse_channel
from commands.kernel.i18n import _


async def channel_for_posting(ctx: CommandContext, token: str, usage: str) -> str:
    """The id of the channel ``token`` names, once it is sure the bot can post there."""
    ref = parse_channel(token)
    if ref is None:
        raise UsageError(
            _("'{token}' is not a channel; name one like #call-center.").format(token=token), usage
        )
    if ctx.slack is None:
        if ref.id is None:
            raise UsageError(_("Pick the channel from Slack's list so I get its id."), usage)
        return ref.id
    found = await ctx.slack.channel(ref.id or ref.name or "")
    if found is None:
        label = f"#{ref.name}" if ref.name else token
        raise UsageError(
            _("I cannot see the channel {channel}; is it spelled right?").format(channel=label),
            usage,
        )
    if not found.is_member:
        label = f"#{found.name or ref.name or found.id}"
        raise UsageError(
            _(
                "I am not in {channel}, so I could not post there. "
                "Invite me first (/invite @CallOps in {channel}), then run this again."
            ).format(channel=label),
            usage,
        )
    return found.id
