"""Getting an ``Outcome`` in front of the person, whichever surface they used.

A typed command and a click in a message come with a ``response_url`` (Bolt's
``respond``); a click in App Home or a modal's submission does not, so a reply goes
as an ephemeral message in the channel the person was in, or as a DM.  A modal opens
with the trigger id, which Slack honours for 3 seconds only.
"""

from __future__ import annotations

from dataclasses import dataclass

from slack_bolt.async_app import AsyncRespond

from commands.kernel.context import CommandContext, Messenger
from commands.kernel.reply import (
    DeleteOriginal,
    FieldErrors,
    Nothing,
    OpenModal,
    Outcome,
    PublishHome,
    Reply,
    Rerun,
    notice,
)
from commands.reports.wallboard import wallboard


@dataclass(frozen=True)
class Surface:
    """Where the request came from and how it can be answered."""

    messenger: Messenger
    respond: AsyncRespond | None
    """None where Slack gave no ``response_url`` (App Home, modals)."""
    trigger_id: str | None = None
    private_metadata: str | None = None
    """Set on modals this request opens (the channel to answer in once submitted)."""


async def deliver(outcome: Outcome, surface: Surface, ctx: CommandContext) -> None:
    if isinstance(outcome, OpenModal):
        view = outcome.view
        if surface.private_metadata and not view.private_metadata:
            view.private_metadata = surface.private_metadata
        if not await surface.messenger.open_view(surface.trigger_id or "", view):
            text = "Slack did not let me open the form in time; please try again."
            late = notice(text, emoji=":hourglass:")
            late.replace_original = outcome.dismiss_original
            await _reply(late, surface, ctx)
        elif outcome.dismiss_original and surface.respond is not None:
            await surface.respond(delete_original=True)
    elif isinstance(outcome, Reply):
        await _reply(outcome, surface, ctx)
    elif isinstance(outcome, DeleteOriginal):
        if surface.respond is not None:
            await surface.respond(delete_original=True)
    elif isinstance(outcome, PublishHome):
        view = outcome.view or await wallboard(ctx)
        await surface.messenger.publish_home(ctx.user_id, view)
    elif isinstance(outcome, Nothing | FieldErrors | Rerun):
        # Nothing more to say; field errors go back with the acknowledgement, and the
        # dispatcher has already answered a rerun as the command it stands for.
        return


def answerable(respond: AsyncRespond | None) -> AsyncRespond | None:
    """Bolt hands every listener a ``respond``, usable only where Slack gave a URL."""
    return respond if respond is not None and respond.response_url else None


async def _reply(reply: Reply, surface: Surface, ctx: CommandContext) -> None:
    if surface.respond is not None:
        await surface.respond(**reply.payload())
    else:
        await surface.messenger.tell(ctx.user_id, ctx.channel_id, reply)
