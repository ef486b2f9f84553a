"""Workflow steps that ask for an action: the same request, policy and approval card as
``/callops``, answered in the workflow once the request is settled.

Running a step is its requester's confirm, as submitting a form is: the person who
started the workflow chose this action with these values.  So the step opens a request
(``open_request``: role and policy checked, audited) and confirms it:

- no approval needed (confirm or none): it runs now, and the step gets its outputs now;
- approval needed: the card goes to the workspace's approvals channel, and the step
  waits (``StepPending``) until an approver runs it, denies it, or it expires.

Either way the step is answered by ``ApprovalFlow.answer_step`` when the request is
settled, from whichever click, sweep or process settles it: the run is remembered
(``storage.step_runs``) before the card can be clicked.
"""

from __future__ import annotations

from collections.abc import Mapping

from commands.approvals.cards import open_for
from commands.approvals.flow import ApprovalFlow
from commands.approvals.workflow import RequestRefused, step_outcome
from commands.kernel.actions import Proposal
from commands.kernel.context import CommandContext
from commands.kernel.i18n import N_, _
from commands.kernel.interactions import StepRun
from commands.kernel.reply import Nothing, Outcome, StepFailed, StepPending
from storage import ApprovalState
from storage.offload import off_loop

NO_CARD = N_(
    "The request needs an approval, but I could not post its card, so nothing was asked. "
    "An admin can choose the approvals channel with /callops policy channel #channel "
    "(invite me there first); then run the workflow again."
)


async def request_from_step(
    ctx: CommandContext, run: StepRun, proposal: Proposal, outputs: Mapping[str, str]
) -> Outcome:
    """Ask for ``proposal`` on behalf of the person running the step; ``outputs`` maps
    each of the step's outputs to a key of the action's result."""
    if not run.token:
        return StepFailed(_("Slack gave no token with this step, so it cannot be answered."))
    flow = ApprovalFlow(ctx)
    try:
        approval, _mode = await open_for(ctx, flow.storage, proposal, channel_id=None)
    except RequestRefused as exc:
        return StepFailed(exc.message)
    await off_loop(
        flow.storage.step_runs.link,
        ctx.team_id,
        approval.id,
        function_execution_id=run.function_execution_id,
        callback_id=run.callback_id,
        token=run.token,
        outputs=outputs,
    )
    await flow.confirmed(approval, params_hash=approval.params_hash)
    current = await off_loop(flow.storage.approvals.require, ctx.team_id, approval.id)
    if not current.state.is_final:
        # Waiting, or an approver's click got there first and is running it: whoever
        # settles it answers the step (``ApprovalFlow.answer_step``).
        return StepPending(approval.id)
    # Settled already. A request that ran was answered by the flow; one that was called
    # off before anyone saw it (no card could be posted) is answered here.
    link = await off_loop(flow.storage.step_runs.settle, ctx.team_id, approval.id)
    if link is None:
        return Nothing()
    if current.state is ApprovalState.CANCELLED and not current.message_ts:
        return StepFailed(_(NO_CARD))
    return step_outcome(current, link.outputs)
