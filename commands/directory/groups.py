"""``group add`` and ``group edit``: who is in which group.

The service has no group listing (spec 4.6), so a group is found through its members'
memberships (or by its UUID).  The same memberships answer, before anything is asked
of an approver, whether a name is taken (a group nobody is in cannot be seen; the
service still refuses that name, after approval).  ``group edit`` sends the whole form,
as the spec's PUT replaces members and campaigns it is given; its card shows only what
changes, before → after.  The group's campaigns cannot be read back, so the campaigns
field starts empty and, left empty, is not sent (they stay as they are).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated

from pydantic import Field, StringConstraints
from slack_sdk.models.blocks import (
    Block,
    InputBlock,
    NumberInputElement,
    PlainTextInputElement,
    StaticMultiSelectElement,
)
from slack_sdk.models.views import View

from callcenter import errors
from callcenter.models import Campaign, GroupCreate, GroupUpdate, User
from callcenter.rules import check_group_name, check_name
from commands.approvals.cards import propose
from commands.directory.options import MAX_OPTIONS, option
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
from commands.kernel.grammar import UsageError, check_keys, split_options
from commands.kernel.i18n import N_, _
from commands.kernel.interactions import FormValues, Meta
from commands.kernel.modals import modal
from commands.kernel.names import name_of
from commands.kernel.reply import OpenModal, Outcome, Reply, context_line, error, notice
from commands.kernel.resolve import all_campaigns, all_users
from commands.kernel.text import clip, code, number, truncate
from commands.kernel.values import Metadata, Token, read_metadata

CREATE_KIND = "group.create"
UPDATE_KIND = "group.update"
"""The kinds of action declared in this family's ``FAMILY``, with their requests."""

GROUP_CALLBACK = "group_edit_form"
NAME_RULE = N_("letters, digits, spaces, dots, hyphens and underscores")
_UUID = re.compile(r"^[0-9a-fA-F-]{36}$")


def name_problem(name: str, what: str) -> str | None:
    """``what`` (``group name``) is English, marked for the catalog by the caller."""
    if not name:
        return _("The {what} is empty.").format(what=_(what))
    if check_name(name, "name"):
        return _("A {what} may use only {rule}.").format(what=_(what), rule=_(NAME_RULE))
    return None


# --- group add ------------------------------------------------------------------------


class GroupCreateParams(ActionParams):
    group_name: str
    group_description: str = ""


def describe_group_create(params: GroupCreateParams) -> str:
    name = f"*{clip(params.group_name, 100)}*"
    if params.group_description:
        return _("Create the group {name}: {description}.").format(
            name=name, description=clip(params.group_description, 300)
        )
    return _("Create the group {name}.").format(name=name)


async def execute_group_create(params: GroupCreateParams, env: ExecutionEnv) -> ActionResult:
    body = GroupCreate(
        group_name=params.group_name, group_description=params.group_description or None
    )
    created = await env.cc.groups.create(body)
    return ActionResult(
        ok=True,
        text=_("Group {name} created: {uuid}.").format(
            name=f"*{clip(body.group_name, 100)}*", uuid=code(created.group_uuid)
        ),
        data={"group_uuid": created.group_uuid},
    )


DESCRIPTION_KEYS = ("description",)
DESCRIPTION_MARK = "--"


def name_and_description(words: list[str], options: dict[str, str]) -> tuple[str, str]:
    """``Nhom Telesale HCM -- Team of Ho Chi Minh City``: every word is the name, up to
    ``--``; the description is what follows it, or ``description=``."""
    if DESCRIPTION_MARK in words:
        at = words.index(DESCRIPTION_MARK)
        words, after = words[:at], words[at + 1 :]
    else:
        after = []
    described = next((v for k, v in options.items() if k.lower() in DESCRIPTION_KEYS), "")
    return " ".join(words).strip(), (described or " ".join(after)).strip()


