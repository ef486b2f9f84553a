"""Asking, deciding and running: the approval flow every action goes through.

Every action request becomes an approval record (``storage.approvals``), also when the
policy asks only for the requester's confirm: the record's compare-and-set transitions
are what make a double click, two approvers at once, or a click after a restart act
once.  Buttons carry only the approval id; the card's actions block carries the hash of
the parameters it showed, which ``decide`` checks against the stored ones.

    request -> prompt (requester: Confirm / Ask for approval, Cancel)
      confirm-only: Confirm = decide -> run
      approval:     Ask     = card in the approvals channel -> Approve / Deny (reason)
    run = claim_for_execution (once) -> executor (re-checks, one service call) -> finish
    -> the card says who decided and what happened -> audit

This module knows nothing of Slack's transport: it returns replies and views, and
``bot/`` posts and updates them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import secrets
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
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

from callcenter import errors
from commands.approvals import actions
from commands.approvals.actions import ActionRefused, ActionResult, ExecutionEnv
from commands.kernel.context import CommandContext
from commands.kernel.proposal import Proposal
from commands.kernel.reply import Reply, error
from commands.kernel.text import escape, truncate
from storage import ADMINS, ActionKind, Approval, ApprovalState, Mode, Outcome, Role, Storage
from storage.approvals import EXECUTION_LEASE
from storage.errors import (
    ApprovalError,
    ApprovalExpiredError,
    ApprovalForbiddenError,
    ApprovalParamsMismatchError,
    ApprovalStateError,
    NotFoundError,
)

log = logging.getLogger(__name__)

CONFIRM_ACTION = "approval_confirm"
CANCEL_ACTION = "approval_cancel"
APPROVE_ACTION = "approval_approve"
DENY_ACTION = "approval_deny"
DENY_CALLBACK = "approval_deny_reason"
REASON_BLOCK = "reason"
BLOCK_PREFIX = "approval:"
"""The actions block of a prompt or card is ``approval:<params hash>``."""

_USER_ID = re.compile(r"^[UW][A-Z0-9]{2,}$")


class RequestRefused(Exception):
    """The requester may not ask for this action (plain-text reason)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class Decision:
    """The outcome of a click: the approval as it is now, whether this click moved it,
    and (when it did not) what to tell the person who clicked."""

    approval: Approval
    moved: bool
    message: str | None = None
    expired_now: bool = False
    """This click found the request overdue and moved it to expired (say so once)."""


# --- asking ---------------------------------------------------------------------------


def mention(user_id: str | None) -> str:
    if not user_id:
        return "someone"
    return f"<@{user_id}>" if _USER_ID.match(user_id) else escape(user_id)


def needs_second_person(approval: Approval) -> bool:
    """False for a confirm (the requester alone decides), True for a real approval."""
    return not (approval.approvers == (approval.requester,) and approval.allow_self_approval)


def open_request(
    storage: Storage,
    *,
    team_id: str,
    user_id: str,
    role: str,
    channel_id: str | None,
    proposal: Proposal,
) -> tuple[Approval, Mode]:
    """Record the request (audited) and return it with the mode the policy gives it."""
    who = Role(role) if role in Role.__members__.values() else Role.VIEWER
    kind = ActionKind(proposal.kind)
    if who is Role.VIEWER:
        storage.audit.append(
            team_id,
            user_id,
            kind.value,
            proposal.params,
            outcome=Outcome.REFUSED,
            detail="viewer",
        )
        raise RequestRefused(
            "Viewers can look but not act. An admin can make you an operator with "
            "/callops role @you operator."
        )
    policy = storage.policies.get(team_id, kind)
    if not who.at_least(policy.min_role):
        storage.audit.append(
            team_id,
            user_id,
            kind.value,
            proposal.params,
            outcome=Outcome.REFUSED,
            detail=f"needs {policy.min_role.value}",
        )
        raise RequestRefused(
            f"This workspace lets only {policy.min_role.value}s ask for "
            f"{actions.spec_for(kind).title.lower()}."
        )
    approval = storage.approvals.create(
        team_id, kind, proposal.params, user_id, policy=policy, channel=channel_id
    )
    storage.audit.append(
        team_id,
        user_id,
        kind.value,
        proposal.params,
        outcome=Outcome.REQUESTED,
        detail=f"{policy.mode.value} {approval.id}",
    )
    return approval, policy.mode


