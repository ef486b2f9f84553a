"""``autocall <campaign> <phone> [key=value ...]``: push one automated call.

The values fill the ``{{placeholders}}`` of the campaign's text-to-speech template; a
recorded (audio) template needs none.  With the number or a value missing, a form opens
whose fields are exactly the template's placeholders, each with the service's reading
rules as a hint (spec 4.5), so nobody has to remember how ``150000`` is spoken.  The
number is checked with the service's pattern and against its blacklist before anything
is asked for; a blocked number is refused outright.  A push into a paused or stopped
campaign is accepted by the service, but it is rarely what was meant: the prompt and the
approval card say so plainly, with how to start the campaign.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import Field, StringConstraints
from slack_sdk.models.blocks import (
    Block,
    ButtonElement,
    InputBlock,
    PlainTextInputElement,
)
from slack_sdk.models.views import View

from callcenter import CallCenter, errors
from callcenter.models import Campaign, Template
from commands.approvals.cards import propose
from commands.calls.preview import (
    Preview,
    ValueRefused,
    preview,
    preview_mrkdwn,
    read_values,
    value_problems,
)
from commands.calls.records import find_records_button
from commands.calls.speech import calendar_date
from commands.campaigns.control import is_running
from commands.directory.listings import placeholders
from commands.kernel.actions import (
    ActionParams,
    ActionRefused,
    ActionResult,
    ExecutionEnv,
    Proposal,
)
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.formats import money, write_date
from commands.kernel.forms import text
from commands.kernel.grammar import ANY_KEY, UsageError, split_options
from commands.kernel.i18n import N_, _, current_language, pgettext
from commands.kernel.interactions import FormValues, Meta
from commands.kernel.matching import alternatives, fold, suggest
from commands.kernel.modals import modal
from commands.kernel.phones import blocked_numbers, normalize_phone, phone_problem, show_phone
from commands.kernel.reply import OpenModal, Outcome, Reply, context_line, error, section
from commands.kernel.resolve import all_campaigns, is_phone_like, leading_campaign, pick_campaign
from commands.kernel.service_words import campaign_type_words
from commands.kernel.text import clip, code, escape, truncate
from commands.kernel.values import Metadata, Token, compact_json, read_metadata
from commands.leads.lead_links import is_uuid, open_lead_button
from commands.rules.evidence import Evidence, log_decision
from commands.rules.guard import REFUSED_ACTION, Decision, decide, decree, is_advertising
from storage import Approval, Storage
from storage.offload import off_loop

AUTOCALL_KIND = "autocall.push"
"""The kind of action declared in this family's ``FAMILY``."""

AUTOCALL_CALLBACK = "autocall_form"
LOCK_SWEEP_EVERY = 100
"""Every so many placed advertising calls, the numbers' stale lock rows are dropped."""
PHONE_BLOCK = "phone"
PARAM_BLOCK = "param:"
"""Each placeholder's input is the block ``param:<name>``."""
MAX_FIELDS = 40
MAX_BLOCK_ID = 255
MAX_METADATA = 3000
"""Slack's limits on a block id and on a view's ``private_metadata``."""

READING_RULES = N_(
    "How values are spoken: plain digits are read as an amount (150000); digits separated "
    "by spaces one by one (0 9 1 2); a value starting with # as a number (#15); dates as "
    "dd/mm/yyyy or yyyy-mm-dd."
)
_HINTS = (
    (("amount", "money", "price", "total", "fee", "balance"), N_("Read as an amount: 150000.")),
    (("otp", "code", "pin", "digit"), N_("Read digit by digit: write them apart, 4 8 1 5.")),
    (("date", "day", "due", "deadline"), N_("A date: dd/mm/yyyy or yyyy-mm-dd.")),
    (("time", "hour"), N_("Written as it should be spoken, e.g. 9 giờ 30.")),
    (("number", "no", "count", "qty"), N_("A number read as such: start it with #, e.g. #15.")),
)


_WORD_BREAK = re.compile(r"[_\-\s.]+|(?<=[a-z0-9])(?=[A-Z])")


def _common_label(key: str) -> str | None:
    """The label of a placeholder most templates have, in the reader's language."""
    labels = {
        "name": pgettext("template placeholder", "Name"),
        "amount": pgettext("template placeholder", "Amount"),
        "due date": pgettext("template placeholder", "Due date"),
        "date": pgettext("template placeholder", "Date"),
        "time": pgettext("template placeholder", "Time"),
        "phone": pgettext("template placeholder", "Phone number"),
        "code": pgettext("template placeholder", "Code"),
        "otp": pgettext("template placeholder", "OTP"),
    }
    return labels.get(COMMON_PLACEHOLDERS.get(key, ""))


