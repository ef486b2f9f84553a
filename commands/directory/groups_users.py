"""``group add``, ``group edit`` and ``user edit``: who is in which group, and user settings.

The service has no group listing (spec 4.6), so a group is found through its members'
memberships (or by its UUID).  ``group edit`` sends the whole form, as the spec's PUT
replaces members and campaigns it is given; the group's campaigns cannot be read back,
so the campaigns field starts empty and, left empty, is not sent (they stay as they are).

``user edit`` is for admins.  The service's PUT needs ``password`` and
``confirm_password`` with every change, so the form asks for them; they are never
shown again, never logged, redacted from the audit log, stored only inside the
encrypted approval parameters, and salted so the parameters' hash reveals nothing.
"""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from slack_sdk.models.blocks import (
    Block,
    CheckboxesElement,
    ContextBlock,
    InputBlock,
    MarkdownTextObject,
    NumberInputElement,
    Option,
    PlainTextInputElement,
    SectionBlock,
    StaticMultiSelectElement,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from callcenter import errors
from callcenter.models import Campaign, GroupCreate, GroupUpdate, User, UserUpdate
from callcenter.rules import check_group_name, check_name
from commands.approvals.actions import (
    ActionRefused,
    ActionResult,
    ActionSpec,
    ExecutionEnv,
    register,
)
from commands.approvals.workflow import propose
from commands.kernel.catalog import find
from commands.kernel.context import CommandContext
from commands.kernel.forms import Form, register_form, text
from commands.kernel.grammar import UsageError
from commands.kernel.interactions import FormValues, Meta
from commands.kernel.proposal import Proposal
from commands.kernel.reply import OpenModal, Outcome, Reply, error
from commands.kernel.resolve import all_campaigns
from commands.kernel.text import clip, code, full_name, number, truncate
from storage import ActionKind

GROUP_CALLBACK = "group_edit_form"
USER_CALLBACK = "user_edit_form"
MAX_OPTIONS = 100
"""Slack's limit of options in one select."""
NAME_RULE = "letters, digits, spaces, dots, hyphens and underscores"
LEVELS = ("admin", "agent")
FLAG_ENABLED = "enabled"
FLAG_WEBRTC = "webrtc"
_EXTENSION = re.compile(r"^[0-9]{1,10}$")
_UUID = re.compile(r"^[0-9a-fA-F-]{36}$")


def _usage(name: str) -> str:
    spec = find(name)
    return spec.usage if spec else name


def name_problem(name: str, what: str) -> str | None:
    if not name:
        return f"The {what} is empty."
    if check_name(name, "name"):
        return f"A {what} may use only {NAME_RULE}."
    return None


# --- group add ------------------------------------------------------------------------


def describe_group_create(params: Mapping[str, Any]) -> str:
    text_ = f"Create the group *{clip(params['group_name'], 100)}*"
    if params.get("group_description"):
        text_ += f": {clip(params['group_description'], 300)}"
    return text_ + "."


async def execute_group_create(params: Mapping[str, Any], env: ExecutionEnv) -> ActionResult:
    body = GroupCreate(
        group_name=str(params["group_name"]),
        group_description=str(params.get("group_description") or "") or None,
    )
    created = await env.cc.groups.create(body)
    return ActionResult(
        True,
        f"Group *{clip(body.group_name, 100)}* created: {code(created.group_uuid)}.",
        data={"group_uuid": created.group_uuid},
    )


async def group_add(ctx: CommandContext, args: list[str]) -> Reply:
    if not args:
        raise UsageError("Give the group's name (in quotes if it has spaces).", _usage("group add"))
    name, description = args[0].strip(), " ".join(args[1:]).strip()
    problem = name_problem(name, "group name")
    if problem or check_group_name(name):
        raise UsageError(problem or f"A group name may use only {NAME_RULE}.", _usage("group add"))
    params = {"group_name": name, "group_description": description}
    return await propose(ctx, Proposal(ActionKind.GROUP_CREATE, params))


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
    name = full_name(user.first_name, user.last_name)
    return truncate(f"{user.username} ({name})" if name else user.username, 75)


def _option(value: str, label: str) -> Option:
    return Option(value=value, text=truncate(label or value, 75))


def group_modal(
    group: FoundGroup,
    people: Sequence[User],
    campaigns: Sequence[Campaign],
    channel: str | None,
) -> View:
    user_options = [_option(u.user_uuid, _user_label(u)) for u in people[:MAX_OPTIONS]]
    current = [o for o in user_options if o.value in group.members]
    campaign_options = [_option(c.campaign_uuid, c.campaign_name) for c in campaigns[:MAX_OPTIONS]]
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
            label="Name",
            element=PlainTextInputElement(action_id="group_name", initial_value=group.group_name),
            hint=f"Only {NAME_RULE}.",
        ),
        InputBlock(
            block_id="group_description",
            label="Description",
            optional=True,
            element=PlainTextInputElement(
                action_id="group_description",
                multiline=True,
                initial_value=group.group_description or None,
            ),
        ),
        InputBlock(
            block_id="group_priority",
            label="Priority",
            optional=True,
            element=NumberInputElement(
                action_id="group_priority",
                is_decimal_allowed=False,
                min_value=0,
                initial_value=group.priority if group.priority is not None else None,
            ),
            hint="Calls go to higher-priority groups first.",
        ),
        InputBlock(
            block_id="members",
            label="Members",
            optional=True,
            element=StaticMultiSelectElement(
                action_id="members",
                placeholder="Choose users",
                options=user_options,
                initial_options=current or None,
            ),
            hint="The group's members become exactly these users.",
        ),
        InputBlock(
            block_id="campaigns",
            label="Campaigns",
            optional=True,
            element=StaticMultiSelectElement(
                action_id="campaigns", placeholder="Choose campaigns", options=campaign_options
            ),
            hint="Left empty, the group's campaigns stay as they are; chosen ones replace them.",
        ),
    ]
    if len(people) > MAX_OPTIONS or len(campaigns) > MAX_OPTIONS:
        blocks.append(
            ContextBlock(
                elements=[MarkdownTextObject(text=f"Only the first {MAX_OPTIONS} are offered.")]
            )
        )
    return View(
        type="modal",
        callback_id=GROUP_CALLBACK,
        title="Edit group",
        submit="Save",
        close="Cancel",
        private_metadata=json.dumps(meta, separators=(",", ":"), ensure_ascii=False),
        blocks=blocks,
    )


