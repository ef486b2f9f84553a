"""What people see of an approval request: the requester's prompt, the shared card with its
status line, the note in its thread, and the form that asks why a request is denied.

Drawn from the stored approval alone (its kind's ``describe`` says what will happen), so a
card renders the same after a restart or in another process.  The buttons carry only the
approval id, and their actions block carries the hash of the parameters the card showed,
which ``workflow.decide`` checks against the stored ones.  ``propose`` is what a command
hands back for an action: the requester's prompt, or the card with the result when the
policy asks for nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    HeaderBlock,
    InputBlock,
    MarkdownTextObject,
    PlainTextInputElement,
    SectionBlock,
)
from slack_sdk.models.views import View

from commands.approvals import actions
from commands.approvals.actions import execution_env
from commands.approvals.workflow import (
    APPROVE_ACTION,
    CANCEL_ACTION,
    CONFIRM_ACTION,
    DENY_ACTION,
    DENY_CALLBACK,
    REASON_BLOCK,
    RequestRefused,
    decide,
    needs_second_person,
    open_request,
    outcome_unknown,
    run_approved,
)
from commands.kernel.context import CommandContext
from commands.kernel.proposal import Proposal
from commands.kernel.reply import Reply, error
from commands.kernel.text import escape, mention, truncate, when
from storage import ADMINS, Approval, ApprovalState, Mode
from storage.offload import off_loop

BLOCK_PREFIX = "approval:"
"""The actions block of a prompt or card is ``approval:<params hash>``."""


async def propose(ctx: CommandContext, proposal: Proposal) -> Reply:
    """What a command hands back for an action: the requester's prompt, or, when the
    policy asks for nothing, the result of running it now."""
    if ctx.storage is None:
        return error("This action needs the app's database, which is not available here.")
    try:
        approval, mode = await off_loop(
            open_request,
            ctx.storage,
            team_id=ctx.team_id,
            user_id=ctx.user_id,
            role=ctx.role,
            channel_id=ctx.channel_id,
            proposal=proposal,
        )
    except RequestRefused as exc:
        return error(exc.message)
    if mode is Mode.NONE:
        decision = await off_loop(
            decide,
            ctx.storage,
            ctx.team_id,
            approval.id,
            user=ctx.user_id,
            role=ctx.role,
            approve=True,
            params_hash=approval.params_hash,
        )
        if not decision.moved:
            return error(decision.message or "The request could not be run.")
        finished = await run_approved(ctx.storage, ctx.team_id, approval.id, execution_env(ctx))
        reply = card(finished, ctx.tz)
        reply.ephemeral = False
        return reply
    return prompt(approval, ctx.tz, note=proposal.prompt_note)


def _clock(ts: float | None, tz: ZoneInfo) -> str:
    """``14:27`` today, ``Sun 22 Nov 14:27`` another day, in the workspace's zone."""
    return when(ts, tz)


def approvers_text(approval: Approval) -> str:
    if approval.approvers == ADMINS:
        who = "an admin"
    else:
        who = " or ".join(mention(u) for u in approval.approvers)
    if not approval.allow_self_approval:
        who += f" other than {mention(approval.requester)}"
    return who


def _header(approval: Approval) -> list[Block]:
    spec = actions.spec_for(approval.kind)
    return [
        HeaderBlock(text=truncate(spec.title, 150)),
        SectionBlock(
            text=MarkdownTextObject(
                text=truncate(actions.describe(approval.kind, approval.params), 3000)
            )
        ),
    ]


def _hash_block(approval: Approval) -> str:
    return BLOCK_PREFIX + approval.params_hash


def hash_from_block(block_id: str | None) -> str:
    return (block_id or "").removeprefix(BLOCK_PREFIX)


