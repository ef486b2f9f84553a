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

What people see of a request (the requester's prompt, the shared card, the deny form)
is drawn by ``commands.approvals.cards``; the ids of its buttons are defined here, next
to the steps they trigger.  Nothing here knows Slack's transport.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Mapping
from dataclasses import KW_ONLY, dataclass, replace
from typing import Any

from callcenter import errors
from commands.approvals import actions
from commands.kernel.actions import ActionRefused, ActionResult, ExecutionEnv, Proposal
from commands.kernel.audiences import for_channel
from commands.kernel.errors import MessageError
from commands.kernel.failures import describe_failure
from commands.kernel.i18n import N_, _, audience, current_language, pgettext, use_audience
from commands.kernel.reply import Reply, StepCompleted, StepFailed, plain_words
from commands.kernel.text import escape, mention, truncate
from storage import Approval, ApprovalState, KindPolicy, Mode, Outcome, PolicyStore, Role, Storage
from storage.approvals import EXECUTION_LEASE
from storage.errors import (
    ApprovalError,
    ApprovalExpiredError,
    ApprovalForbiddenError,
    ApprovalParamsMismatchError,
    ApprovalStateError,
    NotFoundError,
)
from storage.offload import off_loop

log = logging.getLogger(__name__)

CONFIRM_ACTION = "approval_confirm"
CANCEL_ACTION = "approval_cancel"
APPROVE_ACTION = "approval_approve"
DENY_ACTION = "approval_deny"
DENY_CALLBACK = "approval_deny_reason"
REASON_BLOCK = "reason"


def policy_for(policies: PolicyStore, team_id: str, kind: str) -> KindPolicy:
    """What ``kind`` takes in the workspace: what its admins set, else the default."""
    default = actions.spec_for(kind).policy
    return policies.stored(team_id, kind) or default


def all_policies(policies: PolicyStore, team_id: str) -> dict[str, KindPolicy]:
    """Every kind's policy in the workspace (a stored kind no longer declared is left out)."""
    stored = policies.overrides(team_id)
    defaults = actions.in_use().default_policies()
    return {kind: stored.get(kind, default) for kind, default in defaults.items()}


def update_policy(
    policies: PolicyStore,
    team_id: str,
    kind: str,
    *,
    updated_by: str | None = None,
    **changes: Any,
) -> KindPolicy:
    """Change some fields of a kind's policy (e.g. ``expiry_seconds=600``)."""
    policy = replace(policy_for(policies, team_id, kind), **changes)
    policies.set(team_id, kind, policy, updated_by=updated_by)
    return policy


class RequestRefused(MessageError):
    """The requester may not ask for this action (plain-text reason)."""


@dataclass(frozen=True)
class Decision:
    """The outcome of a click: the approval as it is now, whether this click moved it,
    and (when it did not) what to tell the person who clicked."""

    approval: Approval
    _: KW_ONLY
    moved: bool
    message: str | None = None
    expired_now: bool = False
    """This click found the request overdue and moved it to expired (say so once)."""


def state_name(state: ApprovalState | str) -> str:
    """A request's state as one word in the reader's language (``pending``, ``done``...);
    ``unknown`` for a run whose outcome nobody could tell."""
    words = {
        "pending": pgettext("approval state", "pending"),
        "approved": pgettext("approval state", "approved"),
        "executing": pgettext("approval state", "executing"),
        "done": pgettext("approval state", "done"),
        "failed": pgettext("approval state", "failed"),
        "denied": pgettext("approval state", "denied"),
        "expired": pgettext("approval state", "expired"),
        "cancelled": pgettext("approval state", "cancelled"),
        "unknown": pgettext("approval state", "unknown"),
    }
    value = str(state.value if isinstance(state, ApprovalState) else state)
    return words.get(value, value)


def title_of(approval: Approval) -> str:
    """The action's card title (``Start campaign``) in the reader's language."""
    return _(actions.spec_for(approval.kind).title)


# --- asking ---------------------------------------------------------------------------


def outcome_unknown(approval: Approval) -> bool:
    """The app stopped while running it and the service could not say what happened."""
    return isinstance(approval.result, Mapping) and bool(approval.result.get("unknown"))


def needs_second_person(approval: Approval) -> bool:
    """False for a confirm (the requester alone decides), True for a real approval."""
    return not (approval.approvers == (approval.requester,) and approval.allow_self_approval)


def open_request(
    storage: Storage,
    *,
    team_id: str,
    user_id: str,
    role: Role,
    channel_id: str | None,
    proposal: Proposal,
) -> tuple[Approval, Mode]:
    """Record the request (audited) and return it with the mode the policy gives it."""
    kind = proposal.kind
    expected = actions.spec_for(kind).params
    if not issubclass(type(proposal.params), expected):
        # A model of another kind would be stored, then fail only when someone approves.
        raise TypeError(f"{kind} takes {expected.__name__}, not {type(proposal.params).__name__}")
    params = proposal.params.to_json()
    policy = policy_for(storage.policies, team_id, kind)
    refusal: tuple[str, str] | None = None
    if role is Role.VIEWER:
        refusal = (
            "viewer",
            _(
                "Viewers can look but not act. An admin can make you an operator with "
                "/callops role {you} operator."
            ).format(you=f"<@{user_id}>" if user_id else "@you"),
        )
    elif not role.at_least(policy.min_role):
        action = _(actions.spec_for(kind).title).lower()
        if policy.min_role is Role.ADMIN:
            said = _("This workspace lets only admins ask for {action}.")
        else:
            said = _("This workspace lets only operators ask for {action}.")
        refusal = (f"needs {policy.min_role.value}", said.format(action=action))
    if refusal is not None:
        detail, message = refusal
        storage.audit.append(team_id, user_id, kind, params, outcome=Outcome.REFUSED, detail=detail)
        raise RequestRefused(message)
    approval = storage.approvals.create(
        team_id, kind, params, user_id, policy=policy, channel=channel_id
    )
    secret = proposal.params.secret_json()
    if secret:
        storage.approval_secrets.keep_secret(team_id, approval.id, secret)
    storage.audit.append(
        team_id,
        user_id,
        kind,
        params,
        outcome=Outcome.REQUESTED,
        detail=f"{policy.mode.value} {approval.id}",
    )
    return approval, policy.mode


# --- deciding -------------------------------------------------------------------------


def decide(
    storage: Storage,
    team_id: str,
    approval_id: str,
    *,
    user: str,
    role: Role,
    approve: bool,
    params_hash: str,
    reason: str | None = None,
) -> Decision:
    """Approve or deny (a confirm is an approval by the requester); audited either way."""
    try:
        moved = storage.approvals.decide(
            team_id,
            approval_id,
            decider=user,
            decider_role=role,
            approve=approve,
            params_hash=params_hash,
            reason=reason,
        )
    except NotFoundError:
        raise
    except ApprovalExpiredError as exc:
        storage.approval_secrets.wipe(team_id, approval_id)
        _audit(storage, exc.approval, user, Outcome.EXPIRED, "clicked after expiry")
        return Decision(
            exc.approval,
            moved=False,
            message=_("This request expired before anyone decided."),
            expired_now=True,
        )
    except ApprovalForbiddenError as exc:
        _audit(storage, exc.approval, user, Outcome.REFUSED, str(exc))
        return Decision(exc.approval, moved=False, message=_sentence(_(str(exc))))
    except ApprovalParamsMismatchError as exc:
        _audit(storage, exc.approval, user, Outcome.REFUSED, "parameters differ from the card")
        return Decision(exc.approval, moved=False, message=_sentence(_(str(exc))))
    except ApprovalError as exc:
        return Decision(exc.approval, moved=False, message=late_message(exc.approval))
    if not approve:
        storage.approval_secrets.wipe(team_id, approval_id)
    outcome = Outcome.APPROVED if approve else Outcome.DENIED
    _audit(storage, moved, user, outcome, reason)
    return Decision(moved, moved=True)


def cancel(storage: Storage, team_id: str, approval_id: str, *, user: str, role: Role) -> Decision:
    try:
        moved = storage.approvals.cancel(team_id, approval_id, by=user, by_role=role)
    except ApprovalForbiddenError as exc:
        return Decision(exc.approval, moved=False, message=_sentence(_(str(exc))))
    except ApprovalError as exc:
        return Decision(exc.approval, moved=False, message=late_message(exc.approval))
    storage.approval_secrets.wipe(team_id, approval_id)
    _audit(storage, moved, user, Outcome.CANCELLED, None)
    return Decision(moved, moved=True)


def expire_due(storage: Storage, team_id: str) -> list[Approval]:
    """Move this team's overdue requests to expired (audited once each)."""
    expired = storage.approvals.expire_due(team_id)
    for approval in expired:
        storage.approval_secrets.wipe(team_id, approval.id)
        _audit(storage, approval, None, Outcome.EXPIRED, "nobody decided in time")
    return expired


def late_message(approval: Approval) -> str:
    """Why a click came too late, naming who was first."""
    who = mention(approval.decider)
    state = approval.state
    if state is ApprovalState.PENDING:
        return _("This request is still waiting for a decision.")
    if state is ApprovalState.DENIED:
        return _("{who} already denied this request.").format(who=who)
    if state is ApprovalState.CANCELLED:
        return _("{who} already cancelled this request.").format(who=who)
    if state is ApprovalState.EXPIRED:
        return _("This request expired before anyone decided.")
    approved = needs_second_person(approval)
    if state in (ApprovalState.APPROVED, ApprovalState.EXECUTING):
        if approved:
            said = _("{who} already approved this request; it is running.")
        else:
            said = _("{who} already confirmed this request; it is running.")
        return said.format(who=who)
    if outcome_unknown(approval):
        if approved:
            said = _(
                "{who} already approved this request; the app stopped while running it and "
                "cannot tell whether it was done: check before retrying."
            )
        else:
            said = _(
                "{who} already confirmed this request; the app stopped while running it and "
                "cannot tell whether it was done: check before retrying."
            )
        return said.format(who=who)
    if approved:
        said = _("{who} already approved this request; it ran once ({state}).")
    else:
        said = _("{who} already confirmed this request; it ran once ({state}).")
    return said.format(who=who, state=state_name(state))


def _sentence(text: str) -> str:
    text = text.strip()
    return (text[:1].upper() + text[1:]).rstrip(".") + "."


def _audit(
    storage: Storage, approval: Approval, user: str | None, outcome: str, detail: str | None
) -> None:
    storage.audit.append(
        approval.team_id,
        user,
        approval.kind,
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
                if not await off_loop(
                    storage.approvals.renew_execution, approval.team_id, approval.id
                ):
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


NOT_RUN_TEXT = N_(
    "The app stopped before running it, so nothing was sent. Ask again if it is still wanted."
)
"""What a request approved but never run says (recovery, or a process that was stopping)."""


NOT_RUN_DETAIL = "not run: the app was stopping"


def _runner(claimed: Approval) -> str:
    """Whose name a run is audited in: who approved it (who asked, when none had to)."""
    return claimed.decider or claimed.requester


async def not_run(storage: Storage, team_id: str, approval_id: str) -> Approval:
    """Settle an approved request without running it: the process is stopping (SIGTERM),
    and an action started now might not finish before it exits, leaving nobody able to
    say whether it was done.  Claimed like a run (exactly one caller wins; the others get
    ``ApprovalStateError``), then failed as "not run", plainly, and audited."""
    claimed = await off_loop(storage.approvals.claim_for_execution, team_id, approval_id)
    data: dict[str, Any] = {"ok": False, "not_run": True, "text": _(NOT_RUN_TEXT)}
    if claimed.channel and claimed.message_ts:
        data.update(channel=claimed.channel, ts=claimed.message_ts)
    finished = await off_loop(storage.approvals.finish, team_id, approval_id, ok=False, result=data)
    await off_loop(_audit, storage, claimed, _runner(claimed), Outcome.FAILED, NOT_RUN_DETAIL)
    return finished


RESULT_LANGUAGE = "lang"
"""The language a result's ``text`` was written in: the card's (the shared message it
belongs to), so a private surface in another language leaves it out."""


async def run_approved(
    storage: Storage, team_id: str, approval_id: str, env: ExecutionEnv | None
) -> Approval:
    """Claim the approved request (exactly one caller wins; the others get
    ``ApprovalStateError``), run it holding its lease, record and audit the outcome."""
    claimed = await off_loop(storage.approvals.claim_for_execution, team_id, approval_id)
    # Only the caller that claimed the run gets the secret, and it is gone from the
    # database before the call is made: the call is never repeated.
    secret = await off_loop(storage.approval_secrets.take_secret, team_id, approval_id)
    # The result is shown on the approval card, where the channel reads it: a customer's
    # number in it is masked as the card's own lines are.
    workspace = await off_loop(storage.workspaces.get, team_id)
    masked = for_channel(workspace).mask_phones or audience().mask_phones
    async with holding(storage, claimed):
        with use_audience(replace(audience(), mask_phones=masked)):
            result = await _perform(claimed, env, secret)
    data: dict[str, Any] = {
        "ok": result.ok,
        "text": result.text,
        RESULT_LANGUAGE: current_language(),
        **result.data,
    }
    if claimed.channel and claimed.message_ts:
        data.setdefault("channel", claimed.channel)
        data.setdefault("ts", claimed.message_ts)
    if result.announce:
        data["announce"] = result.announce
    outcome = Outcome.OK if result.ok else Outcome.FAILED
    detail = truncate(result.text, 500)
    try:
        finished = await off_loop(
            storage.approvals.finish, team_id, approval_id, ok=result.ok, result=data
        )
    except ApprovalStateError:
        # Our lease ran out (a stalled process) and recovery settled it first: the log
        # keeps what really happened next to what recovery recorded.
        detail += " (finished after recovery had settled it)"
        raise
    finally:
        await off_loop(_audit, storage, claimed, _runner(claimed), outcome, detail)
    return finished


async def _perform(
    approval: Approval, env: ExecutionEnv | None, secret: dict[str, Any]
) -> ActionResult:
    if env is None:
        return ActionResult(
            ok=False,
            text=_(
                "This workspace is not connected to the call-center service any more; "
                "nothing was sent."
            ),
        )
    env = replace(
        env,
        request_id=approval.id,
        requester=approval.requester,
        approvers=(approval.decider,) if approval.decider else (),
    )
    try:
        return await actions.execute(approval.kind, approval.params, env, secret=secret)
    except ActionRefused as exc:
        reason = escape(_sentence(exc.message))
        return ActionResult(ok=False, text=_("{reason} Nothing was sent.").format(reason=reason))
    except errors.CallCenterError as exc:
        spec = actions.spec_for(approval.kind)
        words = describe_failure(exc, effect=_(spec.unknown_outcome))
        return ActionResult(ok=False, text=words.text)
    except Exception:
        ref = secrets.token_hex(4)
        log.exception("approval %s (%s) failed (ref %s)", approval.id, approval.kind, ref)
        said = _("Something went wrong on our side (ref {ref}).")
        return ActionResult(ok=False, text=said.format(ref=ref))


def step_outcome(approval: Approval, outputs: Mapping[str, str]) -> StepCompleted | StepFailed:
    """How a settled request answers the workflow step that asked for it: the outputs
    (``outputs`` maps each output to a key of the result's data), or why not, in the
    words the card uses."""
    result = approval.result if isinstance(approval.result, Mapping) else {}
    title = title_of(approval)
    state = approval.state
    if state is ApprovalState.DONE:
        return StepCompleted({name: result.get(key) for name, key in outputs.items()})
    if state is ApprovalState.FAILED:
        said = plain_words(Reply(text=str(result.get("text") or _("it failed."))))
        return StepFailed(
            _("{action} was approved but failed: {reason}").format(action=title, reason=said)
        )
    who = mention(approval.decider)
    if state is ApprovalState.DENIED and approval.reason:
        return StepFailed(
            _("{action} was denied by {who}: {reason}").format(
                action=title, who=who, reason=approval.reason
            )
        )
    if state is ApprovalState.DENIED:
        return StepFailed(_("{action} was denied by {who}.").format(action=title, who=who))
    if state is ApprovalState.EXPIRED:
        return StepFailed(
            _(
                "{action}: the approval request expired before anyone decided. Nothing was done."
            ).format(action=title)
        )
    if state is ApprovalState.CANCELLED:
        return StepFailed(
            _("{action}: the request was withdrawn. Nothing was done.").format(action=title)
        )
    return StepFailed(
        _("{action}: the request is still {state}.").format(action=title, state=state_name(state))
    )
