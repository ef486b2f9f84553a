"""The message shortcut "Call back with callops": call a number someone wrote.

On a message such as "Khách hàng gọi lại số 0912 345 678 nhé", the shortcut finds the
numbers the service would accept (``find_phones``) and opens the autocall form, the very
one ``/callops autocall`` opens, with the number filled in.  With one autocall campaign
and one number the form opens straight away; otherwise a first view asks which campaign
(and which number), and choosing replaces it with the form.  Submitting the form is the
autocall form's submission: the same checks, request and approval.

A trigger id lives 3 seconds and finding the campaigns asks the service, so the modal
opens at once with "Looking up…" and is filled in when the answer is there.
"""

from __future__ import annotations

import json
from typing import Annotated

from pydantic import StringConstraints
from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    Option,
    OptionGroup,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from callcenter import CallCenter
from callcenter.models import Campaign
from commands.calls.autocall import autocall_modal, fields_of, template_of
from commands.kernel.context import CommandContext
from commands.kernel.i18n import _
from commands.kernel.interactions import Click, Shortcut
from commands.kernel.modals import modal
from commands.kernel.phones import find_phones, rule_words, show_phone
from commands.kernel.reply import OpenModal, Outcome, UpdateModal, context_line, error, section
from commands.kernel.resolve import all_campaigns
from commands.kernel.text import clip, truncate
from commands.kernel.values import Token, Value, read
from commands.rules.refusals import phone_button

CALL_BACK_SHORTCUT = "call_back"
PICK_CALLBACK = "call_back_pick"
PICK_ACTION = "call_back_pick"
MAX_PHONES = 5
MAX_OPTIONS = 100


def _modal(text: str) -> View:
    return modal(
        PICK_CALLBACK,
        _("Call back"),
        [section(text)],
        close=_("Close"),
    )


def _option(campaign: Campaign, phone: str) -> Option:
    value = json.dumps({"c": campaign.campaign_uuid, "p": phone}, separators=(",", ":"))
    return Option(value=value, label=truncate(campaign.campaign_name, 75))


def pick_view(phones: list[str], campaigns: list[Campaign], channel: str | None) -> View:
    """Which campaign calls, and (with several numbers in the message) which number."""
    phones = phones[:MAX_PHONES]
    per_phone = max(1, MAX_OPTIONS // len(phones))
    element: StaticSelectElement
    if len(phones) == 1:
        element = StaticSelectElement(
            action_id=PICK_ACTION,
            placeholder=_("Choose the autocall campaign"),
            options=[_option(c, phones[0]) for c in campaigns[:MAX_OPTIONS]],
        )
    else:
        element = StaticSelectElement(
            action_id=PICK_ACTION,
            placeholder=_("Choose the number and the campaign"),
            option_groups=[
                OptionGroup(
                    label=show_phone(phone),
                    options=[_option(c, phone) for c in campaigns[:per_phone]],
                )
                for phone in phones
            ],
        )
    numbers = ", ".join(f"*{clip(show_phone(p), 40)}*" for p in phones)
    blocks: list[Block] = [
        section(_("Call back {numbers} from which campaign?").format(numbers=numbers)),
        ActionsBlock(block_id="call_back_choice", elements=[element]),
        context_line(
            _(
                "Next comes the autocall form, with the number filled in; nothing "
                "is called before you submit it."
            )
        ),
    ]
    return modal(PICK_CALLBACK, _("Call back"), blocks, meta={"channel": channel or ""})


async def form_for(cc: CallCenter, campaign: Campaign, phone: str, channel: str | None) -> View:
    template = await template_of(cc, campaign)
    names = fields_of(template)
    return autocall_modal(campaign, template, names, phone=phone, given={}, channel=channel)


async def _first_view(cc: CallCenter, phones: list[str], channel: str | None) -> View:
    autocalls = [c for c in await all_campaigns(cc) if c.type == "autocall"]
    if not autocalls:
        view = _modal(
            _(
                ":warning: There is no autocall campaign to call from. An admin can make one in "
                "the call-center service; `/callops campaigns autocall` lists them."
            )
        )
    elif len(autocalls) == 1 and len(phones) == 1:
        view = await form_for(cc, autocalls[0], phones[0], channel)
    else:
        running = [c for c in autocalls if c.status in ("start", "running")]
        others = [c for c in autocalls if c not in running]
        view = pick_view(phones, running + others, channel)
    # A customer who said no on the phone is recorded here too, instead of called back.
    shown = phones[:MAX_PHONES]
    buttons = [
        await phone_button(
            cc,
            phone,
            label=_("{phone}: customer refused further calls").format(
                phone=clip(show_phone(phone), 30)
            )
            if len(shown) > 1
            else None,
        )
        for phone in shown
    ]
    view.blocks = [*view.blocks, ActionsBlock(block_id="call_back_refused", elements=buttons)]
    return view


async def call_back(ctx: CommandContext, shortcut: Shortcut) -> Outcome:
    phones = find_phones(shortcut.message_text)
    if not phones:
        return error(
            _(
                "I found no phone number in that message that the service would call ({rule})."
            ).format(rule=rule_words())
        )
    cc = ctx.client()
    channel = shortcut.channel_id or ctx.channel_id

    async def fill() -> View:
        return await _first_view(cc, phones, channel)

    loading = _modal(
        _(":mag: Looking up the autocall campaigns for *{phone}*…").format(
            phone=clip(show_phone(phones[0]), 40)
        )
    )
    return OpenModal(loading, fill=fill)


class CallBackChoice(Value):
    """What a campaign button of the call-back picker carries: the campaign and the number."""

    c: Token
    p: Annotated[str, StringConstraints(min_length=1, max_length=100)]


async def picked(ctx: CommandContext, click: Click) -> Outcome:
    """A campaign (and number) was chosen: the same modal becomes the autocall form."""
    chosen = read(CallBackChoice, click.value)
    uuid, phone = chosen.c, chosen.p
    cc = ctx.client()
    campaign = next((c for c in await all_campaigns(cc) if c.campaign_uuid == uuid), None)
    if campaign is None:
        return UpdateModal(_modal(_(":warning: That campaign no longer exists.")))
    return UpdateModal(await form_for(cc, campaign, phone, ctx.channel_id))
