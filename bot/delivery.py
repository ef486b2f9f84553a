"""Getting an ``Outcome`` in front of the person, whichever surface they used, and the
messages it names besides (``Post``, ``Also``) into Slack through the messenger.

A typed command and a click in a message come with a ``response_url`` (Bolt's
``respond``); a click in App Home or a modal's submission does not, so a reply goes
as an ephemeral message in the channel the person was in, or as a DM.  A modal opens
with the trigger id, which Slack honours for 3 seconds only; a modal whose content is
slow opens with a placeholder that is then replaced.  A workflow step is answered with
Bolt's ``complete``/``fail``, which use the run's own token.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from slack_bolt.async_app import AsyncRespond
from slack_sdk.errors import SlackApiError

from commands.kernel.context import CommandContext, Messenger
from commands.kernel.i18n import _
from commands.kernel.reply import (
    Also,
    DeleteOriginal,
    FieldErrors,
    Nothing,
    OpenModal,
    Outcome,
    Post,
    PublishHome,
    Reply,
    Rerun,
    StepCompleted,
    StepFailed,
    StepPending,
    UpdateModal,
    notice,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StepAnswer:
    """Bolt's ``complete`` and ``fail`` of the step run being answered."""

    complete: Callable[[dict[str, Any]], Awaitable[Any]]
    fail: Callable[[str], Awaitable[Any]]


@dataclass(frozen=True)
class Surface:
    """Where the request came from and how it can be answered."""

    messenger: Messenger
    respond: AsyncRespond | None
    """None where Slack gave no ``response_url`` (App Home, modals)."""
    trigger_id: str | None = None
    private_metadata: str | None = None
    """Set on modals this request opens (the channel to answer in once submitted)."""
    view_id: str | None = None
    """The modal the person acted in (an ``UpdateModal`` replaces it)."""
    step: StepAnswer | None = None
    """Set when the request is a workflow step's run."""


async def deliver(outcome: Outcome, surface: Surface, ctx: CommandContext) -> None:
    if isinstance(outcome, OpenModal):
        await _open(outcome, surface, ctx)
    elif isinstance(outcome, UpdateModal):
        if not surface.view_id or not await surface.messenger.update_view(
            surface.view_id, outcome.view
        ):
            await _reply(notice(_("That form is closed; please start again.")), surface, ctx)
    elif isinstance(outcome, Reply):
        await _reply(outcome, surface, ctx)
    elif isinstance(outcome, DeleteOriginal):
        if surface.respond is not None:
            await surface.respond(delete_original=True)
    elif isinstance(outcome, PublishHome):
        # The dispatcher has the family render the tab (``dispatch.home_filled``).
        if outcome.view is None:
            log.error("an App Home outcome reached delivery without its view")
            return
        await surface.messenger.publish_home(ctx.user_id, outcome.view)
    elif isinstance(outcome, Post):
        posted = await surface.messenger.post(
            outcome.channel, outcome.reply, thread_ts=outcome.thread_ts
        )
        if posted is None and outcome.otherwise is not None:
            await _reply(outcome.otherwise, surface, ctx)
    elif isinstance(outcome, Also):
        tell = outcome.tell
        await surface.messenger.tell(tell.user, tell.channel, tell.reply)
        await deliver(outcome.answer, surface, ctx)
    elif isinstance(outcome, StepCompleted | StepFailed):
        await _answer_step(outcome, surface)
    elif isinstance(outcome, Nothing | FieldErrors | Rerun | StepPending):
        # Nothing more to say; field errors go back with the acknowledgement, the
        # dispatcher has already answered a rerun as the command it stands for, and a
        # step waiting on an approval is answered when the request is settled.
        return


def answerable(respond: AsyncRespond | None) -> AsyncRespond | None:
    """Bolt hands every listener a ``respond``, usable only where Slack gave a URL."""
    return respond if respond is not None and respond.response_url else None


async def _open(outcome: OpenModal, surface: Surface, ctx: CommandContext) -> None:
    view = outcome.view
    if surface.private_metadata and not view.private_metadata:
        view.private_metadata = surface.private_metadata
    view_id = await surface.messenger.open_view(surface.trigger_id or "", view)
    if view_id is None:
        text = _("Slack did not let me open the form in time; please try again.")
        late = notice(text, emoji=":hourglass:")
        late.replace_original = outcome.dismiss_original
        await _reply(late, surface, ctx)
        return
    if outcome.dismiss_original and surface.respond is not None:
        # The picker that led here gives way to the form.
        await surface.respond(delete_original=True)
    if outcome.fill is None:
        return
    filled = await outcome.fill()
    if surface.private_metadata and not filled.private_metadata:
        filled.private_metadata = surface.private_metadata
    await surface.messenger.update_view(view_id, filled)


async def _answer_step(outcome: StepCompleted | StepFailed, surface: Surface) -> None:
    if surface.step is None:
        log.error("a step outcome reached a surface that is no step run")
        return
    try:
        if isinstance(outcome, StepCompleted):
            await surface.step.complete(outcome.outputs)
        else:
            await surface.step.fail(outcome.error)
    except SlackApiError as exc:
        # The run was completed already, timed out, or the outputs did not fit the
        # manifest: nothing to retry, and nobody else to tell.
        log.warning("Slack refused the step's answer: %s", exc.response.get("error"))


async def _reply(reply: Reply, surface: Surface, ctx: CommandContext) -> None:
    if surface.respond is not None:
        await surface.respond(**reply.payload())
    else:
        await surface.messenger.tell(ctx.user_id, ctx.channel_id, reply)
