"""``lead <list_uuid> <phone> [key=value ...]``: one customer into a list.

One lead is one real person the dialer will call, so it is approved like an upload
(DESIGN.md).  The list UUID, the number (pattern and blacklist) and the field names are
checked before the request is made; the keys are the optional fields of ``POST /v3/lead``.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import Field

from callcenter import CallCenter, errors
from callcenter.models import LEAD_OPTIONAL_FIELDS, LeadCreate
from callcenter.rules import LIST_UUID_MIN_LENGTH, check_list_uuid
from commands.approvals.actions import (
    ActionRefused,
    ActionResult,
    ActionSpec,
    ExecutionEnv,
    register,
)
from commands.approvals.cards import propose
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import ANY_KEY, UsageError, check_keys, split_options
from commands.kernel.phones import blocked_numbers, normalize_phone, phone_problem
from commands.kernel.proposal import ActionParams, Proposal
from commands.kernel.reply import Reply, error, notice
from commands.kernel.text import clip, code
from storage import ActionKind


def list_uuid_problem(list_uuid: str) -> str | None:
    if check_list_uuid(list_uuid):
        return (
            f"A list UUID has {LIST_UUID_MIN_LENGTH} characters; '{list_uuid[:60]}' has "
            f"{len(list_uuid)}."
        )
    return None


class LeadParams(ActionParams):
    """One lead: the list, the number and the optional fields of ``POST /v3/lead``."""

    list_uuid: str
    list_name: str = ""
    phone_number: str
    fields: dict[str, str] = Field(default_factory=dict)


def describe_lead(params: LeadParams) -> str:
    name = params.list_name or params.list_uuid
    lines = [
        f"Add *{clip(params.phone_number, 40)}* to the lead list *{clip(name, 150)}*; the "
        "dialer will call this number."
    ]
    for key, value in list(params.fields.items())[:20]:
        lines.append(f"• {code(key)}: {clip(value, 200)}")
    lines.append(f"List {code(params.list_uuid)}")
    return "\n".join(lines)


async def execute_lead(params: LeadParams, env: ExecutionEnv) -> ActionResult:
    list_uuid, phone = params.list_uuid, params.phone_number
    try:
        await env.cc.lists.get(list_uuid)
    except errors.NotFoundError:
        raise ActionRefused("The lead list no longer exists") from None
    if phone in await blocked_numbers(env.cc):
        raise ActionRefused(f"{phone} has been blacklisted since the request")
    body = LeadCreate.model_validate(
        {"list_uuid": list_uuid, "phone_number": phone, **params.fields}
    )
    created = await env.cc.leads.create(body)
    return ActionResult(
        ok=True,
        text=f"Lead *{clip(phone, 40)}* added: {code(created.lead_uuid)}.",
        data={"lead_uuid": created.lead_uuid},
    )


def fields_problem(fields: Mapping[str, str]) -> str | None:
    """Lead fields the service does not take, named (a workflow step's inputs)."""
    unknown = [k for k in fields if k not in LEAD_OPTIONAL_FIELDS]
    if unknown:
        return f"Unknown lead field {', '.join(unknown)}; use {', '.join(LEAD_OPTIONAL_FIELDS)}."
    return None


async def lead_proposal(
    cc: CallCenter, list_uuid: str, phone: str, fields: Mapping[str, str]
) -> Proposal | Reply:
    """The request to add one lead, after every check (the list exists, the number is not
    blacklisted), or the reply saying why not; typed commands and workflow steps alike."""
    try:
        lead_list = await cc.lists.get(list_uuid)
    except errors.NotFoundError:
        return notice(f"No lead list has the UUID {code(list_uuid)}.", emoji=":mag:")
    if phone in await blocked_numbers(cc):
        return error(f"{phone} is on the blacklist: it must not be called. Nothing was sent.")
    params = LeadParams(
        list_uuid=list_uuid,
        list_name=lead_list.list_name,
        phone_number=phone,
        fields={k: v for k, v in fields.items() if v},
    )
    return Proposal(ActionKind.LEAD_INSERT, params)


async def insert_lead(ctx: CommandContext, args: list[str]) -> Reply:
    # Every lead field is free text: ``lead_name=Nguyễn Văn An`` needs no quotes.
    positional, fields = split_options(args, spaced=ANY_KEY)
    if len(positional) < 2:
        raise UsageError(
            "Give the list UUID and the phone number; other fields as key=value.", usage_of("lead")
        )
    # The number however it was spaced out: 0912 345 678.
    list_uuid, phone = positional[0].strip(), normalize_phone("".join(positional[1:]))
    problem = list_uuid_problem(list_uuid) or phone_problem(phone)
    if problem:
        raise UsageError(problem, usage_of("lead"))
    check_keys(fields, LEAD_OPTIONAL_FIELDS, what="a lead field", usage=usage_of("lead"))
    fields = {k.lower(): v for k, v in fields.items()}
    proposal = await lead_proposal(ctx.client(), list_uuid, phone, fields)
    if isinstance(proposal, Reply):
        return proposal
    return await propose(ctx, proposal)


register(
    ActionSpec(
        kind=ActionKind.LEAD_INSERT,
        title="Add a lead",
        confirm_label="Add the lead",
        params=LeadParams,
        describe=describe_lead,
        execute=execute_lead,
        unknown_outcome="the lead may or may not have been added",
    )
)

HANDLERS = {"lead": insert_lead}