async def group_edit(ctx: CommandContext, args: list[str]) -> Outcome:
    if not args:
        raise UsageError("Which group? Give its name or UUID.", _usage("group edit"))
    cc = ctx.client()
    people = [u async for u in cc.users.iterate(page_size=100)]
    group = find_group(people, " ".join(args))
    if group is None:
        query = " ".join(args)
        if _UUID.match(query):
            group = FoundGroup(query, "")
        else:
            return error(
                f"No group called '{query}' has members I can see (the service lists groups "
                "only through their members). Use the group's UUID instead.",
                _usage("group edit"),
            )
    campaigns = await all_campaigns(cc)
    return OpenModal(group_modal(group, people, campaigns, ctx.channel_id))


def check_group_form(values: FormValues, meta: Meta) -> dict[str, str]:
    problems: dict[str, str] = {}
    problem = name_problem(text(values, "group_name"), "group name")
    if problem:
        problems["group_name"] = problem
    priority = text(values, "group_priority")
    if priority and not priority.isdigit():
        problems["group_priority"] = "A whole number, 0 or more."
    return problems


async def build_group_form(ctx: CommandContext, values: FormValues, meta: Meta) -> Proposal:
    cc = ctx.client()
    users = {u.user_uuid: u.username async for u in cc.users.iterate(page_size=100)}
    campaign_names = {c.campaign_uuid: c.campaign_name for c in await all_campaigns(cc)}
    members = [str(v) for v in values.get("members") or []]
    chosen = [str(v) for v in values.get("campaigns") or []]
    priority = text(values, "group_priority")
    params: dict[str, Any] = {
        "group_uuid": str(meta.get("group_uuid") or ""),
        "old_name": str(meta.get("old_name") or ""),
        "group_name": text(values, "group_name"),
        "group_description": text(values, "group_description"),
        "user_assigns": members,
        "member_names": [users.get(m, m) for m in members],
    }
    if priority:
        params["group_priority"] = int(priority)
    if chosen:
        params["campaign_assigns"] = chosen
        params["campaign_names"] = [campaign_names.get(c, c) for c in chosen]
    return Proposal(ActionKind.GROUP_UPDATE, params)


def _listing(names: Sequence[str], empty: str) -> str:
    if not names:
        return empty
    shown = ", ".join(clip(n, 60) for n in names[:20])
    return shown + (f" and {len(names) - 20} more" if len(names) > 20 else "")