async def group_add(ctx: CommandContext, args: list[str]) -> Reply:
    """Ask to create a group, once its name follows the service's rule and is free."""
    positional, options = split_options(args, spaced=DESCRIPTION_KEYS)
    check_keys(
        options, DESCRIPTION_KEYS, what=N_("an option of group add"), usage=usage_of("group add")
    )
    name, description = name_and_description(positional, options)
    if not name:
        raise UsageError(
            _("Give the group's name; a description goes after --."), usage_of("group add")
        )
    problem = name_problem(name, N_("group name"))
    if problem or check_group_name(name):
        raise UsageError(
            problem
            or _("A {what} may use only {rule}.").format(what=_("group name"), rule=_(NAME_RULE)),
            usage_of("group add"),
        )
    people = await all_users(ctx.client())
    taken = find_group(people, name)
    if taken is not None:
        return error(
            _(
                "A group called '{name}' already exists ({uuid}); group names are unique "
                "whatever their case. Choose another name, or change that group with "
                '/callops group edit "{name}". Nothing was asked.'
            ).format(name=taken.group_name, uuid=taken.group_uuid)
        )
    params = GroupCreateParams(group_name=name, group_description=description)
    return await propose(ctx, Proposal(CREATE_KIND, params))


# --- group edit -----------------------------------------------------------------------


@dataclass
class FoundGroup:
    group_uuid: str
    group_name: str
    group_description: str = ""
    priority: int | None = None
    members: list[str] = field(default_factory=list)


def find_group(people: Sequence[User], query: str) -> FoundGroup | None:
    """A group by UUID or name (any case), with the UUIDs of its members."""
    wanted = query.strip().casefold()
    found: FoundGroup | None = None
    for user in people:
        for group in user.groups or []:
            if wanted not in (group.group_uuid.casefold(), group.group_name.casefold()):
                continue
            if found is None:
                found = FoundGroup(
                    group.group_uuid,
                    group.group_name,
                    group.group_description,
                    group.group_weight,
                )
            found.members.append(user.user_uuid)
    return found


def _user_label(user: User) -> str:
    name = name_of(user)
    return truncate(f"{user.username} ({name})" if name else user.username, 75)


def group_modal(
    group: FoundGroup,
    people: Sequence[User],
    campaigns: Sequence[Campaign],
    channel: str | None,
) -> View:
    user_options = [option(u.user_uuid, _user_label(u)) for u in people[:MAX_OPTIONS]]
    current = [o for o in user_options if o.value in group.members]
    campaign_options = [option(c.campaign_uuid, c.campaign_name) for c in campaigns[:MAX_OPTIONS]]
    meta = {
        "group_uuid": group.group_uuid,
        # Shown on the card as the group's name before the change; cut so the metadata
        # stays within Slack's 3,000 characters whatever the service calls the group.
        "old_name": truncate(group.group_name, 1000),
        "channel": channel or "",
    }
    blocks: list[Block] = [
        InputBlock(
            block_id="group_name",
            label=_("Name"),
            element=PlainTextInputElement(action_id="group_name", initial_value=group.group_name),
            hint=_("Only {rule}.").format(rule=_(NAME_RULE)),
        ),
        InputBlock(
            block_id="group_description",
            label=_("Description"),
            optional=True,
            element=PlainTextInputElement(
                action_id="group_description",
                multiline=True,
                initial_value=group.group_description or None,
            ),
        ),
        InputBlock(
            block_id="group_priority",
            label=_("Priority"),
            optional=True,
            element=NumberInputElement(
                action_id="group_priority",
                is_decimal_allowed=False,
                min_value=0,
                initial_value=group.priority if group.priority is not None else None,
            ),
            hint=_("Calls go to higher-priority groups first."),
        ),
        InputBlock(
            block_id="members",
            label=_("Members"),
            optional=True,
            element=StaticMultiSelectElement(
                action_id="members",
                placeholder=_("Choose users"),
                options=user_options,
                initial_options=current or None,
            ),
            hint=_("The group's members become exactly these users."),
        ),
        InputBlock(
            block_id="campaigns",
            label=_("Campaigns"),
            optional=True,
            element=StaticMultiSelectElement(
                action_id="campaigns", placeholder=_("Choose campaigns"), options=campaign_options
            ),
            hint=_("Left empty, the group's campaigns stay as they are; chosen ones replace them."),
        ),
    ]
    if len(people) > MAX_OPTIONS or len(campaigns) > MAX_OPTIONS:
        only = _("Only the first {count} are offered.").format(count=MAX_OPTIONS)
        blocks.append(context_line(only))
    return modal(GROUP_CALLBACK, _("Edit group"), blocks, submit=_("Save"), meta=meta)


