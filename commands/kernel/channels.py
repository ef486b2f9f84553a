"""Channels a command will post into later (digests, alerts, call notifications).

Checked when the schedule or route is made, not when the first post fails at 8 a.m.:
the channel must exist and the bot must be in it (callops asks for no chat:write.public).
"""

from __future__ import annotations

from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError, parse_channel


async def channel_for_posting(ctx: CommandContext, token: str, usage: str) -> str:
    """The id of the channel ``token`` names, once it is sure the bot can post there."""
    ref = parse_channel(token)
    if ref is None:
        raise UsageError(f"'{token}' is not a channel; name one like #call-center.", usage)
    if ctx.slack is None:
        if ref.id is None:
            raise UsageError("Pick the channel from Slack's list so I get its id.", usage)
        return ref.id
    found = await ctx.slack.channel(ref.id or ref.name or "")
    if found is None:
        label = f"#{ref.name}" if ref.name else token
        raise UsageError(f"I cannot see the channel {label}; is it spelled right?", usage)
    if not found.is_member:
        label = f"#{found.name or ref.name or found.id}"
        raise UsageError(
            f"I am not in {label}, so I could not post there. "
            f"Invite me first (/invite @CallOps in {label}), then run this again.",
            usage,
        )
    return found.id