COMMON_PLACEHOLDERS = {
    **dict.fromkeys(("name", "customer name", "full name", "lead name", "ten", "ho ten"), "name"),
    **dict.fromkeys(("amount", "money", "total", "so tien", "tien"), "amount"),
    **dict.fromkeys(("due date", "due", "deadline", "han", "ngay het han"), "due date"),
    **dict.fromkeys(("date", "day", "ngay"), "date"),
    **dict.fromkeys(("time", "hour", "gio"), "time"),
    **dict.fromkeys(("phone", "phone number", "sdt", "so dien thoai"), "phone"),
    **dict.fromkeys(("code", "pin", "ma"), "code"),
    **dict.fromkeys(("otp", "otp code", "ma otp"), "otp"),
}
"""Placeholder names (folded, words apart) of the common values, to their label."""


def field_label(name: str) -> str:
    """A placeholder as a person names it (plain text, for a form's label): the common
    ones by what they hold, in the reader's language (``due_date`` is "Due date", "Ngày
    đến hạn"); another, in English, from its words (``contractNo`` is "Contract no"), and
    for a Vietnamese reader as the template writes it, which is what they know it by."""
    words = [w if len(w) > 1 and w.isupper() else w.lower() for w in _WORD_BREAK.split(name) if w]
    common = _common_label(fold(" ".join(words)))
    if common is not None:
        return common
    if current_language() != "en":
        return name
    label = " ".join(words)
    return label[:1].upper() + label[1:] if label else name


def shown_value(name: str, value: str) -> str:
    """A value as the card shows it (escaped): plain digits in an amount's placeholder are
    read out as an amount, so the card also writes them as money (``150000 (150.000 ₫)``)
    for the approver to see a stray zero."""
    text = clip(value, 200)
    amount = value.strip()
    lowered = name.lower()
    if amount.isdigit() and len(amount) <= 15 and any(w in lowered for w in _HINTS[0][0]):
        return f"{text} ({escape(money(int(amount)))})"
    written = calendar_date(amount)
    if written is not None:  # a date the service reads, written as the reader writes one
        return escape(write_date(written))
    return text


def hint_for(name: str) -> str:
    """The reading rule that most likely applies to a placeholder, by its name."""
    lowered = name.lower()
    for words, hint in _HINTS:
        if any(word in lowered for word in words):
            return f"{_(hint)} {_(READING_RULES)}"[:2000]
    return _(READING_RULES)


async def template_of(cc: CallCenter, campaign: Campaign) -> Template | None:
    if not campaign.template_uuid:
        return None
    async for template in cc.templates.iterate(page_size=100):
        if template.template_uuid == campaign.template_uuid:
            return template
    return None


def fields_of(template: Template | None) -> list[str]:
    """The values a push must give: a TTS template's placeholders; none for audio."""
    if template is None or template.voice_type != "tts":
        return []
    return placeholders(template)


def _fitting(meta: dict[str, Any], names: list[str]) -> list[str]:
    """The placeholders the form can hold: at most ``MAX_FIELDS``, each short enough for a
    block id (255), all of them within the 3,000 characters of ``private_metadata``."""
    kept: list[str] = []
    for name in names[:MAX_FIELDS]:
        if len(PARAM_BLOCK + name) > MAX_BLOCK_ID:
            continue
        meta["names"] = [*kept, name]
        if len(compact_json(meta)) > MAX_METADATA:
            break
        kept.append(name)
    meta["names"] = kept
    return kept


def missing_values(names: list[str], given: Mapping[str, str]) -> list[str]:
    return [n for n in names if not str(given.get(n) or "").strip()]