async def group_edit(ctx: CommandContext, args: list[str]) -> Outcome:
    if not args:
        raise UsageError(_("Which group? Give its name or UUID."), usage_of("group edit"))
    cc = ctx.client()
    people = await all_users(cc)
    group = find_group(people, " ".join(args))
    if group is None:
        query = " ".join(args)
        if _UUID.match(query):
            group = FoundGroup(query, "")
        else:
            return error(
                _(
                    "No group called '{query}' has members I can see (the service lists groups "
                    "only through their members). Use the group's UUID instead."
                ).format(query=query),
                usage_of("group edit"),
            )
    campaigns = await all_campaigns(cc)
    return OpenModal(group_modal(group, people, campaigns, ctx.channel_id))


def check_group_form(values: FormValues, meta: Meta) -> dict[str, str]:
    problems: dict[str, str] = {}
    problem = name_problem(text(values, "group_name"), N_("group name"))
    if problem:
        problems["group_name"] = problem
    priority = text(values, "group_priority")
    if priority and not priority.isdigit():
        problems["group_priority"] = _("A whole number, 0 or more.")
    return problems


class GroupFormMeta(Metadata):
    """What the group form keeps in its metadata: the group, and its name before."""

    group_uuid: Token
    old_name: Annotated[str, StringConstraints(max_length=1000)] = ""


async def build_group_form(ctx: CommandContext, values: FormValues, meta: Meta) -> Proposal | Reply:
    """The form as a request, once the new name is free and something changes; the group
    as it is now goes with it, for the card's before → after."""
    cc = ctx.client()
    people = await all_users(cc)
    users = {u.user_uuid: name_of(u, u.username) for u in people}
    campaign_names = {c.campaign_uuid: c.campaign_name for c in await all_campaigns(cc)}
    form = read_metadata(GroupFormMeta, meta)
    group_uuid = form.group_uuid
    name = text(values, "group_name")
    taken = find_group(people, name)
    if taken is not None and taken.group_uuid != group_uuid:
        return error(
            _(
                "Another group is already called '{name}' ({uuid}); group names are unique "
                "whatever their case. Nothing was asked."
            ).format(name=taken.group_name, uuid=taken.group_uuid)
        )
    current = find_group(people, group_uuid)
    members = [str(v) for v in values.get("members") or []]
    chosen = [str(v) for v in values.get("campaigns") or []]
    priority = text(values, "group_priority")
    before = None
    if current is not None:
        before = GroupBefore(
            group_name=current.group_name,
            group_description=current.group_description,
            group_priority=current.priority,
            user_assigns=current.members,
            member_names=[users.get(m, m) for m in current.members],
        )
    params = GroupUpdateParams(
        group_uuid=group_uuid,
        old_name=form.old_name,
        group_name=name,
        group_description=text(values, "group_description"),
        user_assigns=members,
        member_names=[users.get(m, m) for m in members],
        group_priority=int(priority) if priority else None,
        campaign_assigns=chosen or None,
        campaign_names=[campaign_names.get(c, c) for c in chosen] if chosen else None,
        before=before,
    )
    if before is not None and not group_changes(params, before):
        return notice(
            _(
                "Nothing to change: the form left the group {name} as it is. Nothing was asked."
            ).format(name=f"*{clip(before.group_name, 100)}*"),
            emoji=":information_source:",
        )
    return Proposal(UPDATE_KIND, params)


def _listing(names: Sequence[str], empty: str) -> str:
    if not names:
        return empty
    shown = ", ".join(clip(n, 60) for n in names[:20])
    if len(names) > 20:
        return _("{names} and {count} more").format(names=shown, count=len(names) - 20)
    return shown


class GroupBefore(ActionParams):
    """The group as the form found it (for the card's before → after)."""

    group_name: str
    group_description: str = ""
    group_priority: int | None = None
    user_assigns: list[str] = Field(default_factory=list)
    member_names: list[str] = Field(default_factory=list)


class GroupUpdateParams(ActionParams):
    """The whole group as the form left it (the service's PUT replaces what it is given);
    no ``campaign_assigns`` means the group's campaigns stay as they are."""

    OMIT_WHEN_NONE = frozenset({"group_priority", "campaign_assigns", "campaign_names", "before"})

    group_uuid: str
    old_name: str = ""
    group_name: str
    group_description: str = ""
    user_assigns: list[str] = Field(default_factory=list)
    member_names: list[str] = Field(default_factory=list)
    group_priority: int | None = None
    campaign_assigns: list[str] | None = None
    campaign_names: list[str] | None = None
    before: GroupBefore | None = None


