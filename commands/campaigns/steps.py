"""Workflow steps: start, pause or stop a campaign.

The same request as ``/callops start|pause|stop <campaign>`` (``control.proposal_for``),
through the same policy and approval card; the step's output is the campaign's status
once the request has run.  A campaign already in that state completes the step at once,
as the typed command just says so.
"""

from __future__ import annotations

from commands.approvals.steps import request_from_step
from commands.campaigns.control import Status, proposal_for
from commands.kernel.context import CommandContext
from commands.kernel.i18n import _
from commands.kernel.interactions import StepParam, StepRun
from commands.kernel.reply import Outcome, StepCompleted, StepFailed
from commands.kernel.resolve import all_campaigns, pick_campaign

START_STEP = "campaign_start"
PAUSE_STEP = "campaign_pause"
STOP_STEP = "campaign_stop"
CAMPAIGN_INPUT = "campaign"

CAMPAIGN = StepParam(
    CAMPAIGN_INPUT,
    "string",
    "Campaign",
    "The campaign's name, the start of its name, or its UUID.",
    required=True,
)
OUTPUTS = (
    StepParam(
        "status",
        "string",
        "Status",
        "The campaign's status now: start, pause or stop.",
        required=True,
    ),
    StepParam("campaign_id", "string", "Campaign ID", "The campaign's UUID.", required=True),
)
_RESULT_KEYS = {"status": "status", "campaign_id": "campaign_uuid"}


async def _control(ctx: CommandContext, run: StepRun, status: Status) -> Outcome:
    query = run.text(CAMPAIGN_INPUT)
    if not query:
        return StepFailed(_("Which campaign? Give its name, the start of its name, or its UUID."))
    campaign = pick_campaign(await all_campaigns(ctx.client()), query)
    proposal = await proposal_for(ctx, campaign, status)
    if proposal is None:
        return StepCompleted({"status": campaign.status, "campaign_id": campaign.campaign_uuid})
    return await request_from_step(ctx, run, proposal, _RESULT_KEYS)


async def start(ctx: CommandContext, run: StepRun) -> Outcome:
    return await _control(ctx, run, "start")


async def pause(ctx: CommandContext, run: StepRun) -> Outcome:
    return await _control(ctx, run, "pause")


async def stop(ctx: CommandContext, run: StepRun) -> Outcome:
    return await _control(ctx, run, "stop")
