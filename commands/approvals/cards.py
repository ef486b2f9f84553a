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
    HeaderBlock,
    InputBlock,
    PlainTextInputElement,
)
from slack_sdk.models.views import View

from commands.approvals import actions
from commands.approvals.workflow import (
    APPROVE_ACTION,
    CANCEL_ACTION,
    CONFIRM_ACTION,
    DENY_ACTION,
    DENY_CALLBACK,
    REASON_BLOCK,
    RESULT_LANGUAGE,
    RequestRefused,
    decide,
    needs_second_person,
    open_request,
    outcome_unknown,
    run_approved,
    state_name,
    title_of,
)
from commands.kernel.actions import Proposal, execution_env
from commands.kernel.context import CommandContext
from commands.kernel.i18n import N_, _, current_language
from commands.kernel.modals import modal
from commands.kernel.reply import Reply, context_line, error, section
from commands.kernel.text import escape, mention, truncate, when
from storage import ADMINS, Approval, ApprovalState, Mode, Storage
from storage.offload import off_loop

BLOCK_PREFIX = "approval:"
"""The actions block of a prompt or card is ``approval:<params hash>``."""


async def open_for(
    ctx: CommandContext, storage: Storage, proposal: Proposal, *, channel_id: str | None
) -> tuple[Approval, Mode]:
    """Record ``proposal`` as asked by the person of ``ctx`` (audited), off the event
    loop; ``RequestRefused`` when the policy does not let them ask."""
    return await off_loop(
        open_request,
        storage,
        team_id=ctx.team_id,
        user_id=ctx.user_id,
        role=ctx.role,
        channel_id=channel_id,
        proposal=proposal,
    )


async def propose(ctx: CommandContext, proposal: Proposal) -> Reply:
    """What a command hands back for an action: the requester's prompt, or, when the
    policy asks for nothing, the result of running it now."""
    try:
        approval, mode = await open_for(ctx, ctx.storage, proposal, channel_id=ctx.channel_id)
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
            return error(decision.message or _("The request could not be run."))
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
        who = _("an admin")
    else:
        people = [mention(u) for u in approval.approvers]
        who = people[0] if people else ""
        for person in people[1:]:
            who = _("{earlier} or {later}").format(earlier=who, later=person)
    if not approval.allow_self_approval:
        who = _("{approvers} other than {requester}").format(
            approvers=who, requester=mention(approval.requester)
        )
    return who


def _header(approval: Approval) -> list[Block]:
    return [
        HeaderBlock(text=truncate(title_of(approval), 150)),
        section(actions.describe(approval.kind, approval.params)),
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
    label = _("Ask for approval") if second else _(spec.confirm_label)
    expires = _clock(approval.expires_at, tz)
    when = (
        _("This needs the approval of {approvers}; the request expires at {time}.").format(
            approvers=approvers_text(approval), time=expires
        )
        if second
        else _("Nothing happens until you press *{label}* (until {time}).").format(
            label=escape(label), time=expires
        )
    )
    blocks = _header(approval)
    if note:
        when = f"{when}\n{note}"
    blocks.append(context_line(truncate(when, 3000)))
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
                ButtonElement(text=_("Cancel"), action_id=CANCEL_ACTION, value=approval.id),
            ],
        )
    )
    return Reply(text=_("{action}?").format(action=title_of(approval)), blocks=blocks)


def asked(approval: Approval) -> Reply:
    """The requester's prompt once the card is posted: where, and a way to withdraw."""
    where = f"<#{approval.channel}>" if approval.channel else _("the approvals channel")
    said = _(
        "Asked for approval in {where}: *{action}*. The card there shows the decision and "
        "the result."
    ).format(where=where, action=escape(title_of(approval)))
    return Reply(
        text=_("Approval requested"),
        blocks=[
            section(f":hourglass_flowing_sand: {said}"),
            ActionsBlock(
                block_id=_hash_block(approval),
                elements=[
                    ButtonElement(
                        text=_("Withdraw request"), action_id=CANCEL_ACTION, value=approval.id
                    )
                ],
            ),
        ],
    )


