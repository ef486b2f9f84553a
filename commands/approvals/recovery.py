"""Settling the approvals a dead process left behind, without ever running one again.

A process that dies between an approval and its outcome leaves the request ``approved``
(it died before claiming it) or ``executing`` (it died during the service call, so
nobody knows whether the call got through).  Left alone, such a request is stuck for
good: its card says "running…", a new click is told "it is running", and the requester
never hears.  The approvals family's jobs (``commands/approvals/sweep.py``) call
``recover`` at start and on their timer with what ``ApprovalStore.abandoned`` finds:
executions whose lease ran out (the process that held it stopped renewing) and
approvals never claimed within ``APPROVED_GRACE``.

- ``approved``, never claimed: nothing was sent.  It ends ``failed`` with "not run"; the
  decision was made long ago, and running it now, unattended, could surprise everyone.
- ``executing``: the action's observer (``ActionSpec.observe``) reads the
  service; its answer is recorded as the outcome (done, or not done and safe to ask
  again).  Without an observer, or when the service cannot be read, the request ends as
  *unknown: check before retrying* (stored as ``failed`` with ``result.unknown``).

Either way the card is updated, the requester is told in the card's thread (or by DM
when there is no card), and the audit log records what recovery found.  Every move is a
compare-and-set, so two processes recovering at once settle each request once.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from callcenter import CallCenter
from callcenter.errors import CallCenterError
from commands.approvals import actions
from commands.approvals.flow import ApprovalFlow, plain_message
from commands.approvals.workflow import NOT_RUN_TEXT
from commands.kernel.actions import Observation
from commands.kernel.i18n import N_, _
from commands.kernel.text import escape, mention, truncate
from storage import Approval, ApprovalState, Outcome, Storage
from storage.errors import ApprovalStateError
from storage.offload import off_loop

log = logging.getLogger(__name__)

APPROVED_GRACE = 120.0
"""Seconds an approved request may wait for its claim before it counts as abandoned (a
live process claims it within moments, after updating the card)."""
OBSERVE_TIMEOUT = 15.0
"""Seconds recovery gives the service to show a request's effect."""

UNKNOWN_TEXT = N_(
    "I cannot tell whether it was done (the service cannot be asked about it): "
    "*check before retrying*."
)


async def observe(approval: Approval, cc: CallCenter | None) -> Observation | None:
    """What the service shows of ``approval``'s effect; None when it cannot say."""
    observer = actions.spec_for(approval.kind).observe
    if observer is None or cc is None:
        return None
    try:
        async with asyncio.timeout(OBSERVE_TIMEOUT):
            return await observer(approval.params, cc)
    except (CallCenterError, TimeoutError) as exc:
        log.info("approval %s: the service could not show its outcome (%s)", approval.id, exc)
        return None


async def settle(storage: Storage, approval: Approval, cc: CallCenter | None) -> Approval | None:
    """Record the outcome of one abandoned request; None when another process (or the
    one that ran it, after all) settled it first."""
    team = approval.team_id
    data: dict[str, Any] = {"recovered": True}
    if approval.channel and approval.message_ts:
        data.update(channel=approval.channel, ts=approval.message_ts)
    try:
        finish = storage.approvals.finish_abandoned
        if approval.state is ApprovalState.APPROVED:
            await off_loop(storage.approvals.claim_for_execution, team, approval.id)
            finish = storage.approvals.finish
            ok, outcome = False, Outcome.FAILED
            detail = "not run: the app stopped before running it"
            data.update(ok=False, not_run=True, text=_(NOT_RUN_TEXT))
        elif (found := await observe(approval, cc)) is None:
            ok, outcome = False, Outcome.UNKNOWN
            detail = "the app stopped while running it; outcome unknown, check before retrying"
            data.update(ok=False, unknown=True, text=_(UNKNOWN_TEXT))
        else:
            ok, outcome = found.done, Outcome.OK if found.done else Outcome.FAILED
            shown = truncate(found.text, 400)
            detail = f"the app stopped while running it; the service shows: {shown}"
            data.update(found.data)
            data.update(ok=found.done, text=found.text)
        settled = await off_loop(finish, team, approval.id, ok=ok, result=data)
        await off_loop(_audit, storage, settled, outcome, detail)
        return settled
    except ApprovalStateError as exc:
        log.info("approval %s: settled elsewhere (%s)", approval.id, exc)
        return None


async def recover(
    storage: Storage,
    abandoned: list[Approval],
    cc: CallCenter | None,
    flow: ApprovalFlow | None,
) -> list[Approval]:
    """Settle ``abandoned`` (one team's), then say so on each card and to each requester
    through ``flow`` (None: the bot cannot post in this workspace; recorded only)."""
    settled: list[Approval] = []
    for approval in abandoned:
        done = await settle(storage, approval, cc)
        if done is None:
            continue
        settled.append(done)
        log.warning(
            "approval %s (%s) left by a stopped process settled as %s",
            done.id,
            done.kind,
            "unknown" if (done.result or {}).get("unknown") else done.state.value,
        )
        if flow is not None:
            await flow.update_card(done)
            await tell_requester(flow, done)
    return settled


async def tell_requester(flow: ApprovalFlow, approval: Approval) -> None:
    """In the card's thread (approval card or confirmed action alike), else by DM."""
    message = plain_message(recovered_note(approval))
    card = approval.channel and approval.message_ts
    if card and await flow.slack.post(
        str(approval.channel), message, thread_ts=approval.message_ts
    ):
        return
    await flow.slack.post(approval.requester, message)


def recovered_note(approval: Approval) -> str:
    """The requester's line once recovery settled their request."""
    title = escape(_(actions.spec_for(approval.kind).title).lower())
    who = mention(approval.requester)
    result = approval.result if isinstance(approval.result, dict) else {}
    if result.get("unknown"):
        return _(
            "{who} your request ({action}) was interrupted: the app stopped while running it "
            "and cannot tell whether it was done. *Check before retrying.*"
        ).format(who=who, action=title)
    if result.get("not_run"):
        return _("{who} your request ({action}) was not run: {why}").format(
            who=who, action=title, why=_(NOT_RUN_TEXT)
        )
    found = str(result.get("text") or "")
    return _("{who} your request ({action}) was interrupted when the app stopped. {found}").format(
        who=who, action=title, found=found
    )


def _audit(storage: Storage, approval: Approval, outcome: str, detail: str) -> None:
    storage.audit.append(
        approval.team_id,
        None,
        approval.kind,
        approval.params,
        outcome=outcome,
        detail=f"{approval.id}: recovered: {detail}",
    )
