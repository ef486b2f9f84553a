"""Channels a command will post into later (digests, alerts, call notifications).

Checked when the schedule or route is made, not when the first post fails at 8 a.m.:
the channel must exist and the bot must be in it (callops asks for no chat:write.public).
"""

from __future__ import annotations

from commands.kernel.audiences import for_channel
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError, parse_channel
from commands.kernel.i18n import Audience, _
from storage.offload import off_loop


async def channel_for_posting(ctx: CommandContext, token: str, usage: str) -> str:
    """The id of the channel ``token`` names, once it is sure the bot can post there."""
    ref = parse_channel(token)
    if ref is None:
        raise UsageError(
            _("'{token}' is not a channel; name one like #call-center.").format(token=token), usage
        )
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


async def channel_readers(
    ctx: CommandContext, channel: str | None, language: str | None = None
) -> Audience:
    """Who reads a message posted (or added to) in ``channel``: ``language`` when the post
    has its own, else the channel's own (``settings language vi|en #channel``), else the
    workspace's.  Decided per message, whoever clicked."""
    if not channel:
        return for_channel(ctx.workspace, language)
    own = await off_loop(ctx.storage.channel_languages.get, ctx.team_id, channel)
    return for_channel(ctx.workspace, language, own)
