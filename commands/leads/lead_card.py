"""``lead <lead_uuid>``: one lead as the service knows it, opened by its UUID.

Lead UUIDs appear on an autocall's result, an added lead's result and the call cards;
each of those places offers Open lead, and the UUID typed after ``lead`` opens the same
card.  A bare UUID is tried as a lead first (``GET /v3/lead/{uuid}``), then as a list
and a campaign, which keep their meaning for ``lead`` (the form that adds a lead to that
list).  The card shows only what the spec documents for a lead (section 2.7), with its
list and campaign one click away.  Anyone may open a lead (an agent reads the UUID off a
call card); adding one still needs an operator, so ``lead`` is a viewer's command that
refuses the insert to a viewer itself.
"""

from __future__ import annotations

import json

from pydantic import ValidationError
from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    HeaderBlock,
    SectionBlock,
)

from callcenter import errors
from callcenter.models import Lead
from commands.kernel.context import CommandContext
from commands.kernel.i18n import _, ngettext
from commands.kernel.interactions import OPEN_CAMPAIGN, Click
from commands.kernel.phones import show_phone
from commands.kernel.reply import Outcome, Reply, context_line, error, labelled, notice
from commands.kernel.service_words import lead_status_words
from commands.kernel.text import clip, code, day_time, escape, number, truncate
from commands.leads.insert import ADD_LEAD_ROLE, insert_lead
from commands.leads.lead_links import LeadRef, is_uuid
from commands.leads.lists import OPEN_LIST_BUTTON
from commands.rules.refusals import refused_button


def lead_card(lead: Lead, ctx: CommandContext) -> Reply:
    none_yet = _("none yet")
    name = lead.lead_name.strip() or show_phone(lead.phone_number) or _("Unnamed lead")
    calls = ngettext("{n} call", "{n} calls", lead.called_count).format(n=number(lead.called_count))
    fields = [
        (_("Phone"), escape(show_phone(lead.phone_number)) or "–"),
        (_("Status"), clip(lead_status_words(lead.alt_status or lead.status), 40) or "–"),
        (_("List"), clip(lead.list_name, 150) or code(lead.list_uuid) if lead.list_uuid else "–"),
        (_("Campaign"), clip(lead.campaign_name, 150) or "–"),
        (_("Calls made"), calls if lead.called_count else none_yet),
        (
            _("Last call"),
            day_time(lead.last_call_time, ctx.tz) if lead.last_call_time.strip() else none_yet,
        ),
        (_("Assigned to"), clip(lead.assign_username, 100) or _("nobody")),
    ]
    blocks: list[Block] = [
        HeaderBlock(text=truncate(_("Lead {name}").format(name=name), 150)),
        SectionBlock(fields=labelled(fields)),
    ]
    buttons: list[ButtonElement] = []
    if lead.list_uuid:
        buttons.append(
            ButtonElement(text=_("Open list"), action_id=OPEN_LIST_BUTTON, value=lead.list_uuid)
        )
    if lead.campaign_uuid:
        buttons.append(
            ButtonElement(
                text=_("Open campaign"), action_id=f"{OPEN_CAMPAIGN}_0", value=lead.campaign_uuid
            )
        )
    if is_uuid(lead.lead_uuid) and lead.phone_number.strip():
        buttons.append(refused_button(json.dumps({"l": lead.lead_uuid.strip().lower()})))
    if buttons:
        blocks.append(ActionsBlock(elements=buttons))
    added = day_time(lead.created_at, ctx.tz) if lead.created_at.strip() else "–"
    blocks.append(
        context_line(_("Added {created} · {uuid}").format(created=added, uuid=code(lead.lead_uuid)))
    )
    return Reply(text=_("Lead {name}").format(name=escape(truncate(name, 150))), blocks=blocks)


async def find_lead(ctx: CommandContext, lead_uuid: str) -> Lead | None:
    try:
        return await ctx.client().leads.get(lead_uuid)
    except errors.NotFoundError:
        return None


async def lead_command(ctx: CommandContext, args: list[str]) -> Outcome:
    """A bare UUID is a lead if the service has one by it, for anyone; anything else,
    and a UUID that is no lead, is ``lead``'s insert (a list's or a campaign's UUID opens
    its form), for those who may add leads."""
    if len(args) == 1 and is_uuid(args[0]):
        lead = await find_lead(ctx, args[0].strip().lower())
        if lead is not None:
            return lead_card(lead, ctx)
    if not ctx.role.at_least(ADD_LEAD_ROLE):
        # Only a viewer gets here (adding needs an operator).
        return error(
            _(
                "Adding a lead needs the operator role; you are a viewer. An admin can change "
                "that with /callops role @you operator. A lead's UUID alone opens the lead: "
                "{command}."
            ).format(command=code("/callops lead <lead_uuid>"))
        )
    return await insert_lead(ctx, args)


async def open_lead_clicked(ctx: CommandContext, click: Click) -> Outcome:
    """Open lead on any card: the lead's card, as a new message."""
    try:
        ref = LeadRef(lead_uuid=click.value)
    except ValidationError:
        return notice(_("This button is out of date; run the command again."), emoji=":warning:")
    lead = await find_lead(ctx, ref.lead_uuid)
    if lead is None:
        return notice(
            _("No lead has the UUID {uuid} any more.").format(uuid=code(ref.lead_uuid)),
            emoji=":mag:",
        )
    return lead_card(lead, ctx)