def concluded(approval: Approval, tz: ZoneInfo, *, lead: str | None = None) -> Reply:
    """The requester's prompt once the request is settled: how it ended, and no button
    (a Withdraw left on a decided request would lie).  ``lead``: a line said first."""
    title = title_of(approval)
    lines = [lead] if lead else []
    lines.append(f"*{escape(title)}*")
    lines.append(status_line(approval, tz))
    if approval.channel and approval.message_ts and needs_second_person(approval):
        lines.append(
            _("The card in {channel} has the details.").format(channel=f"<#{approval.channel}>")
        )
    blocks: list[Block] = [section("\n".join(lines))]
    follow_ups = actions.follow_up_buttons(approval)
    if follow_ups:
        blocks.append(ActionsBlock(elements=follow_ups))
    return Reply(
        text=_("{action}: {state}").format(action=title, state=state_word(approval)),
        blocks=blocks,
        replace_original=True,
    )


def state_word(approval: Approval) -> str:
    return state_name("unknown" if outcome_unknown(approval) else approval.state)


_RUNNING = (
    ":gear:",
    N_("Approved by {who} at {time}, running…"),
    N_("Confirmed by {who} at {time}, running…"),
)
_DECIDED: dict[str, tuple[str, str, str]] = {
    ApprovalState.APPROVED: _RUNNING,
    ApprovalState.EXECUTING: _RUNNING,
    ApprovalState.DONE: (
        ":white_check_mark:",
        N_("Approved by {who} at {time}. {result}"),
        N_("Confirmed by {who} at {time}. {result}"),
    ),
    "unknown": (
        ":grey_question:",
        N_("Approved by {who} at {time}, but the app stopped while running it. {result}"),
        N_("Confirmed by {who} at {time}, but the app stopped while running it. {result}"),
    ),
    ApprovalState.FAILED: (
        ":x:",
        N_("Approved by {who} at {time}, but it failed. {result}"),
        N_("Confirmed by {who} at {time}, but it failed. {result}"),
    ),
}
"""How a decided request stands: its emoji, said of an approver's decision and of the
requester's own confirm (no second person needed)."""


def status_line(approval: Approval, tz: ZoneInfo) -> str:
    who = mention(approval.decider)
    approved = needs_second_person(approval)
    result = approval.result if isinstance(approval.result, Mapping) else {}
    text = str(result.get("text") or "")
    written_in = result.get(RESULT_LANGUAGE)
    if isinstance(written_in, str) and written_in != current_language():
        # The result was written for the card's readers; this reader reads another
        # language, and the card (linked on private surfaces) has it in full.
        text = ""
    state = approval.state
    decided = _clock(approval.decided_at, tz)
    if state is ApprovalState.PENDING:
        said = _("Waiting for {approvers} · expires at {time}").format(
            approvers=approvers_text(approval), time=_clock(approval.expires_at, tz)
        )
        return f":hourglass_flowing_sand: {said}"
    failed_unknown = state is ApprovalState.FAILED and outcome_unknown(approval)
    settled = _DECIDED.get("unknown" if failed_unknown else state)
    if settled is not None:
        emoji, by_approver, by_requester = settled
        said = _(by_approver if approved else by_requester)
        return f"{emoji} {said.format(who=who, time=decided, result=text)}"
    if state is ApprovalState.DENIED and approval.reason:
        said = _("Denied by {who} at {time}: _{reason}_").format(
            who=who, time=decided, reason=escape(truncate(approval.reason, 500))
        )
        return f":no_entry: {said}"
    if state is ApprovalState.DENIED:
        said = _("Denied by {who} at {time}").format(who=who, time=decided)
        return f":no_entry: {said}"
    if state is ApprovalState.EXPIRED:
        said = _("Expired at {time}: nobody decided in time. Nothing was done.").format(
            time=_clock(approval.expires_at, tz)
        )
        return f":hourglass: {said}"
    said = _("Cancelled by {who}. Nothing was done.").format(who=who)
    return f":heavy_multiplication_x: {said}"


