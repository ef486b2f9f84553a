"""``lead <campaign|list_uuid> <phone> [key=value ...]``: one customer into a list.

One lead is one real person the dialer will call, so it is approved like an upload
(DESIGN.md).  The list is named by its UUID or by its campaign (the campaign's default
list, ``commands.leads.target``); the number (pattern and blacklist) and the field names
are checked before the request is made; the keys are the optional fields of
``POST /v3/lead``.  Without a number, and from the campaign card's Add lead button, a form
opens with the list already chosen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from datetime import UTC, datetime
from typing import Annotated

from pydantic import Field, StringConstraints
from slack_sdk.models.blocks import (
    ButtonElement,
    InputBlock,
    PlainTextInputElement,
)
from slack_sdk.models.views import View

from callcenter import errors
from callcenter.models import LEAD_OPTIONAL_FIELDS, LeadCreate, LeadList
from callcenter.rules import LIST_UUID_MIN_LENGTH, check_list_uuid
from commands.approvals.cards import propose
from commands.kernel.actions import (
    ActionParams,
    ActionRefused,
    ActionResult,
    ExecutionEnv,
    Proposal,
)
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.forms import text
from commands.kernel.grammar import ANY_KEY, UsageError, check_keys, split_options
from commands.kernel.i18n import N_, _
from commands.kernel.interactions import Click, FormValues, Meta
from commands.kernel.modals import modal
from commands.kernel.phones import (
    blocked_numbers,
    normalize_phone,
    phone_problem,
    rule_words,
    show_phone,
)
from commands.kernel.reply import OpenModal, Outcome, Reply, error, notice, section
from commands.kernel.resolve import is_phone_like
from commands.kernel.text import clip, code, truncate
from commands.kernel.values import Metadata, Token, Value, compact_json, read, read_metadata, token
from commands.leads.lead_links import is_uuid, open_lead_button
from commands.leads.target import find_list
from commands.rules.guard import dnc_for_list
from commands.rules.watch import list_warning, list_warning_note, with_warning
from storage import Approval, Role

INSERT_KIND = "lead.insert"
"""The kind of action declared in this family's ``FAMILY``."""

ADD_LEAD_BUTTON = "lead_list_add"
"""A lead list's Add lead button (on the campaign card); its value names the list."""
ADD_LEAD_ROLE = Role.OPERATOR
"""The least role that may use it (a card shows it only to them)."""
LEAD_CALLBACK = "lead_form"
PHONE_BLOCK = "phone"
FORM_FIELDS = ("lead_name", "contract_number")
"""The optional fields the form asks for; the typed command takes any of the service's."""
FIELD_LABELS = {
    "lead_name": N_("Customer's name"),
    "lead_code": N_("Lead code"),
    "contract_number": N_("Contract number"),
    "identity_number": N_("ID number"),
    "identity_issued_at": N_("ID issued at (place)"),
    "identity_issued_on": N_("ID issued on (date)"),
    "address": N_("Address"),
    "province": N_("Province"),
    "district": N_("District"),
    "ward": N_("Ward"),
    "date_of_birth": N_("Date of birth"),
    "additional": N_("Additional data"),
    "gender": N_("Gender"),
}
"""Each field of ``POST /v3/lead`` as a person names it (the form's labels, the card)."""


def list_uuid_problem(list_uuid: str) -> str | None:
    if check_list_uuid(list_uuid):
        return _("A list UUID has {length} characters; '{uuid}' has {typed}.").format(
            length=LIST_UUID_MIN_LENGTH, uuid=list_uuid[:60], typed=len(list_uuid)
        )
    return None


def list_button_value(lead_list: LeadList) -> str:
    """What Add lead carries: enough to show the form without asking the service first."""
    return compact_json(
        {"list_uuid": lead_list.list_uuid, "list_name": truncate(lead_list.list_name, 150)}
    )


class LeadFormMeta(Metadata):
    """What the lead form keeps in its metadata: the list."""

    list_uuid: Token


class ListButton(Value):
    """What Add lead carries (``list_button_value``)."""

    list_uuid: Token
    list_name: Annotated[str, StringConstraints(max_length=300)] = ""


def read_list_button(value: str) -> dict[str, str]:
    if not value.startswith("{"):  # a button posted before it carried the list's name
        return {"list_uuid": token(value), "list_name": ""}
    return read(ListButton, value).model_dump()


