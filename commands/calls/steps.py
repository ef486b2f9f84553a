"""Workflow step: push one automated call.

The checks are the modal's and the command's (``autocall``): an autocall campaign, the
template's placeholders exactly, the service's phone rule and its blacklist; then the
same request, policy and approval.  The step's outputs are the call's and the lead's id.
"""

from __future__ import annotations

from typing import Any

from commands.approvals.steps import request_from_step
from commands.calls.autocall import (
    autocall_target,
    brand_to_say,
    field_label,
    missing_values,
    push_proposal,
    refusal,
    value_needed,
)
from commands.calls.preview import value_problems
from commands.kernel.context import CommandContext
from commands.kernel.grammar import key_values
from commands.kernel.i18n import _
from commands.kernel.interactions import PHONE_INPUT, StepParam, StepRun
from commands.kernel.phones import normalize_phone
from commands.kernel.reply import Outcome, Reply, StepFailed
from commands.kernel.resolve import all_campaigns

AUTOCALL_STEP = "autocall_push"

INPUTS = (
    StepParam(
        "campaign",
        "string",
        "Campaign",
        "The autocall campaign: its name, the start of its name, or its UUID.",
        required=True,
    ),
    PHONE_INPUT,
    StepParam(
        "values",
        "string",
        "Template values",
        'The template\'s placeholders as name=value, e.g. name="Nguyễn An" amount=150000 '
        "(or a JSON object).",
    ),
    StepParam(
        "values_object",
        "object",
        "Template values (object)",
        "The same values as an object, from a workflow that has them as one.",
    ),
)
OUTPUTS = (
    StepParam("call_id", "string", "Call ID", "The call the service placed.", required=True),
    StepParam(
        "lead_id", "string", "Lead ID", "The lead the service made for the number.", required=True
    ),
)
_RESULT_KEYS = {"call_id": "call_id", "lead_id": "lead_uuid"}


def _given(run: StepRun) -> dict[str, str]:
    """The values from either input (the text wins where both name one)."""
    obj: Any = run.inputs.get("values_object")
    values = key_values(obj if obj is None or isinstance(obj, dict) else str(obj))
    values.update(key_values(run.text("values")))
    return {k: v for k, v in values.items() if v.strip()}


async def push(ctx: CommandContext, run: StepRun) -> Outcome:
    query = run.text("campaign")
    if not query:
        return StepFailed(_("Which campaign? Give the autocall campaign's name or UUID."))
    given = _given(run)
    cc = ctx.client()
    target = await autocall_target(cc, await all_campaigns(cc), query, given)
    if isinstance(target, Reply):
        return target
    campaign, template, names = target
    missing = missing_values(names, given)
    if missing:
        return StepFailed(" ".join(value_needed(name) for name in missing))
    misread = value_problems({n: given[n] for n in names})
    if misread:
        return StepFailed(
            " ".join(f"{field_label(name)} ({name}=): {why}" for name, why in misread.items())
        )
    phone = normalize_phone(run.text("phone"))
    refused = await refusal(ctx, campaign, phone)
    if refused:
        return refused
    values = {n: given[n] for n in names}
    proposal = push_proposal(
        campaign, template, phone, values, brand=await brand_to_say(ctx, campaign)
    )
    return await request_from_step(ctx, run, proposal, _RESULT_KEYS)
