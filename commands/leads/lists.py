"""``list <list_uuid>``: a lead list's totals, the numbers a supervisor checks after an upload;
and the lead-list part of a campaign card, where the list's UUID can be found.

The UUID length is checked here with the service's own rule (``callcenter.rules``) so a
mistyped UUID is answered at once with what is wrong, not with the service's
"not found" after a round trip.
"""

from __future__ import annotations

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    HeaderBlock,
    SectionBlock,
)

from callcenter import errors
from callcenter.models import LeadList
from callcenter.rules import LIST_UUID_MIN_LENGTH, check_list_uuid
from commands.kernel.call_words import status_words
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError
from commands.kernel.i18n import _, ngettext
from commands.kernel.interactions import Click
from commands.kernel.names import person_name
from commands.kernel.reply import Outcome, Reply, Rerun, context_line, labelled, notice, section
from commands.kernel.text import (
    clip,
    code,
    day_time,
    escape,
    number,
    ratio_percent,
    truncate,
)
from commands.kernel.values import token
from commands.leads.insert import ADD_LEAD_BUTTON, ADD_LEAD_ROLE, list_button_value
from commands.leads.upload import UPLOAD_LEADS_BUTTON, UPLOAD_LEADS_ROLE
from storage import Role

OPEN_LIST_BUTTON = "lead_list_open"
"""A lead list's Open list button (on the campaign card): ``list <uuid>``."""


def list_card(lead_list: LeadList, ctx: CommandContext) -> Reply:
    name = lead_list.list_name or _("Unnamed list")
    owner = person_name(lead_list.lastname, lead_list.middlename, lead_list.firstname)
    owner_text = clip(owner or lead_list.username, 100) or "–"
    failed = lead_list.total_fail
    fail_icon = ":warning: " if failed else ""
    uploaded = lead_list.total_upload > 0
    none_yet = _("none yet")
    fields = [
        (_("Leads"), f"*{number(lead_list.total_leads)}*"),
        (_("Campaign"), clip(lead_list.campaign_name, 150) or "–"),
        (_("Uploaded"), number(lead_list.total_upload) if uploaded else none_yet),
        (
            _("Imported"),
            f"{number(lead_list.total_success)} "
            f"({ratio_percent(lead_list.total_success, lead_list.total_upload)})"
            if uploaded
            else none_yet,
        ),
        (
            _("Failed"),
            f"{fail_icon}{number(failed)} ({ratio_percent(failed, lead_list.total_upload)})"
            if uploaded
            else none_yet,
        ),
        (
            _("Active"),
            _(":large_green_circle: yes") if lead_list.active else _(":white_circle: no"),
        ),
        (_("Reset time"), day_time(lead_list.reset_time, ctx.tz)),
        (_("Owner"), owner_text),
    ]
    if lead_list.recall_status:
        redial = ", ".join(clip(status_words(s).lower(), 30) for s in lead_list.recall_status[:20])
        fields.append((_("Redial on"), redial))
    blocks: list[Block] = [HeaderBlock(text=truncate(name, 150))]
    if lead_list.description:
        blocks.append(section(escape(lead_list.description)))
    blocks.append(SectionBlock(fields=labelled(fields[:10])))
    blocks.append(
        context_line(
            _("Created {created} · updated {updated} · {uuid}").format(
                created=day_time(lead_list.created_at, ctx.tz),
                updated=day_time(lead_list.updated_at, ctx.tz),
                uuid=code(lead_list.list_uuid),
            )
        )
    )
    title = ngettext("List {name}: {n} lead", "List {name}: {n} leads", lead_list.total_leads)
    return Reply(
        text=title.format(name=clip(name, 150), n=number(lead_list.total_leads)), blocks=blocks
    )


async def show_list(ctx: CommandContext, args: list[str]) -> Reply:
    if len(args) != 1:
        raise UsageError(
            _("Give one list UUID.") if not args else _("Give only the list UUID."),
            usage_of("list"),
        )
    list_uuid = args[0].strip()
    if check_list_uuid(list_uuid):
        raise UsageError(
            _("A list UUID has {length} characters; '{uuid}' has {typed}.").format(
                length=LIST_UUID_MIN_LENGTH, uuid=list_uuid, typed=len(list_uuid)
            ),
            usage_of("list"),
        )
    try:
        lead_list = await ctx.client().lists.get(list_uuid)
    except errors.NotFoundError:
        return notice(
            _("No lead list has the UUID {uuid}.").format(uuid=code(list_uuid)), emoji=":mag:"
        )
    return list_card(lead_list, ctx)


def totals_line(lead_list: LeadList) -> str:
    """The list's counts in one line, in the words and order of its card; counts of an
    upload that has not happened read as words, not as zeros and dashes."""
    leads = ngettext("*{n}* lead", "*{n}* leads", lead_list.total_leads).format(
        n=number(lead_list.total_leads)
    )
    if lead_list.total_upload <= 0:
        return _("{leads} · nothing uploaded yet").format(leads=leads)
    failed = lead_list.total_fail
    return _(
        "{leads} · uploaded {uploaded} · imported {imported} ({imported_share}) · "
        "{warning}failed {failed} ({failed_share})"
    ).format(
        leads=leads,
        uploaded=number(lead_list.total_upload),
        imported=number(lead_list.total_success),
        imported_share=ratio_percent(lead_list.total_success, lead_list.total_upload),
        warning=":warning: " if failed else "",
        failed=number(failed),
        failed_share=ratio_percent(failed, lead_list.total_upload),
    )


def campaign_list_blocks(
    campaign_uuid: str, lead_list: LeadList | None, role: Role, *, missing: str | None = None
) -> list[Block]:
    """The campaign card's lead list: name, totals and UUID, with Add lead and Upload
    leads (for a role that may use them) and Open list.  ``missing`` says why there is no
    list to show (no default list, gone, unreadable)."""
    if lead_list is None:
        title, nothing = _("Lead list"), _("None.")
        text = f":card_index_dividers: *{title}*\n{missing or nothing}"
        return [section(text)]
    name = clip(lead_list.list_name, 150) or _("Unnamed list")
    heading = _(":card_index_dividers: *Lead list: {name}*").format(name=name)
    text = f"{heading}\n{totals_line(lead_list)}\n{code(lead_list.list_uuid)}"
    buttons: list[ButtonElement] = []
    if role.at_least(ADD_LEAD_ROLE):
        buttons.append(
            ButtonElement(
                text=_("Add lead"), action_id=ADD_LEAD_BUTTON, value=list_button_value(lead_list)
            )
        )
    if role.at_least(UPLOAD_LEADS_ROLE):
        buttons.append(
            ButtonElement(
                text=_("Upload leads"), action_id=UPLOAD_LEADS_BUTTON, value=campaign_uuid
            )
        )
    buttons.append(
        ButtonElement(text=_("Open list"), action_id=OPEN_LIST_BUTTON, value=lead_list.list_uuid)
    )
    actions = ActionsBlock(
        block_id=f"lead_list:{truncate(lead_list.list_uuid, 200)}", elements=buttons
    )
    return [section(text), actions]


async def open_list_clicked(ctx: CommandContext, click: Click) -> Outcome:
    """Open list on a campaign card: the list's own card, as a new message."""
    return Rerun(f"list {token(click.value)}", replace_original=False)
