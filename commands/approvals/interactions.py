"""The approval buttons and forms: the requester's Confirm / Cancel, the card's Approve /
Deny (with a reason, asked in a modal), and every form that ends in a request.

Each handler moves the stored approval with one compare-and-set: whichever click,
process or restart comes second is told who was first, and the action runs once.  A
click on a card that is overdue expires it there and then.
"""

from __future__ import annotations

import json
from typing import Annotated

from pydantic import StringConstraints

from commands.approvals.cards import concluded, deny_modal, hash_from_block, open_for
from commands.approvals.flow import ApprovalFlow
from commands.approvals.workflow import (
    REASON_BLOCK,
    Decision,
    RequestRefused,
    cancel,
    decide,
    late_message,
    needs_second_person,
)
from commands.kernel.context import CommandContext
from commands.kernel.forms import Form
from commands.kernel.i18n import _
from commands.kernel.interactions import Click, OnSubmit, Submission
from commands.kernel.reply import (
    DeleteOriginal,
    Nothing,
    OpenModal,
    Outcome,
    Reply,
    error,
    notice,
    section,
)
from commands.kernel.text import mention, truncate
from commands.kernel.values import Metadata, Token, read_metadata, token
from storage import ApprovalState, Role
from storage import Outcome as AuditOutcome
from storage.offload import off_loop
from storage.policy import may_decide


def _replacing(reply: Reply) -> Reply:
    """Rewrite the requester's own (ephemeral) prompt in place."""
    reply.replace_original = True
    reply.ephemeral = True
    return reply


def _flow(ctx: CommandContext) -> ApprovalFlow:
    return ApprovalFlow(ctx)


def request_id(click: Click) -> str:
    """The request a Confirm, Withdraw, Approve or Deny button stands for."""
    return token(click.value, what="an approval button's request")


async def confirm(ctx: CommandContext, click: Click) -> Outcome:
    flow = _flow(ctx)
    approval = await off_loop(flow.storage.approvals.get, ctx.team_id, request_id(click))
    if approval is None:
        return _replacing(notice(_("This request no longer exists.")))
    if ctx.user_id != approval.requester:
        return notice(
            _("Only {who} can confirm their request.").format(who=mention(approval.requester))
        )
    if needs_second_person(approval) and click.response_url:
        # Kept before the card goes out, so whoever settles the request, however soon,
        # can take the Withdraw button off this prompt.
        await off_loop(
            flow.storage.approval_secrets.remember_prompt,
            ctx.team_id,
            approval.id,
            click.response_url,
        )
    progress = await flow.confirmed(approval, params_hash=hash_from_block(click.block_id))
    if progress.late:
        return progress.reply
    if progress.card_posted and not needs_second_person(approval):
        return DeleteOriginal()
    if progress.card_posted:
        current = await off_loop(flow.storage.approvals.require, ctx.team_id, approval.id)
        if current.state.is_final:
            # Decided while the card was being posted: say how it ended, not "asked"
            # (this answer rewrites the prompt, so its kept address is not needed).
            await off_loop(flow.storage.approval_secrets.forget, ctx.team_id, approval.id)
            return _replacing(concluded(current, ctx.tz))
    return _replacing(progress.reply)


async def withdraw(ctx: CommandContext, click: Click) -> Outcome:
    flow = _flow(ctx)
    try:
        decision = await off_loop(
            cancel, flow.storage, ctx.team_id, request_id(click), user=ctx.user_id, role=ctx.role
        )
    except LookupError:
        return _replacing(notice(_("This request no longer exists.")))
    if not decision.moved:
        if decision.approval.state is ApprovalState.PENDING:
            return notice(decision.message or _("Nothing changed."))
        # The request was settled meanwhile: the prompt is replaced by how it ended, so
        # no stale Withdraw stays behind.
        said = _("Nothing to withdraw: {reason}").format(reason=decision.message or "")
        lead = f":information_source: {said}".rstrip()
        return concluded(decision.approval, ctx.tz, lead=lead)
    await flow.update_card(decision.approval)
    await off_loop(flow.storage.approval_secrets.forget, ctx.team_id, request_id(click))
    await flow.settled(decision.approval)
    return _replacing(notice(_("Cancelled. Nothing was done."), emoji=":heavy_multiplication_x:"))


async def _unmoved(flow: ApprovalFlow, decision: Decision) -> str:
    """An approval or a denial that changed nothing: the card catches up with a request
    that has ended (settled meanwhile, or found expired by this very decision), and the
    words that say why."""
    if decision.approval.state.is_final:
        await flow.update_card(decision.approval)
    if decision.expired_now:
        await flow.settled(decision.approval)
    return decision.message or _("Nothing changed.")