def card(approval: Approval, tz: ZoneInfo) -> Reply:
    """The shared message of a request: what, who asked, and where it stands; Approve and
    Deny while it waits, no buttons once it is decided."""
    blocks = _header(approval)
    blocks.append(
        context_line(
            _("Requested by {who} at {time}").format(
                who=mention(approval.requester), time=_clock(approval.created_at, tz)
            )
        )
    )
    blocks.append(section(status_line(approval, tz)))
    follow_ups = actions.follow_up_buttons(approval)
    if follow_ups:
        blocks.append(ActionsBlock(elements=follow_ups))
    if approval.state is ApprovalState.PENDING and needs_second_person(approval):
        blocks.append(
            ActionsBlock(
                block_id=_hash_block(approval),
                elements=[
                    ButtonElement(
                        text=_("Approve"),
                        action_id=APPROVE_ACTION,
                        value=approval.id,
                        style="primary",
                    ),
                    ButtonElement(
                        text=_("Deny"), action_id=DENY_ACTION, value=approval.id, style="danger"
                    ),
                ],
            )
        )
    summary = _("{action}: {state}").format(action=title_of(approval), state=state_word(approval))
    return Reply(text=summary, blocks=blocks, ephemeral=False)


def outcome_note(approval: Approval) -> str | None:
    """A line for the requester in the card's thread once the request is settled."""
    who = mention(approval.requester)
    title = escape(lower_first(title_of(approval)))
    if outcome_unknown(approval):
        if needs_second_person(approval):
            said = _(
                "{who} your request ({action}) was approved, but the app stopped while "
                "running it and cannot tell whether it was done: *check before retrying*."
            )
        else:
            said = _(
                "{who} your request ({action}) was confirmed, but the app stopped while "
                "running it and cannot tell whether it was done: *check before retrying*."
            )
        return said.format(who=who, action=title)
    if approval.state is ApprovalState.DONE:
        return _("{who} your request ({action}) was approved and done.").format(
            who=who, action=title
        )
    if approval.state is ApprovalState.FAILED:
        return _("{who} your request ({action}) was approved but failed; see above.").format(
            who=who, action=title
        )
    if approval.state is ApprovalState.DENIED:
        return _("{who} your request ({action}) was denied by {decider}.").format(
            who=who, action=title, decider=mention(approval.decider)
        )
    if approval.state is ApprovalState.EXPIRED:
        return _("{who} your request ({action}) expired before anyone decided.").format(
            who=who, action=title
        )
    return None


def deny_modal(approval: Approval, private_metadata: str) -> View:
    """Denying asks why, so the requester learns what to change."""
    asked_by = _("*{action}*, asked by {requester}").format(
        action=escape(title_of(approval)), requester=mention(approval.requester)
    )
    return modal(
        DENY_CALLBACK,
        _("Deny request"),
        [
            section(asked_by + "\n" + actions.describe(approval.kind, approval.params)),
            InputBlock(
                block_id=REASON_BLOCK,
                label=_("Why not?"),
                element=PlainTextInputElement(
                    action_id="value",
                    multiline=True,
                    max_length=500,
                    placeholder=_("The requester sees this"),
                ),
            ),
        ],
        submit=_("Deny"),
        close=_("Back"),
        meta=private_metadata,
    )


def lower_first(title: str) -> str:
    """An action's name inside a sentence: its first letter lower case, the rest as it
    is written ("Tải lên KH tiềm năng" -> "tải lên KH tiềm năng", never "kh")."""
    return title[:1].lower() + title[1:]