def lead_modal(list_uuid: str, list_name: str, channel: str | None, **given: str) -> View:
    """Phone number and the usual fields; the list is fixed (it was chosen to get here)."""
    meta = {"list_uuid": list_uuid, "list_name": truncate(list_name, 150), "channel": channel or ""}
    name = clip(list_name, 150) or code(list_uuid)
    inputs = [
        InputBlock(
            block_id=PHONE_BLOCK,
            label=_("Customer's phone number"),
            element=PlainTextInputElement(action_id=PHONE_BLOCK, placeholder="0912345678"),
            hint=_("{rule}. Blocked numbers are refused.").format(
                rule=rule_words()[:1].upper() + rule_words()[1:]
            ),
        )
    ]
    for field in FORM_FIELDS:
        inputs.append(
            InputBlock(
                block_id=field,
                label=_(FIELD_LABELS[field]),
                optional=True,
                element=PlainTextInputElement(
                    action_id=field, initial_value=given.get(field) or None
                ),
            )
        )
    return modal(
        LEAD_CALLBACK,
        _("Add a lead"),
        [
            section(
                _(
                    "Add one customer to the lead list *{name}*; the dialer will call "
                    "them.\nList {uuid}"
                ).format(name=name, uuid=code(list_uuid))
            ),
            *inputs,
        ],
        submit=_("Add the lead"),
        meta=meta,
    )


class LeadParams(ActionParams):
    """One lead: the list, the number and the optional fields of ``POST /v3/lead``."""

    list_uuid: str
    list_name: str = ""
    phone_number: str
    fields: dict[str, str] = Field(default_factory=dict)


def describe_lead(params: LeadParams) -> str:
    name = params.list_name or params.list_uuid
    lines = [
        _("Add *{phone}* to the lead list *{name}*; the dialer will call this number.").format(
            phone=clip(show_phone(params.phone_number), 40), name=clip(name, 150)
        )
    ]
    for key, value in list(params.fields.items())[:20]:
        # The key itself stands for a field the service added since.
        label = _(FIELD_LABELS[key]) if key in FIELD_LABELS else code(key)
        lines.append(f"• {label}: {clip(value, 200)}")
    lines.append(_("List {uuid}").format(uuid=code(params.list_uuid)))
    return "\n".join(lines)


async def execute_lead(params: LeadParams, env: ExecutionEnv) -> ActionResult:
    list_uuid, phone = params.list_uuid, params.phone_number
    try:
        await env.cc.lists.get(list_uuid)
    except errors.NotFoundError:
        raise ActionRefused(_("The lead list no longer exists")) from None
    if phone in await blocked_numbers(env.cc):
        raise ActionRefused(
            _("{phone} has been blacklisted since the request").format(phone=show_phone(phone))
        )
    dnc = await dnc_for_list(env.cc, env.storage, env.team_id, list_uuid)
    if dnc is not None and await dnc([phone]):
        raise ActionRefused(
            _("{phone} was put on the do-not-call list since the request").format(
                phone=show_phone(phone)
            )
        )
    body = LeadCreate.model_validate(
        {"list_uuid": list_uuid, "phone_number": phone, **params.fields}
    )
    created = await env.cc.leads.create(body)
    return ActionResult(
        ok=True,
        text=_("Lead *{phone}* added: {uuid}.").format(
            phone=clip(show_phone(phone), 40), uuid=code(created.lead_uuid)
        ),
        data={"lead_uuid": created.lead_uuid},
    )


def fields_problem(fields: Mapping[str, str]) -> str | None:
    """Lead fields the service does not take, named (a workflow step's inputs)."""
    unknown = [k for k in fields if k not in LEAD_OPTIONAL_FIELDS]
    if unknown:
        return _("Unknown lead field {fields}; use {known}.").format(
            fields=", ".join(unknown), known=", ".join(LEAD_OPTIONAL_FIELDS)
        )
    return None