def prompt(approval: Approval, tz: ZoneInfo, *, note: str | None = None) -> Reply:
    """The requester's own, ephemeral confirm: exactly what will happen, two buttons;
    ``note``: escaped mrkdwn said under it (another way to ask)."""
    spec = actions.spec_for(approval.kind)
    second = needs_second_person(approval)
    label = "Ask for approval" if second else spec.confirm_label
    when = (
        f"This needs the approval of {approvers_text(approval)}; the request expires at "
        f"{_clock(approval.expires_at, tz)}."
        if second
        else f"Nothing happens until you press *{escape(label)}* "
        f"(until {_clock(approval.expires_at, tz)})."
    )
    blocks = _header(approval)
    if note:
        when = f"{when}\n{note}"
    blocks.append(ContextBlock(elements=[MarkdownTextObject(text=truncate(when, 3000))]))
    blocks.append(
        ActionsBlock(
            block_id=_hash_block(approval),
            elements=[
                ButtonElement(
                    text=truncate(label, 75),
                    action_id=CONFIRM_ACTION,
                    value=approval.id,
                    style="primary",
                ),
                ButtonElement(text="Cancel", action_id=CANCEL_ACTION, value=approval.id),
            ],
        )
    )
    return Reply(text=f"{spec.title}?", blocks=blocks)


def asked(approval: Approval) -> Reply:
    """The requester's prompt once the card is posted: where, and a way to withdraw."""
    where = f"<#{approval.channel}>" if approval.channel else "the approvals channel"
    return Reply(
        text="Approval requested",
        blocks=[
            SectionBlock(
                text=MarkdownTextObject(
                    text=f":hourglass_flowing_sand: Asked for approval in {where}: "
                    f"*{escape(actions.spec_for(approval.kind).title)}*. The card there shows "
                    "the decision and the result."
                )
            ),
            ActionsBlock(
                block_id=_hash_block(approval),
                elements=[
                    ButtonElement(
                        text="Withdraw request", action_id=CANCEL_ACTION, value=approval.id
                    )
                ],
            ),
        ],
    )


def concluded(approval: Approval, tz: ZoneInfo, *, lead: str | None = None) -> Reply:
    """The requester's prompt once the request is settled: how it ended, and no button
    (a Withdraw left on a decided request would lie).  ``lead``: a line said first."""
    spec = actions.spec_for(approval.kind)
    lines = [lead] if lead else []
    lines.append(f"*{escape(spec.title)}*")
    lines.append(status_line(approval, tz))
    if approval.channel and approval.message_ts and needs_second_person(approval):
        lines.append(f"The card in <#{approval.channel}> has the details.")
    blocks: list[Block] = [
        SectionBlock(text=MarkdownTextObject(text=truncate("\n".join(lines), 3000)))
    ]
    follow_ups = actions.follow_up_buttons(approval)
    if follow_ups:
        blocks.append(ActionsBlock(elements=follow_ups))
    return Reply(text=f"{spec.title}: {state_word(approval)}", blocks=blocks, replace_original=True)


def state_word(approval: Approval) -> str:
    return "unknown" if outcome_unknown(approval) else approval.state.value


def status_line(approval: Approval, tz: ZoneInfo) -> str:
    who = mention(approval.decider)
    verb = "Approved" if needs_second_person(approval) else "Confirmed"
    result = approval.result if isinstance(approval.result, Mapping) else {}
    text = str(result.get("text") or "")
    state = approval.state
    if state is ApprovalState.PENDING:
        return (
            f":hourglass_flowing_sand: Waiting for {approvers_text(approval)} · "
            f"expires at {_clock(approval.expires_at, tz)}"
        )
    if state in (ApprovalState.APPROVED, ApprovalState.EXECUTING):
        return f":gear: {verb} by {who} at {_clock(approval.decided_at, tz)}, running…"
    if state is ApprovalState.DONE:
        return f":white_check_mark: {verb} by {who} at {_clock(approval.decided_at, tz)}. {text}"
    if state is ApprovalState.FAILED and outcome_unknown(approval):
        return (
            f":grey_question: {verb} by {who} at {_clock(approval.decided_at, tz)}, but the "
            f"app stopped while running it. {text}"
        )
    if state is ApprovalState.FAILED:
        return f":x: {verb} by {who} at {_clock(approval.decided_at, tz)}, but it failed. {text}"
    if state is ApprovalState.DENIED:
        reason = f": _{escape(truncate(approval.reason, 500))}_" if approval.reason else ""
        return f":no_entry: Denied by {who} at {_clock(approval.decided_at, tz)}{reason}"
    if state is ApprovalState.EXPIRED:
        return (
            f":hourglass: Expired at {_clock(approval.expires_at, tz)}: nobody decided in "
            "time. Nothing was done."
        )
    return f":heavy_multiplication_x: Cancelled by {who}. Nothing was done."