def describe_group_update(params: Mapping[str, Any]) -> str:
    old = params.get("old_name") or params["group_uuid"]
    lines = [f"Change the group *{clip(old, 100)}*:"]
    if params.get("old_name") != params["group_name"]:
        lines.append(f"• name: *{clip(params['group_name'], 100)}*")
    lines.append(f"• description: {clip(params.get('group_description') or '–', 300)}")
    if "group_priority" in params:
        lines.append(f"• priority: {number(int(params['group_priority']))}")
    lines.append(
        f"• members ({number(len(params.get('user_assigns') or []))}): "
        + _listing(params.get("member_names") or [], "none: the group will be empty")
    )
    if "campaign_assigns" in params:
        lines.append("• campaigns: " + _listing(params.get("campaign_names") or [], "none"))
    else:
        lines.append("• campaigns: unchanged")
    lines.append(f"Group {code(params['group_uuid'])}")
    return "\n".join(lines)


async def execute_group_update(params: Mapping[str, Any], env: ExecutionEnv) -> ActionResult:
    body = GroupUpdate(
        group_name=str(params["group_name"]),
        group_description=str(params.get("group_description") or ""),
        group_priority=params.get("group_priority"),
        user_assigns=list(params.get("user_assigns") or []),
        campaign_assigns=params.get("campaign_assigns"),
    )
    wire = {k: v for k, v in body.to_wire().items() if v is not None}
    try:
        updated = await env.cc.groups.update(
            str(params["group_uuid"]), GroupUpdate.model_validate(wire)
        )
    except errors.NotFoundError:
        raise ActionRefused("The group no longer exists") from None
    return ActionResult(
        True,
        f"Group *{clip(updated.data.group_name or body.group_name, 100)}* saved.",
        data={"group_uuid": str(params["group_uuid"])},
    )


# --- user edit ------------------------------------------------------------------------


def user_modal(user: User, roles: Mapping[str, str], channel: str | None) -> View:
    levels = list(LEVELS) + ([user.level] if user.level and user.level not in LEVELS else [])
    level_options = [_option(v, v) for v in levels]
    role_options = [_option(uuid, name or uuid) for uuid, name in list(roles.items())[:MAX_OPTIONS]]
    flags = [
        _option(FLAG_ENABLED, "Enabled (can sign in and take calls)"),
        _option(FLAG_WEBRTC, "WebRTC (calls in the browser)"),
    ]
    current_flags = [
        f
        for f, on in zip(
            flags, (user.user_enabled.lower() != "false", user.enable_webrtc), strict=True
        )
        if on
    ]
    meta = {"user_uuid": user.user_uuid, "username": user.username, "channel": channel or ""}
    level_initial = next((o for o in level_options if o.value == user.level), None)
    role_initial = next((o for o in role_options if o.value == user.role_uuid), None)
    name = full_name(user.first_name, user.middle_name, user.last_name)
    return View(
        type="modal",
        callback_id=USER_CALLBACK,
        title="Edit user",
        submit="Save",
        close="Cancel",
        private_metadata=json.dumps(meta, separators=(",", ":"), ensure_ascii=False),
        blocks=[
            SectionBlock(
                text=MarkdownTextObject(
                    text=f"*{clip(user.username, 80)}*" + (f" ({clip(name, 80)})" if name else "")
                )
            ),
            InputBlock(
                block_id="level",
                label="Level",
                element=StaticSelectElement(
                    action_id="level", options=level_options, initial_option=level_initial
                ),
            ),
            InputBlock(
                block_id="role",
                label="Role",
                element=StaticSelectElement(
                    action_id="role", options=role_options, initial_option=role_initial
                ),
            ),
            InputBlock(
                block_id="extension",
                label="Extension",
                optional=True,
                element=PlainTextInputElement(
                    action_id="extension", initial_value=user.extension or None
                ),
                hint="Digits only. Left as it is, the extension does not change.",
            ),
            InputBlock(
                block_id="flags",
                label="Options",
                optional=True,
                element=CheckboxesElement(
                    action_id="flags", options=flags, initial_options=current_flags or None
                ),
            ),
            InputBlock(
                block_id="password",
                label="Password",
                element=PlainTextInputElement(action_id="password", max_length=128),
                hint="The service asks for the password with every change. It is sent once "
                "and never shown or logged.",
            ),
            InputBlock(
                block_id="confirm_password",
                label="Password again",
                element=PlainTextInputElement(action_id="confirm_password", max_length=128),
            ),
        ],
    )


def known_roles(people: Sequence[User]) -> dict[str, str]:
    """Role UUID -> name, as seen on the users (the service lists no roles)."""
    roles: dict[str, str] = {}
    for user in people:
        if user.role_uuid:
            roles.setdefault(user.role_uuid, user.role_name)
    return roles