async def lead_proposal(
    ctx: CommandContext, list_uuid: str, phone: str, fields: Mapping[str, str]
) -> Proposal | Reply:
    """The request to add one lead, after every check (the list exists, the number is not
    blacklisted, nor on the do-not-call list where an advertising campaign dials the
    list), or the reply saying why not; typed commands and workflow steps alike."""
    cc = ctx.client()
    try:
        lead_list = await cc.lists.get(list_uuid)
    except errors.NotFoundError:
        return notice(
            _("No lead list has the UUID {uuid}.").format(uuid=code(list_uuid)), emoji=":mag:"
        )
    if phone in await blocked_numbers(cc):
        return error(
            _("{phone} is on the blacklist: it must not be called. Nothing was sent.").format(
                phone=show_phone(phone)
            )
        )
    dnc = await dnc_for_list(cc, ctx.storage, ctx.team_id, list_uuid)
    if dnc is not None and await dnc([phone]):
        return error(
            _(
                "{phone} is on the do-not-call list: it must not be called. Nothing was sent."
            ).format(phone=show_phone(phone))
        )
    params = LeadParams(
        list_uuid=list_uuid,
        list_name=lead_list.list_name,
        phone_number=phone,
        fields={k: v for k, v in fields.items() if v},
    )
    return Proposal(INSERT_KIND, params)


async def insert_lead(ctx: CommandContext, args: list[str]) -> Outcome:
    # Every lead field is free text: ``lead_name=Nguyễn Văn An`` needs no quotes.
    positional, fields = split_options(args, spaced=ANY_KEY)
    if not positional:
        raise UsageError(
            _(
                "Give the campaign (or the list UUID) and the phone number; "
                "other fields as key=value."
            ),
            usage_of("lead"),
        )
    check_keys(fields, LEAD_OPTIONAL_FIELDS, what=_("a lead field"), usage=usage_of("lead"))
    fields = {k.lower(): v for k, v in fields.items()}
    if not any(is_phone_like(w) for w in positional[1:]) and any(
        k not in FORM_FIELDS for k in fields
    ):
        raise UsageError(
            _("The phone number is missing (the form asks only for a name and a contract)."),
            usage_of("lead"),
        )
    cc = ctx.client()
    found, rest = await find_list(cc, positional, ends_at=is_phone_like)
    if isinstance(found, Reply):
        return found
    # The rest is the number, however it was spaced out: 0912 345 678.
    phone = normalize_phone("".join(rest))
    problem = phone_problem(phone) if phone else None
    if problem:
        raise UsageError(problem, usage_of("lead"))
    lead_list = found.lead_list
    if not phone:
        return OpenModal(
            lead_modal(
                lead_list.list_uuid,
                lead_list.list_name,
                ctx.channel_id,
                **{k: v for k, v in fields.items() if k in FORM_FIELDS},
            )
        )
    proposal = await lead_proposal(ctx, lead_list.list_uuid, phone, fields)
    if isinstance(proposal, Reply):
        return proposal
    outcome = await propose(ctx, proposal)
    warning = await list_warning(
        cc, ctx.storage, ctx.team_id, lead_list.list_uuid, datetime.now(UTC)
    )
    return with_warning(outcome, warning)


def check_form(values: FormValues, meta: Meta) -> dict[str, str]:
    problem = phone_problem(normalize_phone(text(values, PHONE_BLOCK)))
    return {PHONE_BLOCK: problem} if problem else {}


async def build_form(ctx: CommandContext, values: FormValues, meta: Meta) -> Proposal | Reply:
    list_uuid = read_metadata(LeadFormMeta, meta).list_uuid
    phone = normalize_phone(text(values, PHONE_BLOCK))
    fields = {f: text(values, f) for f in FORM_FIELDS}
    proposal = await lead_proposal(ctx, list_uuid, phone, fields)
    if isinstance(proposal, Reply):
        return proposal
    now = datetime.now(UTC)
    note = await list_warning_note(ctx.client(), ctx.storage, ctx.team_id, list_uuid, now)
    return replace(proposal, prompt_note=note) if note else proposal


def lead_follow_ups(approval: Approval) -> list[ButtonElement]:
    """An added lead's result opens the lead."""
    result = approval.result if isinstance(approval.result, Mapping) else {}
    lead = str(result.get("lead_uuid") or "")
    return [open_lead_button(lead)] if is_uuid(lead) else []


# ``lead`` is answered by ``commands.leads.lead_card``: it opens a lead by its UUID and
# hands everything else to ``insert_lead``.


async def add_lead_clicked(ctx: CommandContext, click: Click) -> Outcome:
    """Add lead on a campaign card: the form at once (the trigger id lives 3 seconds)."""
    chosen = read_list_button(click.value)
    return OpenModal(lead_modal(chosen["list_uuid"], chosen["list_name"], ctx.channel_id))
