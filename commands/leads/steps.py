"""Workflow step: add one lead to a list (a campaign's own list, or a list by UUID).

The checks are ``/callops lead``'s (``insert.lead_proposal``): the list UUID, the phone
rule, the blacklist, the known lead fields; then the same request, policy and approval.
The step's output is the new lead's id.
"""

from __future__ import annotations

from commands.approvals.steps import request_from_step
from commands.kernel.context import CommandContext
from commands.kernel.grammar import key_values
from commands.kernel.i18n import _
from commands.kernel.interactions import PHONE_INPUT, StepParam, StepRun
from commands.kernel.phones import normalize_phone, phone_problem
from commands.kernel.reply import Outcome, Reply, StepFailed
from commands.kernel.resolve import all_campaigns, pick_campaign
from commands.leads.insert import fields_problem, lead_proposal, list_uuid_problem

LEAD_STEP = "lead_add"

INPUTS = (
    StepParam(
        "campaign",
        "string",
        "Campaign",
        "Add the lead to this campaign's list (its name or UUID); or give the list instead.",
    ),
    StepParam("list_id", "string", "Lead list ID", "The lead list's UUID (36 characters)."),
    PHONE_INPUT,
    StepParam("name", "string", "Name", "The customer's name."),
    StepParam(
        "fields",
        "string",
        "Other fields",
        'More lead fields as name=value, e.g. address="12 Lý Thái Tổ" province=HN.',
    ),
)
OUTPUTS = (StepParam("lead_id", "string", "Lead ID", "The new lead's UUID.", required=True),)
_RESULT_KEYS = {"lead_id": "lead_uuid"}


async def add_lead(ctx: CommandContext, run: StepRun) -> Outcome:
    cc = ctx.client()
    list_uuid = run.text("list_id")
    campaign_query = run.text("campaign")
    if not list_uuid and not campaign_query:
        return StepFailed(_("Give the campaign (its list gets the lead) or the lead list's UUID."))
    if not list_uuid:
        campaign = pick_campaign(await all_campaigns(cc), campaign_query)
        if not campaign.default_list_uuid:
            return StepFailed(
                _("The campaign {campaign} has no lead list; give the list's UUID.").format(
                    campaign=campaign.campaign_name
                )
            )
        list_uuid = campaign.default_list_uuid
    fields = key_values(run.text("fields"))
    if run.text("name"):
        fields["lead_name"] = run.text("name")
    phone = normalize_phone(run.text("phone"))
    problem = list_uuid_problem(list_uuid) or phone_problem(phone) or fields_problem(fields)
    if problem:
        return StepFailed(problem)
    proposal = await lead_proposal(ctx, list_uuid, phone, fields)
    if isinstance(proposal, Reply):
        return proposal
    return await request_from_step(ctx, run, proposal, _RESULT_KEYS)