async def user_edit(ctx: CommandContext, args: list[str]) -> Outcome:
    if len(args) != 1:
        raise UsageError("Give one username.", _usage("user edit"))
    wanted = args[0].strip().lstrip("@").casefold()
    people = [u async for u in ctx.client().users.iterate(page_size=100)]
    user = next((u for u in people if u.username.casefold() == wanted), None)
    if user is None:
        return error(f"No user is called '{args[0]}'. `/callops users` lists them.")
    return OpenModal(user_modal(user, known_roles(people), ctx.channel_id))


def check_user_form(values: FormValues, meta: Meta) -> dict[str, str]:
    problems: dict[str, str] = {}
    password = values.get("password") if isinstance(values.get("password"), str) else ""
    again = (
        values.get("confirm_password") if isinstance(values.get("confirm_password"), str) else ""
    )
    if not password:
        problems["password"] = "The service needs the password with every change."  # noqa: S105
    elif password != again:
        problems["confirm_password"] = "The two passwords differ."  # noqa: S105
    extension = text(values, "extension")
    if extension and not _EXTENSION.match(extension):
        problems["extension"] = "An extension is digits only, e.g. 1017."
    if not values.get("level"):
        problems["level"] = "Choose a level."
    if not values.get("role"):
        problems["role"] = "Choose a role."
    return problems


async def build_user_form(ctx: CommandContext, values: FormValues, meta: Meta) -> Proposal:
    flags = set(values.get("flags") or [])
    people = [u async for u in ctx.client().users.iterate(page_size=100)]
    roles = known_roles(people)
    role_uuid = str(values.get("role") or "")
    params: dict[str, Any] = {
        "user_uuid": str(meta.get("user_uuid") or ""),
        "username": str(meta.get("username") or ""),
        "level": str(values.get("level") or ""),
        "role_uuid": role_uuid,
        "role_name": roles.get(role_uuid, ""),
        "extension": text(values, "extension"),
        "is_active": FLAG_ENABLED in flags,
        "enable_webrtc": FLAG_WEBRTC in flags,
        "password": str(values.get("password") or ""),
        "confirm_password": str(values.get("confirm_password") or ""),
        "nonce": secrets.token_hex(16),
    }
    return Proposal(ActionKind.USER_UPDATE, params)


def describe_user_update(params: Mapping[str, Any]) -> str:
    lines = [
        f"Change the user *{clip(params['username'], 80)}*:",
        f"• level: {clip(params['level'], 40)} · role: "
        f"{clip(params.get('role_name') or params['role_uuid'], 80)}",
        f"• extension: {clip(params.get('extension') or 'unchanged', 20)}",
        f"• enabled: {'yes' if params.get('is_active') else 'no'} · WebRTC: "
        f"{'yes' if params.get('enable_webrtc') else 'no'}",
        "• password: set with the change (never shown)",
        f"User {code(params['user_uuid'])}",
    ]
    return "\n".join(lines)


async def execute_user_update(params: Mapping[str, Any], env: ExecutionEnv) -> ActionResult:
    uuid = str(params["user_uuid"])
    try:
        await env.cc.users.get(uuid)
    except errors.NotFoundError:
        raise ActionRefused("The user no longer exists") from None
    body = UserUpdate(
        username=str(params["username"]),
        level=str(params["level"]),
        role_uuid=str(params["role_uuid"]),
        password=str(params["password"]),
        confirm_password=str(params["confirm_password"]),
        user_uuid=uuid,
        extension=str(params.get("extension") or "") or None,
        is_active=bool(params.get("is_active")),
        enable_webrtc=bool(params.get("enable_webrtc")),
    )
    updated = await env.cc.users.update(uuid, body)
    return ActionResult(
        True,
        f"User *{clip(body.username, 80)}* saved"
        + (f" (extension record {code(updated.extension_uuid)})" if updated.extension_uuid else "")
        + ".",
        data={"user_uuid": uuid},
    )


register(
    ActionSpec(
        ActionKind.GROUP_CREATE,
        "Create a group",
        "Create the group",
        describe_group_create,
        execute_group_create,
    )
)
register(
    ActionSpec(
        ActionKind.GROUP_UPDATE,
        "Change a group",
        "Save the group",
        describe_group_update,
        execute_group_update,
    )
)
register(
    ActionSpec(
        ActionKind.USER_UPDATE,
        "Change a user",
        "Save the user",
        describe_user_update,
        execute_user_update,
    )
)
register_form(Form(GROUP_CALLBACK, check_group_form, build_group_form))
register_form(Form(USER_CALLBACK, check_user_form, build_user_form, role="admin"))

HANDLERS = {"group add": group_add, "group edit": group_edit, "user edit": user_edit}