def card(approval: Approval, tz: ZoneInfo) -> Reply:
    """The shared message of a request: what, who asked, and where it stands; Approve and
    Deny while it waits, no buttons once it is decided."""
    spec = actions.spec_for(approval.kind)
    blocks = _header(approval)
    blocks.append(
        ContextBlock(
            elements=[
                MarkdownTextObject(
                    text=f"Requested by {mention(approval.requester)} at "
                    f"{_clock(approval.created_at, tz)}"
                )
            ]
        )
    )
    blocks.append(
        SectionBlock(text=MarkdownTextObject(text=truncate(status_line(approval, tz), 3000)))
    )
    follow_ups = actions.follow_up_buttons(approval)
    if follow_ups:
        blocks.append(ActionsBlock(elements=follow_ups))
    if approval.state is ApprovalState.PENDING and needs_second_person(approval):
        blocks.append(
            ActionsBlock(
                block_id=_hash_block(approval),
                elements=[
                    ButtonElement(
                        text="Approve",
                        action_id=APPROVE_ACTION,
                        value=approval.id,
                        style="primary",
                    ),
                    ButtonElement(
                        text="Deny", action_id=DENY_ACTION, value=approval.id, style="danger"
                    ),
                ],
            )
        )
    return Reply(text=f"{spec.title}: {state_word(approval)}", blocks=blocks, ephemeral=False)


def outcome_note(approval: Approval) -> str | None:
    """A line for the requester in the card's thread once the request is settled."""
    who = mention(approval.requester)
    title = actions.spec_for(approval.kind).title.lower()
    verb = "approved" if needs_second_person(approval) else "confirmed"
    if outcome_unknown(approval):
        return (
            f"{who} your request ({escape(title)}) was {verb}, but the app stopped while "
            "running it and cannot tell whether it was done: *check before retrying*."
        )
    if approval.state is ApprovalState.DONE:
        return f"{who} your request ({escape(title)}) was approved and done."
    if approval.state is ApprovalState.FAILED:
        return f"{who} your request ({escape(title)}) was approved but failed; see above."
    if approval.state is ApprovalState.DENIED:
        return f"{who} your request ({escape(title)}) was denied by {mention(approval.decider)}."
    if approval.state is ApprovalState.EXPIRED:
        return f"{who} your request ({escape(title)}) expired before anyone decided."
    return None


def deny_modal(approval: Approval, private_metadata: str) -> View:
    """Denying asks why, so the requester learns what to change."""
    spec = actions.spec_for(approval.kind)
    return View(
        type="modal",
        callback_id=DENY_CALLBACK,
        title="Deny request",
        submit="Deny",
        close="Back",
        private_metadata=private_metadata,
        blocks=[
            SectionBlock(
                text=MarkdownTextObject(
                    text=truncate(
                        f"*{escape(spec.title)}*, asked by {mention(approval.requester)}\n"
                        + actions.describe(approval.kind, approval.params),
                        3000,
                    )
                )
            ),
            InputBlock(
                block_id=REASON_BLOCK,
                label="Why not?",
                element=PlainTextInputElement(
                    action_id="value",
                    multiline=True,
                    max_length=500,
                    placeholder="The requester sees this",
                ),
            ),
        ],
    )