async def propose(ctx: CommandContext, proposal: Proposal) -> Reply:
    """What a command hands back for an action: the requester's prompt, or, when the
    policy asks for nothing, the result of running it now."""
    if ctx.storage is None:
        return error("This action needs the app's database, which is not available here.")
    try:
        approval, mode = open_request(
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
        decision = decide(
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
        env = ExecutionEnv(cc=ctx.cc, files=ctx.files) if ctx.cc is not None else None
        finished = await run_approved(ctx.storage, ctx.team_id, approval.id, env)
        reply = card(finished, ctx.tz)
        reply.ephemeral = False
        return reply
    return prompt(approval, ctx.tz)


# --- deciding -------------------------------------------------------------------------


def decide(
    storage: Storage,
    team_id: str,
    approval_id: str,
    *,
    user: str,
    role: str,
    approve: bool,
    params_hash: str,
    reason: str | None = None,
) -> Decision:
    """Approve or deny (a confirm is an approval by the requester); audited either way."""
    who = Role(role) if role in Role.__members__.values() else Role.VIEWER
    try:
        moved = storage.approvals.decide(
            team_id,
            approval_id,
            decider=user,
            decider_role=who,
            approve=approve,
            params_hash=params_hash,
            reason=reason,
        )
    except NotFoundError:
        raise
    except ApprovalExpiredError as exc:
        _audit(storage, exc.approval, user, Outcome.EXPIRED, "clicked after expiry")
        return Decision(
            exc.approval, False, "This request expired before anyone decided.", expired_now=True
        )
    except ApprovalForbiddenError as exc:
        _audit(storage, exc.approval, user, Outcome.REFUSED, str(exc))
        return Decision(exc.approval, False, _sentence(str(exc)))
    except ApprovalParamsMismatchError as exc:
        _audit(storage, exc.approval, user, Outcome.REFUSED, "parameters differ from the card")
        return Decision(exc.approval, False, _sentence(str(exc)))
    except ApprovalError as exc:
        return Decision(exc.approval, False, late_message(exc.approval))
    outcome = Outcome.APPROVED if approve else Outcome.DENIED
    _audit(storage, moved, user, outcome, reason)
    return Decision(moved, True)


def cancel(storage: Storage, team_id: str, approval_id: str, *, user: str, role: str) -> Decision:
    who = Role(role) if role in Role.__members__.values() else Role.VIEWER
    try:
        moved = storage.approvals.cancel(team_id, approval_id, by=user, by_role=who)
    except ApprovalForbiddenError as exc:
        return Decision(exc.approval, False, _sentence(str(exc)))
    except ApprovalError as exc:
        return Decision(exc.approval, False, late_message(exc.approval))
    _audit(storage, moved, user, Outcome.CANCELLED, None)
    return Decision(moved, True)


def expire_due(storage: Storage, team_id: str) -> list[Approval]:
    """Move this team's overdue requests to expired (audited once each)."""
    expired = storage.approvals.expire_due(team_id)
    for approval in expired:
        _audit(storage, approval, None, Outcome.EXPIRED, "nobody decided in time")
    return expired


def late_message(approval: Approval) -> str:
    """Why a click came too late, naming who was first."""
    who = mention(approval.decider)
    state = approval.state
    if state is ApprovalState.PENDING:
        return "This request is still waiting for a decision."
    if state is ApprovalState.DENIED:
        return f"{who} already denied this request."
    if state is ApprovalState.CANCELLED:
        return f"{who} already cancelled this request."
    if state is ApprovalState.EXPIRED:
        return "This request expired before anyone decided."
    verb = "confirmed" if not needs_second_person(approval) else "approved"
    if state in (ApprovalState.APPROVED, ApprovalState.EXECUTING):
        return f"{who} already {verb} this request; it is running."
    if outcome_unknown(approval):
        return (
            f"{who} already {verb} this request; the app stopped while running it and cannot "
            "tell whether it was done: check before retrying."
        )
    return f"{who} already {verb} this request; it ran once ({state.value})."


def _sentence(text: str) -> str:
    text = text.strip()
    return (text[:1].upper() + text[1:]).rstrip(".") + "."


def _audit(
    storage: Storage, approval: Approval, user: str | None, outcome: str, detail: str | None
) -> None:
    storage.audit.append(
        approval.team_id,
        user,
        approval.kind.value,
        approval.params,
        outcome=outcome,
        detail=f"{approval.id}: {detail}" if detail else approval.id,
    )


# --- running --------------------------------------------------------------------------


RENEW_EVERY = EXECUTION_LEASE / 4
"""Seconds between renewals of the execution lease while an action runs."""


@contextlib.asynccontextmanager
async def holding(storage: Storage, approval: Approval) -> AsyncIterator[None]:
    """Renew the execution lease while the block runs: a process that holds it is alive,
    and recovery leaves its request alone (see ``commands.approvals.recovery``)."""

    async def renew() -> None:
        while True:
            await asyncio.sleep(RENEW_EVERY)
            try:
                if not storage.approvals.renew_execution(approval.team_id, approval.id):
                    return
            except Exception:  # a busy database must not stop the action itself
                log.warning("approval %s: could not renew its lease", approval.id)

    task = asyncio.get_running_loop().create_task(renew(), name=f"lease-{approval.id}")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def run_approved(
    storage: Storage, team_id: str, approval_id: str, env: ExecutionEnv | None
) -> Approval:
    """Claim the approved request (exactly one caller wins; the others get
    ``ApprovalStateError``), run it holding its lease, record and audit the outcome."""
    claimed = storage.approvals.claim_for_execution(team_id, approval_id)
    async with holding(storage, claimed):
        result = await _perform(claimed, env)
    data: dict[str, Any] = {"ok": result.ok, "text": result.text, **result.data}
    if claimed.channel and claimed.message_ts:
        data.setdefault("channel", claimed.channel)
        data.setdefault("ts", claimed.message_ts)
    if result.announce:
        data["announce"] = result.announce
    outcome = Outcome.OK if result.ok else Outcome.FAILED
    detail = f"{claimed.id}: {truncate(result.text, 500)}"
    try:
        finished = storage.approvals.finish(team_id, approval_id, ok=result.ok, result=data)
    except ApprovalStateError:
        # Our lease ran out (a stalled process) and recovery settled it first: the log
        # keeps what really happened next to what recovery recorded.
        detail += " (finished after recovery had settled it)"
        raise
    finally:
        storage.audit.append(
            team_id,
            claimed.decider or claimed.requester,
            claimed.kind.value,
            claimed.params,
            outcome=outcome,
            detail=detail,
        )
    return finished


async def _perform(approval: Approval, env: ExecutionEnv | None) -> ActionResult:
    if env is None:
        return ActionResult(
            False,
            "This workspace is not connected to the call-center service any more; "
            "nothing was sent.",
        )
    try:
        return await actions.execute(approval.kind, approval.params, env.cc, files=env.files)
    except ActionRefused as exc:
        return ActionResult(False, f"{escape(_sentence(exc.message))} Nothing was sent.")
    except errors.CallCenterError as exc:
        return ActionResult(False, service_error_text(exc))
    except Exception:
        ref = secrets.token_hex(4)
        log.exception("approval %s (%s) failed (ref %s)", approval.id, approval.kind.value, ref)
        return ActionResult(False, f"Something went wrong on our side (ref {ref}).")


def service_error_text(exc: errors.CallCenterError) -> str:
    """The service's refusal in words a supervisor can act on (escaped mrkdwn).

    A write that timed out or lost its connection may have reached the service, so the
    words say so instead of inviting a blind retry."""
    message = escape(exc.message)
    if isinstance(exc, errors.APIConnectionError):
        return (
            "The call-center service did not answer, so I cannot tell whether it was done. "
            "Check before trying again."
        )
    if isinstance(exc, errors.FieldValidationError):
        fields = "; ".join(f"`{escape(f)}`: {escape(', '.join(m))}" for f, m in exc.fields.items())
        return f"The service rejected some values: {fields}"
    if isinstance(exc, errors.TransferFailedError):
        return f"The transfer failed: {escape(exc.code)}."
    if isinstance(exc, errors.AuthenticationError):
        return "The service refused this workspace's API key; an admin can reconnect."
    if isinstance(exc, errors.NotFoundError):
        return f"The service no longer knows it: {message}."
    if isinstance(exc, errors.ConflictError):
        return f"The service refused: {message}."
    if isinstance(exc, errors.ServerError):
        return f"The service failed ({message}); it may not have been done."
    return f"The service said: {message}"


# --- rendering ------------------------------------------------------------------------


def _clock(ts: float | None, tz: ZoneInfo) -> str:
    if ts is None:
        return "–"
    return datetime.fromtimestamp(ts, UTC).astimezone(tz).strftime("%H:%M %Z")


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
        SectionBlock(text=MarkdownTextObject(text=truncate(spec.describe(approval.params), 3000))),
    ]


def _hash_block(approval: Approval) -> str:
    return BLOCK_PREFIX + approval.params_hash


def hash_from_block(block_id: str | None) -> str:
    return (block_id or "").removeprefix(BLOCK_PREFIX)


def prompt(approval: Approval, tz: ZoneInfo) -> Reply:
    """The requester's own, ephemeral confirm: exactly what will happen, two buttons."""
    spec = actions.spec_for(approval.kind)
    second = needs_second_person(approval)
    label = "Ask for approval" if second else spec.confirm_label
    note = (
        f"This needs the approval of {approvers_text(approval)}; the request expires at "
        f"{_clock(approval.expires_at, tz)}."
        if second
        else f"Nothing happens until you press *{escape(label)}* "
        f"(until {_clock(approval.expires_at, tz)})."
    )
    blocks = _header(approval)
    blocks.append(ContextBlock(elements=[MarkdownTextObject(text=note)]))
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


def outcome_unknown(approval: Approval) -> bool:
    """The app stopped while running it and the service could not say what happened."""
    return isinstance(approval.result, Mapping) and bool(approval.result.get("unknown"))


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
                        + spec.describe(approval.params),
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