def autocall_modal(
    campaign: Campaign,
    template: Template | None,
    names: list[str],
    *,
    phone: str,
    given: Mapping[str, str],
    channel: str | None,
) -> View:
    meta: dict[str, Any] = {
        "campaign_uuid": campaign.campaign_uuid,
        "campaign_name": truncate(campaign.campaign_name, 150),
        "template_name": truncate(template.template_name if template else "", 150),
        "names": [],
        "channel": channel or "",
    }
    offered = _fitting(meta, names)
    left_out = len(names) - len(offered)
    names = offered
    heading = (
        _("Push one automated call from *{campaign}* with template *{template}*.").format(
            campaign=clip(campaign.campaign_name, 150), template=clip(template.template_name, 150)
        )
        if template
        else _("Push one automated call from *{campaign}*.").format(
            campaign=clip(campaign.campaign_name, 150)
        )
    )
    blocks: list[Block] = [
        section(heading),
        InputBlock(
            block_id=PHONE_BLOCK,
            label=_("Customer's phone number"),
            element=PlainTextInputElement(
                action_id=PHONE_BLOCK, initial_value=phone or None, placeholder="0912345678"
            ),
            hint=_(
                "10 digits starting 03, 05, 07, 08 or 09 (or 84…). Blocked numbers are refused."
            ),
        ),
    ]
    warning = not_running_warning(campaign.campaign_name, campaign.status)
    if warning:
        blocks.append(context_line(warning))
    missing = missing_values(names, given)
    if names and missing and len(missing) < len(names):
        named = ", ".join(f"*{escape(field_label(n))}*" for n in missing[:20])
        still = _("Still needed: {fields}").format(fields=named)
        blocks.append(context_line(still))
    for name in names[:MAX_FIELDS]:
        blocks.append(
            InputBlock(
                block_id=PARAM_BLOCK + name,
                label=truncate(field_label(name), 2000),
                element=PlainTextInputElement(
                    action_id=PARAM_BLOCK + name, initial_value=str(given.get(name) or "") or None
                ),
                hint=hint_for(name),
            )
        )
    if left_out:
        blocks.append(
            context_line(
                _(
                    "The template has {n} more placeholders than this form "
                    "can hold; they are sent empty."
                ).format(n=left_out)
            )
        )
    if not names:
        blocks.append(
            context_line(_("This campaign plays a recorded message: it needs no values."))
        )
    return modal(
        AUTOCALL_CALLBACK,
        _("Push an autocall"),
        blocks,
        submit=_("Push the call"),
        meta=meta,
    )


class AutocallParams(ActionParams):
    """One automated call: the campaign, the number, and a value for each of the
    template's placeholders (none for a recording)."""

    OMIT_WHEN_NONE = frozenset({"campaign_status", "spoken", "brand_missing"})

    campaign_uuid: str
    campaign_name: str = ""
    template_name: str = ""
    phone_number: str
    param: dict[str, str] = Field(default_factory=dict)
    campaign_status: str | None = None
    """The campaign's status when the push was asked for (for the card's warning)."""
    spoken: str | None = None
    """What the customer will hear: the template's text with the values read as the
    service reads them (None for a recording, or a request made before previews)."""
    brand_missing: str | None = None
    """The registered brand name an advertising call's first sentence does not say
    (``rules brand``): the preview and the card warn, the call is not refused."""


def not_running_warning(campaign_name: str, status: str, *, asked: bool = False) -> str | None:
    """Escaped mrkdwn warning that the campaign is paused or stopped, and how to start it;
    None while it runs.  ``asked``: the status is the one seen when the call was asked for
    (a request's card outlives it), and the warning says so."""
    if is_running(status):
        return None
    quoted = f'"{campaign_name}"' if " " in campaign_name else campaign_name
    paused = status == "pause"
    if asked:
        message = (
            _(
                ":warning: *{campaign}* was paused when asked. The service takes this one call "
                "anyway, but the campaign itself does not dial. To start it: {command}."
            )
            if paused
            else _(
                ":warning: *{campaign}* was stopped when asked. The service takes this one call "
                "anyway, but the campaign itself does not dial. To start it: {command}."
            )
        )
    else:
        message = (
            _(
                ":warning: *{campaign}* is paused. The service takes this one call "
                "anyway, but the campaign itself does not dial. To start it: {command}."
            )
            if paused
            else _(
                ":warning: *{campaign}* is stopped. The service takes this one call "
                "anyway, but the campaign itself does not dial. To start it: {command}."
            )
        )
    return message.format(
        campaign=clip(campaign_name, 150),
        command=code("/callops start " + truncate(quoted, 150)),
    )