def _arrow(was: str, now: str) -> str:
    return f"{was} → *{now}*"


def group_changes(params: GroupUpdateParams, before: GroupBefore) -> list[str]:
    """One line per thing that changes, as before → after."""
    lines: list[str] = []
    none = _("none")
    if params.group_name != before.group_name:
        lines.append(
            _("• name: {change}").format(
                change=_arrow(clip(before.group_name, 100), clip(params.group_name, 100))
            )
        )
    if params.group_description != before.group_description:
        lines.append(
            _("• description: {change}").format(
                change=_arrow(
                    clip(before.group_description or none, 300),
                    clip(params.group_description or none, 300),
                )
            )
        )
    if params.group_priority is not None and params.group_priority != before.group_priority:
        was = number(before.group_priority) if before.group_priority is not None else _("unknown")
        lines.append(
            _("• priority: {change}").format(change=_arrow(was, number(params.group_priority)))
        )
    names = dict(zip(params.user_assigns, params.member_names, strict=False))
    old_names = dict(zip(before.user_assigns, before.member_names, strict=False))
    added = [names.get(u, u) for u in params.user_assigns if u not in old_names]
    removed = [old_names.get(u, u) for u in before.user_assigns if u not in names]
    if added or removed:
        parts = []
        if added:
            parts.append(_("added {names}").format(names=_listing(added, "")))
        if removed:
            parts.append(_("removed {names}").format(names=_listing(removed, "")))
        count = _arrow(number(len(before.user_assigns)), number(len(params.user_assigns)))
        lines.append(
            _("• members: {change} ({details})").format(change=count, details="; ".join(parts))
        )
    if params.campaign_assigns is not None:
        lines.append(
            _("• campaigns: set to {names} (its campaigns now cannot be read back)").format(
                names=_listing(params.campaign_names or [], none)
            )
        )
    return lines


def describe_group_update(params: GroupUpdateParams) -> str:
    old = params.old_name or params.group_uuid
    lines = [_("Change the group {name}:").format(name=f"*{clip(old, 100)}*")]
    group = _("Group {uuid}").format(uuid=code(params.group_uuid))
    if params.before is not None:
        lines.extend(group_changes(params, params.before) or [_("• nothing")])
        lines.append(group)
        return "\n".join(lines)
    # A request stored before the group as it was went with it: the whole form.
    if params.old_name != params.group_name:
        lines.append(_("• name: {change}").format(change=f"*{clip(params.group_name, 100)}*"))
    lines.append(
        _("• description: {change}").format(change=clip(params.group_description or "–", 300))
    )
    if params.group_priority is not None:
        lines.append(_("• priority: {change}").format(change=number(params.group_priority)))
    lines.append(
        _("• members ({count}): {names}").format(
            count=number(len(params.user_assigns)),
            names=_listing(params.member_names, _("none: the group will be empty")),
        )
    )
    if params.campaign_assigns is not None:
        lines.append(
            _("• campaigns: {names}").format(names=_listing(params.campaign_names or [], _("none")))
        )
    else:
        lines.append(_("• campaigns: unchanged"))
    lines.append(group)
    return "\n".join(lines)


async def execute_group_update(params: GroupUpdateParams, env: ExecutionEnv) -> ActionResult:
    body = GroupUpdate(
        group_name=params.group_name,
        group_description=params.group_description,
        group_priority=params.group_priority,
        user_assigns=list(params.user_assigns),
        campaign_assigns=params.campaign_assigns,
    )
    wire = {k: v for k, v in body.to_wire().items() if v is not None}
    try:
        updated = await env.cc.groups.update(params.group_uuid, GroupUpdate.model_validate(wire))
    except errors.NotFoundError:
        raise ActionRefused(_("The group no longer exists")) from None
    return ActionResult(
        ok=True,
        text=_("Group {name} saved.").format(
            name=f"*{clip(updated.data.group_name or body.group_name, 100)}*"
        ),
        data={"group_uuid": params.group_uuid},
    )
