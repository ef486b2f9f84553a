"""``list <list_uuid>``: a lead list's totals, the numbers a supervisor checks after an upload.

The UUID length is checked here with the service's own rule (``callcenter.rules``) so a
mistyped UUID is answered at once with what is wrong, not with the service's
"not found" after a round trip.
"""

from __future__ import annotations

from slack_sdk.models.blocks import (
    Block,
    ContextBlock,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)

from callcenter import errors
from callcenter.models import LeadList
from callcenter.rules import LIST_UUID_MIN_LENGTH, check_list_uuid
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError
from commands.kernel.reply import Reply, notice
from commands.kernel.text import (
    clip,
    code,
    escape,
    full_name,
    local_time,
    number,
    plural,
    ratio_percent,
    truncate,
)


def list_card(lead_list: LeadList, ctx: CommandContext) -> Reply:
    name = lead_list.list_name or "Unnamed list"
    owner = full_name(lead_list.firstname, lead_list.middlename, lead_list.lastname)
    owner_text = clip(owner or lead_list.username, 100) or "–"
    failed = lead_list.total_fail
    fail_icon = ":warning: " if failed else ""
    fields = [
        ("Leads", f"*{number(lead_list.total_leads)}*"),
        ("Campaign", clip(lead_list.campaign_name, 150) or "–"),
        ("Uploaded", number(lead_list.total_upload)),
        (
            "Imported",
            f"{number(lead_list.total_success)} "
            f"({ratio_percent(lead_list.total_success, lead_list.total_upload)})",
        ),
        (
            "Failed",
            f"{fail_icon}{number(failed)} ({ratio_percent(failed, lead_list.total_upload)})",
        ),
        (
            "Active",
            ":large_green_circle: yes" if lead_list.active else ":white_circle: no",
        ),
        ("Reset time", local_time(lead_list.reset_time, ctx.tz)),
        ("Owner", owner_text),
    ]
    if lead_list.recall_status:
        fields.append(("Redial on", ", ".join(clip(s, 30) for s in lead_list.recall_status[:20])))
    blocks: list[Block] = [HeaderBlock(text=truncate(name, 150))]
    if lead_list.description:
        blocks.append(
            SectionBlock(
                text=MarkdownTextObject(text=truncate(escape(lead_list.description), 3000))
            )
        )
    blocks.append(
        SectionBlock(
            fields=[MarkdownTextObject(text=truncate(f"*{k}*\n{v}", 2000)) for k, v in fields[:10]]
        )
    )
    blocks.append(
        ContextBlock(
            elements=[
                MarkdownTextObject(
                    text=f"Created {local_time(lead_list.created_at, ctx.tz)} · "
                    f"updated {local_time(lead_list.updated_at, ctx.tz)} · "
                    f"{code(lead_list.list_uuid)}"
                )
            ]
        )
    )
    return Reply(
        text=f"List {clip(name, 150)}: {plural(lead_list.total_leads, 'lead')}", blocks=blocks
    )


async def show_list(ctx: CommandContext, args: list[str]) -> Reply:
    if len(args) != 1:
        raise UsageError(
            "Give one list UUID." if not args else "Give only the list UUID.", usage_of("list")
        )
    list_uuid = args[0].strip()
    if check_list_uuid(list_uuid):
        raise UsageError(
            f"A list UUID has {LIST_UUID_MIN_LENGTH} characters; "
            f"'{list_uuid}' has {len(list_uuid)}.",
            usage_of("list"),
        )
    try:
        lead_list = await ctx.client().lists.get(list_uuid)
    except errors.NotFoundError:
        return notice(f"No lead list has the UUID {code(list_uuid)}.", emoji=":mag:")
    return list_card(lead_list, ctx)


HANDLERS = {"list": show_list}