def describe_autocall(params: AutocallParams) -> str:
    phone, campaign = clip(show_phone(params.phone_number), 40), clip(params.campaign_name, 150)
    lines = [
        _("Call *{phone}* now from autocall campaign *{campaign}* (template *{template}*).").format(
            phone=phone, campaign=campaign, template=clip(params.template_name, 150)
        )
        if params.template_name
        else _("Call *{phone}* now from autocall campaign *{campaign}*.").format(
            phone=phone, campaign=campaign
        )
    ]
    values = params.param
    for name, value in list(values.items())[:25]:
        lines.append(f"• {escape(field_label(name))}: {shown_value(name, value)}")
    if not values:
        lines.append(_("No values: the template is a recording."))
    if params.spoken is not None or not values:
        try:
            readings = read_values(values)
        except ValueRefused:
            readings = {}
        lines.append(preview_mrkdwn(Preview(params.spoken, readings, dict(values))))
    if params.brand_missing:
        lines.append(brand_warning(params.brand_missing))
    if params.campaign_status is not None:
        warning = not_running_warning(params.campaign_name, params.campaign_status, asked=True)
        if warning:
            lines.append(warning)
    return "\n".join(lines)


async def execute_autocall(params: AutocallParams, env: ExecutionEnv) -> ActionResult:
    uuid, phone = params.campaign_uuid, params.phone_number
    try:
        campaign = await env.cc.campaigns.get(uuid)
    except errors.NotFoundError:
        raise ActionRefused(_("The campaign no longer exists")) from None
    if env.storage is None:
        if phone in await blocked_numbers(env.cc):
            raise ActionRefused(
                _("{phone} has been blacklisted since the request").format(phone=show_phone(phone))
            )
        result = await env.cc.autocall.push(uuid, phone, dict(params.param))
        return _placed(phone, result.call_id, result.lead_uuid)
    # The rules hold when the call is placed, not only when it was asked for: an
    # approval may come after the hours, or after another call to the number.  An
    # advertising call holds its place in the 24-hour window before the service is
    # called, so approvals clicked at once cannot both take the last place.
    storage = env.storage
    decision = await decide(
        env.cc, storage, env.team_id, campaign, phone, datetime.now(UTC), reader=env.tz, claim=True
    )
    evidence = Evidence(env.request_id, env.requester, env.approvers)
    if decision.refusal is not None:
        await _log_refusal(storage, env.team_id, env.requester, decision, evidence)
        raise ActionRefused(decision.refusal.message)
    try:
        result = await env.cc.autocall.push(uuid, phone, dict(params.param))
    except BaseException as exc:
        # The place is given back only when the service said it did not take the call;
        # when the answer was lost the call may be ringing, and it keeps its place.
        if not surely_not_placed(exc):
            await log_decision(storage, env.team_id, decision, "unknown", evidence)
            raise
        if decision.slot is not None:
            await off_loop(storage.calling_rules.release_slot, env.team_id, decision.slot)
        await log_decision(storage, env.team_id, decision, "failed", evidence)
        raise
    if decision.slot is not None and decision.slot % LOCK_SWEEP_EVERY == 0:
        await off_loop(storage.calling_rules.forget_locks, env.team_id)
    await log_decision(storage, env.team_id, decision, "placed", evidence)
    return _placed(phone, result.call_id, result.lead_uuid)


def surely_not_placed(exc: BaseException) -> bool:
    """Whether a failed push certainly placed no call: the service answered with a
    refusal (4xx).  A lost answer, a timeout, a 5xx or a body that did not parse may hide
    a call that was placed."""
    return (
        isinstance(exc, errors.APIStatusError)
        and not isinstance(exc, errors.UnexpectedResponseError)
        and exc.status_code is not None
        and 400 <= exc.status_code < 500
    )


def _placed(phone: str, call_id: str, lead_uuid: str) -> ActionResult:
    return ActionResult(
        ok=True,
        text=_("Call placed to *{phone}*: call {call}, lead {lead}.").format(
            phone=clip(show_phone(phone), 40), call=code(call_id), lead=code(lead_uuid)
        ),
        data={"call_id": call_id, "lead_uuid": lead_uuid},
    )


async def _log_refusal(
    storage: Storage,
    team_id: str,
    user_id: str | None,
    decision: Decision,
    evidence: Evidence,
) -> None:
    """A call the calling rules stopped: audited (digests count it from there) and, for
    an advertising call, kept in the gate's log."""
    refused = decision.refusal
    if refused is None:
        return
    await off_loop(
        storage.audit.append,
        team_id,
        user_id,
        REFUSED_ACTION,
        {
            "campaign_uuid": decision.campaign.campaign_uuid,
            "rule": refused.rule,
            "phone": decision.phone,
        },
        outcome="refused",
    )
    await log_decision(storage, team_id, decision, "refused", evidence)


