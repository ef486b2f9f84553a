"""Putting approvals in front of people: the card, its updates, the requester's notes.

``workflow`` decides and runs; this module shows the result through the context's
``Messenger``: the approval card in the approvals channel (or the requesting channel),
the card of a confirmed action in the channel it was asked in, the note to the
requester in the card's thread, the emergency brake's announcement.  Every update
re-renders the card from the stored approval, so whichever process or click updates it
last shows the truth.
"""

from __future__ import annotations

import logging
from dataclasses import KW_ONLY, dataclass

from commands.approvals import actions
from commands.approvals.cards import asked, card, concluded, outcome_note
from commands.approvals.workflow import (
    cancel,
    decide,
    expire_due,
    late_message,
    needs_second_person,
    not_run,
    run_approved,
    step_outcome,
)
from commands.kernel.actions import ExecutionEnv, execution_env
from commands.kernel.audiences import for_person
from commands.kernel.channels import channel_readers
from commands.kernel.context import CommandContext, Messenger, StepExecution
from commands.kernel.i18n import Audience, _, use_audience
from commands.kernel.reply import SECTION_TEXT_LIMIT, Reply, StepCompleted, notice, section
from commands.kernel.text import mention, truncate
from storage import Approval, ApprovalState, Person, Storage, Workspace
from storage.errors import ApprovalStateError
from storage.offload import off_loop

log = logging.getLogger(__name__)

PROMPT_URL_LIFETIME = 30 * 60 - 15
"""Slack honours a ``response_url`` for 30 minutes (5 uses); the requester's prompt is
rewritten through it only while it is younger than this, with seconds to spare.  A prompt
older than that (a request decided late under a long expiry) keeps its Withdraw button
until it is clicked, when it is replaced by how the request ended."""


@dataclass(frozen=True)
class Progress:
    """What the requester is told after confirming, and the card, if one was posted."""

    reply: Reply
    _: KW_ONLY
    card_posted: bool
    late: bool = False
    """The click changed nothing (someone was first, it expired...): say so in a new
    message instead of rewriting the requester's prompt."""


def registered(approval: Approval) -> bool:
    """Approvals of kinds this flow renders (another family may keep its own)."""
    try:
        actions.spec_for(approval.kind)
    except LookupError:
        return False
    return True