async def approve(ctx: CommandContext, click: Click) -> Outcome:
    flow = _flow(ctx)
    try:
        decision = await off_loop(
            decide,
            flow.storage,
            ctx.team_id,
            request_id(click),
            user=ctx.user_id,
            role=ctx.role,
            approve=True,
            params_hash=hash_from_block(click.block_id),
        )
    except LookupError:
        return notice(_("This request no longer exists."))
    if not decision.moved:
        return notice(await _unmoved(flow, decision), emoji=":no_entry_sign:")
    await flow.update_card(decision.approval)
    await flow.run(decision.approval)
    return Nothing()


async def deny(ctx: CommandContext, click: Click) -> Outcome:
    """Deny asks for a reason first (a modal); the decision is taken when it is sent."""
    flow = _flow(ctx)
    approval = await off_loop(flow.storage.approvals.get, ctx.team_id, request_id(click))
    if approval is None:
        return notice(_("This request no longer exists."))
    if approval.state is ApprovalState.PENDING and flow.storage.clock() >= approval.expires_at:
        await flow.sweep()
        approval = await off_loop(flow.storage.approvals.require, ctx.team_id, approval.id)
    if approval.state is not ApprovalState.PENDING:
        await flow.update_card(approval)
        return notice(late_message(approval))
    if ctx.user_id == approval.requester and not approval.allow_self_approval:
        refusal: str | None = _("You asked for this: withdraw it from your own message instead.")
    else:
        refusal = may_decide(
            approval.approvers,
            ctx.user_id,
            ctx.role,
            approval.requester,
            allow_self_approval=approval.allow_self_approval,
        )
    if refusal:
        await ctx.audit(
            approval.kind,
            approval.params,
            outcome=AuditOutcome.REFUSED,
            detail=f"{approval.id}: deny: {refusal}",
        )
        shown = _(refusal)
        return notice(shown[:1].upper() + shown[1:], emoji=":no_entry_sign:")
    private = json.dumps(
        {"id": approval.id, "hash": hash_from_block(click.block_id), "channel": ctx.channel_id}
    )
    return OpenModal(deny_modal(approval, private))


class DenyMeta(Metadata):
    """What the Deny form keeps in its metadata: the request, and the version of it the
    approver saw (``hash_from_block``)."""

    id: Token
    hash: Annotated[str, StringConstraints(max_length=200)] = ""


async def deny_reason(ctx: CommandContext, submission: Submission) -> dict[str, str] | None:
    if not str(submission.values.get(REASON_BLOCK) or "").strip():
        return {REASON_BLOCK: _("Say why, for the requester.")}
    return None


async def deny_submitted(ctx: CommandContext, submission: Submission) -> Outcome:
    flow = _flow(ctx)
    form = read_metadata(DenyMeta, submission.metadata)
    try:
        decision = await off_loop(
            decide,
            flow.storage,
            ctx.team_id,
            form.id,
            user=ctx.user_id,
            role=ctx.role,
            approve=False,
            params_hash=form.hash,
            reason=str(submission.values.get(REASON_BLOCK) or "").strip(),
        )
    except LookupError:
        return error(_("This request is gone."))
    if not decision.moved:
        return notice(truncate(await _unmoved(flow, decision), 300), emoji=":warning:")
    await flow.update_card(decision.approval)
    await flow.settled(decision.approval)
    return Nothing()


def form_route(form: Form) -> OnSubmit:
    """The submission route of a form that ends in a request, for the family that owns
    it (``Family.forms``): its checks first, then the request, confirmed."""

    async def validate(ctx: CommandContext, submission: Submission) -> dict[str, str] | None:
        problems = form.check(submission.values, submission.metadata)
        if not problems and form.verify is not None:
            problems = await form.verify(ctx, submission.values, submission.metadata)
        return problems or None

    async def submitted(ctx: CommandContext, submission: Submission) -> Outcome:
        """Submitting a form that ends in an action is the requester's confirm."""
        outcome = await form.build(ctx, submission.values, submission.metadata)
        if isinstance(outcome, Reply):
            return outcome
        flow = _flow(ctx)
        try:
            approval, _mode = await open_for(ctx, flow.storage, outcome, channel_id=ctx.channel_id)
        except RequestRefused as exc:
            return error(exc.message)
        progress = await flow.confirmed(approval, params_hash=approval.params_hash)
        if needs_second_person(approval) or not progress.card_posted:
            reply = progress.reply
            if outcome.prompt_note and isinstance(reply, Reply):
                # What the form's build had to say besides (a warning), under the prompt.
                reply.blocks.insert(1, section(outcome.prompt_note))
            return reply
        return Nothing()

    return OnSubmit(form.callback_id, submitted, role=Role(form.role), validate=validate)