async def refusal(
    ctx: CommandContext,
    campaign: Campaign,
    phone: str,
    campaigns: list[Campaign] | None = None,
) -> Reply | None:
    """Why the number must not be called now (the service's rule, its blacklist, the
    do-not-call list, the hours and frequency of advertising calls), or None."""
    problem = phone_problem(phone)
    if problem:
        return error(problem, usage_of("autocall"))
    cc = ctx.client()
    decision = await decide(
        cc,
        ctx.storage,
        ctx.team_id,
        campaign,
        phone,
        datetime.now(UTC),
        reader=ctx.tz,
        campaigns=campaigns,
    )
    if decision.refusal is None:
        return None
    await _log_refusal(
        ctx.storage, ctx.team_id, ctx.user_id, decision, Evidence(requester=ctx.user_id)
    )
    return error(decision.refusal.message + " " + _("Nothing was sent."))


_SENTENCE_END = re.compile(r"[.!?…\n]")


def first_sentence(text: str) -> str:
    return _SENTENCE_END.split(text.strip(), maxsplit=1)[0]


def names_brand(spoken: str | None, brand: str | None) -> bool:
    """Whether the first sentence of what the customer hears says ``brand`` (compared
    folded); a recording cannot be read, so it is not held against it."""
    if not brand or spoken is None:
        return True
    return fold(brand) in fold(first_sentence(spoken))


def brand_warning(brand: str) -> str:
    return _(
        ":warning: Brand name ({decree}): the first sentence of this advertising call does "
        "not say the registered brand name *{brand}*; callers should say who they are "
        "before anything else."
    ).format(decree=decree(), brand=clip(brand, 80))


async def brand_to_say(ctx: CommandContext, campaign: Campaign) -> str | None:
    """The registered brand an advertising call from ``campaign`` should say first
    (None: no brand set, or not an advertising campaign)."""
    rules = await off_loop(ctx.storage.calling_rules.rules, ctx.team_id)
    return rules.brand if rules.brand and is_advertising(campaign, rules) else None


def push_proposal(
    campaign: Campaign,
    template: Template | None,
    phone: str,
    values: dict[str, str],
    *,
    brand: str | None = None,
) -> Proposal:
    said = preview(template, values)
    return Proposal(
        AUTOCALL_KIND,
        AutocallParams(
            campaign_uuid=campaign.campaign_uuid,
            campaign_name=campaign.campaign_name,
            template_name=template.template_name if template else "",
            phone_number=phone,
            param=values,
            campaign_status=campaign.status,
            spoken=said.text,
            brand_missing=None if names_brand(said.text, brand) else brand,
        ),
    )


def not_autocall(campaign: Campaign) -> Reply | None:
    if campaign.type == "autocall":
        return None
    return error(
        _(
            "{campaign} is a {type} campaign; automated calls are "
            "pushed into autocall campaigns (`/callops campaigns autocall` lists them)."
        ).format(campaign=campaign.campaign_name, type=campaign_type_words(campaign.type))
    )


def check_values(campaign: Campaign, names: list[str], given: Mapping[str, str]) -> None:
    """Every value given must fill a placeholder of the template (``UsageError``)."""
    unknown = [k for k in given if k not in names]
    if unknown:
        wanted = ", ".join(names) if names else _("none (it plays a recording)")
        near = suggest(unknown[0], names, limit=2)
        message = (
            _(
                "The template of {campaign} has no placeholder {unknown}. "
                "Did you mean {near}? It uses: {wanted}."
            )
            if near
            else _("The template of {campaign} has no placeholder {unknown}. It uses: {wanted}.")
        )
        raise UsageError(
            message.format(
                campaign=campaign.campaign_name,
                unknown=", ".join(unknown),
                near=alternatives([n + "=" for n in near]) if near else "",
                wanted=wanted,
            ),
            # No usage of its own: the command that asked (autocall, listen) shows its.
        )


async def autocall_target(
    cc: CallCenter, campaigns: list[Campaign], query: str, given: Mapping[str, str]
) -> tuple[Campaign, Template | None, list[str]] | Reply:
    """The autocall campaign ``query`` names, its template and the values the template
    takes, the ``given`` ones checked against them; the refusal when the campaign does
    not place automated calls."""
    campaign = pick_campaign(campaigns, query)
    wrong_kind = not_autocall(campaign)
    if wrong_kind:
        return wrong_kind
    template = await template_of(cc, campaign)
    names = fields_of(template)
    check_values(campaign, names, given)
    return campaign, template, names