class ApprovalFlow:
    """The Slack side of one team's approvals, for one request or one sweep."""

    def __init__(self, ctx: CommandContext) -> None:
        self.ctx = ctx
        self.storage: Storage = ctx.storage
        self.slack: Messenger = ctx.messenger

    def env(self) -> ExecutionEnv | None:
        return execution_env(self.ctx)

    def approvals_channel(self, approval: Approval) -> list[str]:
        """Where an approval card goes: the workspace's approvals channel, else (or if the
        bot cannot post there) the channel the request was made in."""
        workspace = self.storage.workspaces.get(approval.team_id)
        wanted = [workspace.approvals_channel if workspace else None, approval.channel]
        return [c for i, c in enumerate(wanted) if c and c not in wanted[:i]]

    async def post_card(self, approval: Approval, channels: list[str]) -> Approval | None:
        """Post the card once per approval (a marker in the database makes a second
        click, here or in another process, post nothing); returns the approval with its
        message attached, or None when no card was posted."""
        marker = f"approval-card:{approval.id}"
        if not await off_loop(self.storage.dedup.mark_event, approval.team_id, marker):
            return None
        for channel in channels:
            with use_audience(await self.readers_in(channel)):
                reply = card(approval, self.ctx.tz)
            posted = await self.slack.post(channel, reply)
            if posted is None:
                continue
            attached = await off_loop(
                self.storage.approvals.attach_message,
                approval.team_id,
                approval.id,
                posted.channel,
                posted.ts,
            )
            if attached.state is not approval.state:
                # Decided, cancelled or expired while the card was on its way: show that.
                await self.update_card(attached)
            return attached
        return None

    async def update_card(self, approval: Approval) -> None:
        if not approval.channel or not approval.message_ts or not registered(approval):
            return
        with use_audience(await self.readers_in(approval.channel)):
            reply = card(approval, self.ctx.tz)
        await self.slack.update(approval.channel, approval.message_ts, reply)

    async def settled(self, approval: Approval) -> None:
        """Once a card's request is settled: rewrite the requester's prompt (it loses its
        Withdraw button), tell them in the thread (approval cards only), post the
        announcement an action asked for, and answer the workflow step that waits on it,
        if one does."""
        await self.conclude_prompt(approval)
        await self._tell_people(approval)
        await self.answer_step(approval)

    async def answer_step(self, approval: Approval) -> bool:
        """Complete (or fail) the workflow step waiting on ``approval``, once across
        clicks, sweeps and processes; False when no step waits on it (any more)."""
        if not approval.state.is_final:
            return False
        link = await off_loop(self.storage.step_runs.settle, approval.team_id, approval.id)
        if link is None or link.token is None:
            return False
        outcome = step_outcome(approval, link.outputs)
        execution = StepExecution(link.function_execution_id, link.token)
        if isinstance(outcome, StepCompleted):
            sent = await self.slack.complete_step(execution, outcome.outputs, error=None)
        else:
            sent = await self.slack.complete_step(execution, None, error=outcome.error)
        if not sent:
            log.warning("approval %s: Slack did not take the step's answer", approval.id)
        return True

    async def _tell_people(self, approval: Approval) -> None:
        if approval.channel and approval.message_ts and needs_second_person(approval):
            with use_audience(await self.readers_in(approval.channel)):
                note = outcome_note(approval)
            if note:
                await self.slack.post(
                    approval.channel, plain_message(note), thread_ts=approval.message_ts
                )
        result = approval.result if isinstance(approval.result, dict) else {}
        announce = result.get("announce")
        if isinstance(announce, str) and announce:
            with use_audience(await self.readers_in(approval.channel)):
                pulled = _("Pulled by {who}.").format(who=mention(approval.decider))
            text = f"{announce}\n{pulled}"
            for channel in await off_loop(self.approvals_channel, approval):
                if await self.slack.post(channel, plain_message(text)):
                    break

    async def conclude_prompt(self, approval: Approval) -> None:
        """Rewrite the requester's "Asked for approval" prompt with how the request ended,
        once, through the address its click gave (when that is still young enough: a
        prompt past it is corrected when its Withdraw is clicked)."""
        url = await off_loop(
            self.storage.approval_secrets.take_prompt,
            approval.team_id,
            approval.id,
            max_age=PROMPT_URL_LIFETIME,
        )
        if url and registered(approval):
            with use_audience(await self.reader(approval.requester)):
                rewritten = concluded(approval, self.ctx.tz)
            await self.slack.rewrite(url, rewritten)

    async def readers_in(self, channel: str | None) -> Audience:
        """Who reads the card in ``channel``: the channel's own language, else the
        workspace's; the card and all that is later added to it keep it."""
        return await channel_readers(self.ctx, channel)

    async def reader(self, user_id: str | None) -> Audience:
        """Whoever ``user_id`` is, as they read their own messages: the prompt a request
        began with stays in the requester's language when someone else's click ends it."""
        if not user_id:
            return self.ctx.channel_audience
        if user_id == self.ctx.user_id:
            return self.ctx.audience
        team_id = self.ctx.team_id

        def look_up() -> tuple[Person | None, Workspace | None]:
            return self.storage.people.get(team_id, user_id), self.storage.workspaces.get(team_id)

        person, workspace = await off_loop(look_up)
        return for_person(person, workspace)

    # -- moving a request on -----------------------------------------------------------

    async def run(self, approval: Approval) -> Approval | None:
        """Execute an approved request unless another click or process already does;
        then update its card.  Returns the finished approval, or None when another
        caller owns the execution."""
        try:
            if self.ctx.app.stopping():
                # Stopping (SIGTERM): an action started now might be cut off before its
                # outcome is known; said plainly instead, and nothing is sent.
                finished = await not_run(self.storage, approval.team_id, approval.id)
            else:
                # What the run writes (its result line, an announcement) belongs to the
                # card: it is written in the card's language, whoever clicked.
                with use_audience(await self.readers_in(approval.channel)):
                    finished = await run_approved(
                        self.storage, approval.team_id, approval.id, self.env()
                    )
        except ApprovalStateError as exc:
            log.info("approval %s: %s", approval.id, exc)
            return None
        await self.update_card(finished)
        await self.settled(finished)
        return finished

    async def confirmed(self, approval: Approval, *, params_hash: str) -> Progress:
        """The requester confirmed (prompt button or form): post the approval card, or
        (confirm only) decide, show the card in the requesting channel and run it."""
        ctx = self.ctx
        if needs_second_person(approval):
            if approval.state is ApprovalState.PENDING and self.storage.clock() >= (
                approval.expires_at
            ):
                await self.sweep()
                approval = await off_loop(
                    self.storage.approvals.require, approval.team_id, approval.id
                )
            if approval.state is not ApprovalState.PENDING:
                return Progress(notice(late_message(approval)), card_posted=False, late=True)
            posted = await self.post_card(
                approval, await off_loop(self.approvals_channel, approval)
            )
            if posted is not None:
                return Progress(asked(posted), card_posted=True)
            current = await off_loop(self.storage.approvals.require, approval.team_id, approval.id)
            if current.message_ts:
                return Progress(asked(current), card_posted=True, late=True)
            # No card could be posted, and a request nobody can see must not linger.
            await off_loop(
                cancel, self.storage, approval.team_id, approval.id, user=ctx.user_id, role=ctx.role
            )
            return Progress(
                notice(
                    _(
                        "I could not post the approval card, so nothing was asked: invite me "
                        "to the approvals channel (or this one), then run the command again."
                    ),
                    emoji=":warning:",
                ),
                card_posted=False,
            )
        decision = await off_loop(
            decide,
            self.storage,
            approval.team_id,
            approval.id,
            user=ctx.user_id,
            role=ctx.role,
            approve=True,
            params_hash=params_hash,
        )
        if not decision.moved:
            message = notice(decision.message or _("Nothing was done."), emoji=":warning:")
            return Progress(message, card_posted=False, late=True)
        shown = decision.approval
        if shown.channel:
            shown = await self.post_card(shown, [shown.channel]) or shown
        finished = await self.run(shown)
        if finished is None:
            current = await off_loop(self.storage.approvals.require, approval.team_id, approval.id)
            return Progress(
                notice(late_message(current)), card_posted=bool(current.message_ts), late=True
            )
        reply = card(finished, ctx.tz)
        reply.ephemeral = True
        return Progress(reply, card_posted=bool(finished.message_ts))

    async def sweep(self) -> list[Approval]:
        """Expire this team's overdue requests and say so on their cards."""
        expired = await off_loop(expire_due, self.storage, self.ctx.team_id)
        for approval in expired:
            if registered(approval):
                await self.update_card(approval)
                await self.settled(approval)
        return expired


def plain_message(text: str) -> Reply:
    """A one-section message of already-escaped mrkdwn (thread notes, announcements)."""
    body = truncate(text, SECTION_TEXT_LIMIT)
    return Reply(text=body, blocks=[section(body)], ephemeral=False)