def value_needed(name: str) -> str:
    """A missing value, said where the field is not on screen (a workflow step)."""
    return _("The template needs a value for {label} ({name}=).").format(
        label=field_label(name).lower(), name=name
    )


async def autocall(ctx: CommandContext, args: list[str]) -> Outcome:
    # Every placeholder is free text: ``name=Nguyễn Văn An`` needs no quotes.
    positional, given = split_options(args, spaced=ANY_KEY)
    if not positional:
        raise UsageError(
            _("Give the campaign, then the phone number; values as name=value."),
            usage_of("autocall"),
        )
    cc = ctx.client()
    campaigns = await all_campaigns(cc)
    name, number_words = leading_campaign(positional, campaigns, ends_at=is_phone_like)
    target = await autocall_target(cc, campaigns, name, given)
    if isinstance(target, Reply):
        return target
    campaign, template, names = target
    try:
        read_values({n: v for n, v in given.items() if str(v).strip()})
    except ValueRefused as exc:
        raise UsageError(
            _("{field} ({name}=): {problem} Nothing was sent.").format(
                field=field_label(exc.name), name=exc.name, problem=exc.message
            ),
            usage_of("autocall"),
        ) from None
    # The rest is the number, however it was spaced out: 0912 345 678.
    phone = normalize_phone("".join(number_words))
    if not phone or missing_values(names, given):
        return OpenModal(
            autocall_modal(
                campaign, template, names, phone=phone, given=given, channel=ctx.channel_id
            )
        )
    refused = await refusal(ctx, campaign, phone, campaigns)
    if refused:
        return refused
    values = {n: str(given[n]) for n in names}
    brand = await brand_to_say(ctx, campaign)
    return await propose(ctx, push_proposal(campaign, template, phone, values, brand=brand))


class AutocallMeta(Metadata):
    """What the autocall form keeps in its metadata (``autocall_modal``)."""

    campaign_uuid: Token
    names: list[Annotated[str, StringConstraints(min_length=1, max_length=100)]] = Field(
        default_factory=list, max_length=100
    )


def check_form(values: FormValues, meta: Meta) -> dict[str, str]:
    problems: dict[str, str] = {}
    phone_issue = phone_problem(normalize_phone(text(values, PHONE_BLOCK)))
    if phone_issue:
        problems[PHONE_BLOCK] = phone_issue
    given: dict[str, str] = {}
    for name in read_metadata(AutocallMeta, meta).names:
        value = text(values, PARAM_BLOCK + str(name))
        if not value:
            problems[PARAM_BLOCK + str(name)] = _("The template needs this value.")
        else:
            given[str(name)] = value
    for name, problem in value_problems(given).items():
        problems[PARAM_BLOCK + name] = problem
    return problems


async def build_form(ctx: CommandContext, values: FormValues, meta: Meta) -> Proposal | Reply:
    phone = normalize_phone(text(values, PHONE_BLOCK))
    form = read_metadata(AutocallMeta, meta)
    cc = ctx.client()
    try:
        campaign = await cc.campaigns.get(form.campaign_uuid)
    except errors.NotFoundError:
        return error(_("The campaign no longer exists. Nothing was asked."))
    refused = await refusal(ctx, campaign, phone)
    if refused:
        return refused
    template = await template_of(cc, campaign)
    given = {n: text(values, PARAM_BLOCK + n) for n in form.names}
    missing = missing_values(fields_of(template), given)
    if missing:
        return error(
            _(
                "The template of {campaign} changed since the form opened: it now "
                "also needs {missing}. Run the autocall again. Nothing was asked."
            ).format(campaign=campaign.campaign_name, missing=", ".join(missing))
        )
    return push_proposal(
        campaign,
        template,
        phone,
        {n: given[n] for n in fields_of(template)},
        brand=await brand_to_say(ctx, campaign),
    )


def autocall_follow_ups(approval: Approval) -> list[ButtonElement]:
    """A pushed call's result opens the lead the service made for it and the records of
    that campaign and number since the push."""
    result = approval.result if isinstance(approval.result, Mapping) else {}
    buttons: list[ButtonElement] = []
    lead = str(result.get("lead_uuid") or "")
    if is_uuid(lead):
        buttons.append(open_lead_button(lead))
    campaign = str(approval.params.get("campaign_uuid") or "")
    phone = str(approval.params.get("phone_number") or "")
    pushed_at = approval.executed_at or approval.decided_at
    if campaign and phone and pushed_at is not None:
        buttons.append(find_records_button(campaign, approval.id, pushed_at))
    return buttons
