"""``users``, ``groups``, ``templates``, ``carriers``, ``gateways``, ``blacklist``.

Where the service pages (users, templates, carriers, gateways, blacklist) the listing
asks it for exactly one page (``limit``/``offset``) and shows its ``total``, so a long
blacklist costs one small request per click.  The service has no group listing (spec
4.6 only creates and updates groups), so ``groups`` is gathered from the users'
memberships and paged here; a group nobody belongs to cannot be seen this way, and the
reply says so.

``User.api_key`` is never read here: a listing shows who people are, not their keys.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from slack_sdk.models.blocks import (
    Block,
    HeaderBlock,
    SectionBlock,
)

from callcenter.models import (
    BlacklistEntry,
    Carrier,
    Gateway,
    Group,
    Prompt,
    Template,
    User,
)
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError
from commands.kernel.i18n import N_, _, current_language, ngettext
from commands.kernel.names import name_of
from commands.kernel.paging import pager, showing
from commands.kernel.phones import show_phone
from commands.kernel.reply import Reply, context_line, section
from commands.kernel.resolve import all_users
from commands.kernel.service_words import voice_words
from commands.kernel.tables import Cell, Column, table
from commands.kernel.text import clip, code, number, truncate

PAGE_SIZE = 15
LINE_DESCRIPTION_LIMIT = 120

USER_STATUS_ICON = {
    "available": ":large_green_circle:",
    "logged out": ":white_circle:",
    "on break": ":large_yellow_circle:",
    "on call": ":telephone_receiver:",
}
USER_STATUS_WORDS = {
    "available": N_("Available"),
    "logged out": N_("Logged out"),
    "on break": N_("On break"),
    "on call": N_("On call"),
}
"""The statuses the service reports (spec: ``Available``, ``Logged Out``) in the reader's
words; in English the service's own word is shown, as it wrote it."""
DIAL_TYPE_LABEL = {
    "channel_prefix": N_("prefix per network"),
    "sip_one_for_all": N_("one SIP trunk for all networks"),
}
NETWORK_LABEL = (
    ("operator_a", "A"),
    ("operator_b", "B"),
    ("operator_c", "C"),
    ("operator_d", "D"),
    ("offnet", N_("off-net")),
)
_PLACEHOLDER = re.compile(r"\{\{\s*([^{}\s]+)\s*\}\}")


def _no_args(name: str, args: list[str]) -> None:
    if args:
        raise UsageError(
            _("{command} takes no arguments.").format(command=f"`{name}`"), usage_of(name)
        )


@dataclass(frozen=True)
class Listed:
    """What a listing lists: the command that pages it, its title and its item's name,
    one and many; the words are English, marked for the catalog (``N_``), and shown
    translated."""

    command: str
    title: str
    one: str
    many: str


USERS = Listed("users", N_("Users"), N_("user"), N_("users"))
GROUPS = Listed("groups", N_("Groups"), N_("group"), N_("groups"))
TEMPLATES = Listed("templates", N_("Templates"), N_("template"), N_("templates"))
CARRIERS = Listed("carriers", N_("Carriers"), N_("carrier"), N_("carriers"))
GATEWAYS = Listed("gateways", N_("Gateways"), N_("gateway"), N_("gateways"))
BLACKLIST = Listed("blacklist", N_("Blocked numbers"), N_("blocked number"), N_("blocked numbers"))


def listing(
    what: Listed,
    rows: Sequence[Block],
    *,
    total: int,
    offset: int,
    note: str | None = None,
    shown: int | None = None,
) -> Reply:
    """Header with the count first, the rows, the "showing" line and the pager;
    ``shown`` counts items when several share one block (one line each)."""
    title = _(what.title)
    blocks: list[Block] = [HeaderBlock(text=truncate(f"{title}: {number(total)}", 150))]
    if note:
        blocks.append(context_line(note))
    blocks.extend(rows)
    count = len(rows) if shown is None else shown
    blocks.append(showing(offset, count, total, one=what.one, many=what.many))
    blocks.extend(pager(what.command, offset, PAGE_SIZE, total))
    return Reply(text=f"{title}: {total}", blocks=blocks)


# --- users ----------------------------------------------------------------------------


def status_words(status: str) -> str:
    """A user's status as the reader says it: the service's word in English (as it wrote
    it), a known status translated otherwise; an unknown one as it came."""
    known = USER_STATUS_WORDS.get(status.strip().lower())
    if known is None or current_language() == "en":
        return status
    return _(known)


def user_status(user: User) -> str:
    icon = USER_STATUS_ICON.get(user.user_status.strip().lower(), ":black_small_square:")
    unknown = _("unknown")
    text = f"{icon} {clip(status_words(user.user_status), 40) or unknown}"
    if user.user_enabled.lower() == "false":
        text += " · " + _(":no_entry_sign: disabled")
    return text


def _user_row(user: User) -> SectionBlock:
    name = name_of(user, user.username)
    role = clip(user.level, 40) or "–"
    if user.role_name and user.role_name.lower() != user.level.lower():
        role += f" ({clip(user.role_name, 60)})"
    groups = [g.group_name for g in (user.groups or []) if g.group_name]
    if not groups and user.group_name:
        groups = [user.group_name]
    parts = [
        user_status(user),
        _(":telephone_receiver: ext {extension}").format(extension=clip(user.extension, 30))
        if user.extension
        else _("no extension"),
        role,
    ]
    if groups:
        parts.append(":busts_in_silhouette: " + ", ".join(clip(g, 60) for g in groups[:10]))
    unnamed = _("Unnamed")
    text = f"*{clip(name, 100) or unnamed}* `{clip(user.username, 60)}`\n" + " · ".join(parts)
    return section(text)


USER_COLUMNS = (
    Column(N_("Name")),
    Column(N_("Username")),
    Column(N_("Status")),
    Column(N_("Extension")),
    Column(N_("Role")),
    Column(N_("Groups")),
)


def _user_cells(user: User) -> list[Cell]:
    status = status_words(user.user_status) or _("unknown")
    if user.user_enabled.lower() == "false":
        status = _("{status}, disabled").format(status=status)
    role = user.level
    if user.role_name and user.role_name.lower() != user.level.lower():
        role += f" ({user.role_name})"
    groups = [g.group_name for g in (user.groups or []) if g.group_name]
    if not groups and user.group_name:
        groups = [user.group_name]
    return [
        name_of(user, user.username),
        user.username,
        status,
        user.extension,
        role,
        ", ".join(groups[:10]),
    ]


def users_reply(users: Sequence[User], *, total: int, offset: int) -> Reply:
    grid = table(USER_COLUMNS, [_user_cells(u) for u in users])
    if grid is None:
        rows: list[Block] = [_user_row(u) for u in users]
        return listing(USERS, rows, total=total, offset=offset)
    return listing(USERS, [grid], total=total, offset=offset, shown=len(users))


async def users(ctx: CommandContext, args: list[str]) -> Reply:
    _no_args("users", args)
    page = await ctx.client().users.list(limit=PAGE_SIZE, offset=ctx.offset)
    return users_reply(page.data, total=page.total, offset=ctx.offset)


# --- groups ---------------------------------------------------------------------------


@dataclass
class GroupMembers:
    group: Group
    members: list[str] = field(default_factory=list)


def gather_groups(people: Sequence[User]) -> list[GroupMembers]:
    """Groups named in the users' memberships, each with its members, by name."""
    found: dict[str, GroupMembers] = {}
    for user in people:
        name = name_of(user, user.username)
        memberships = list(user.groups or [])
        if not memberships and user.group_name:
            memberships = [Group(group_uuid="", group_name=user.group_name)]
        for group in memberships:
            key = group.group_uuid or f"name:{group.group_name.casefold()}"
            entry = found.setdefault(key, GroupMembers(group=group))
            entry.members.append(name)
    return sorted(found.values(), key=lambda g: g.group.group_name.casefold())


def _group_row(entry: GroupMembers) -> SectionBlock:
    group = entry.group
    members = sorted(entry.members, key=str.casefold)
    shown = ", ".join(clip(m, 60) for m in members[:12])
    if len(members) > 12:
        shown = _("{names} and {count} more").format(names=shown, count=len(members) - 12)
    unnamed = _("Unnamed group")
    text = f"*{clip(group.group_name, 150) or unnamed}*"
    if group.group_description:
        text += f" · {clip(group.group_description, LINE_DESCRIPTION_LIMIT)}"
    count = ngettext("{n} member", "{n} members", len(members)).format(n=number(len(members)))
    text += f"\n:busts_in_silhouette: {count}: {shown}"
    return section(text)


def groups_reply(entries: Sequence[GroupMembers], *, offset: int) -> Reply:
    page = entries[offset : offset + PAGE_SIZE]
    return listing(
        GROUPS,
        [_group_row(e) for e in page],
        total=len(entries),
        offset=offset,
        note=_("Groups as seen through their members; a group with no members is not listed."),
    )


async def groups(ctx: CommandContext, args: list[str]) -> Reply:
    _no_args("groups", args)
    people = await all_users(ctx.client())
    return groups_reply(gather_groups(people), offset=ctx.offset)


# --- templates ------------------------------------------------------------------------


def placeholders(template: Template) -> list[str]:
    """The ``{{names}}`` an autocall must fill, in order of first appearance."""
    texts = [template.content]
    for option in template.press_options or []:
        texts.extend(p.content or "" for p in option.values())
    for prompt in (template.exit_sound, template.invalid_sound):
        if isinstance(prompt, Prompt) and prompt.content:
            texts.append(prompt.content)
    seen: dict[str, None] = {}
    for text in texts:
        for name in _PLACEHOLDER.findall(text or ""):
            seen.setdefault(name, None)
    return list(seen)


def _template_row(t: Template) -> SectionBlock:
    if t.voice_type == "tts":
        if t.voice_tts:
            voice = _(
                ":speaking_head_in_silhouette: text to speech ({voice}, speed {speed})"
            ).format(voice=clip(voice_words(t.voice_tts), 60), speed=f"{t.speed_tts:g}")
        else:
            voice = _(":speaking_head_in_silhouette: text to speech")
    elif t.voice_type == "audio_file":
        voice = _(":musical_note: audio file")
    else:
        voice = clip(t.voice_type, 30) or "–"
    names = placeholders(t)
    fill = " ".join(code("{{" + truncate(n, 40) + "}}") for n in names[:20]) if names else _("none")
    options = len(t.press_options or [])
    keys = (
        ngettext("{n} press option", "{n} press options", options).format(n=number(options))
        if t.enable_option or options
        else _("no key presses")
    )
    unnamed = _("Unnamed template")
    text = f"*{clip(t.template_name, 150) or unnamed}* · {voice}\n"
    text += _("Placeholders: {placeholders} · :1234: {keys}").format(placeholders=fill, keys=keys)
    if t.description:
        text += f"\n_{clip(t.description, LINE_DESCRIPTION_LIMIT)}_"
    return section(text)


def templates_reply(templates_: Sequence[Template], *, total: int, offset: int) -> Reply:
    rows = [_template_row(t) for t in templates_]
    return listing(TEMPLATES, rows, total=total, offset=offset)


async def templates(ctx: CommandContext, args: list[str]) -> Reply:
    _no_args("templates", args)
    page = await ctx.client().templates.list(limit=PAGE_SIZE, offset=ctx.offset)
    return templates_reply(page.data, total=page.total, offset=ctx.offset)


# --- carriers -------------------------------------------------------------------------


def _carrier_row(c: Carrier) -> SectionBlock:
    state = _(":large_green_circle: enabled") if c.status else _(":red_circle: disabled")
    label = DIAL_TYPE_LABEL.get(c.dial_type)
    dial = _(label) if label else clip(c.dial_type, 40) or "–"
    if c.concurrent_call:
        free = ngettext(
            ":electric_plug: *{free}* of {n} line free",
            ":electric_plug: *{free}* of {n} lines free",
            c.concurrent_call,
        ).format(free=number(c.remaining_concurrent_call), n=number(c.concurrent_call))
    else:
        free = ngettext(
            ":electric_plug: *{n} line* free",
            ":electric_plug: *{n} lines* free",
            c.remaining_concurrent_call,
        ).format(n=number(c.remaining_concurrent_call))
    unnamed = _("Unnamed carrier")
    text = f"*{clip(c.carrier_name, 150) or unnamed}* · {state} · {dial}\n{free}"
    remaining = c.carrier_remaining_ccu
    if remaining is not None and c.dial_type == "channel_prefix":
        per_network = " · ".join(
            f"{_(label)} {number(getattr(remaining, key))}" for key, label in NETWORK_LABEL
        )
        text += f" ({per_network})"
    caller_id = c.caller_id or (c.data.caller_id if c.data else "")
    if caller_id:
        text += " · " + _("caller ID {caller_id}").format(caller_id=code(truncate(caller_id, 40)))
    return section(text)


def carriers_reply(carriers_: Sequence[Carrier], *, total: int, offset: int) -> Reply:
    rows = [_carrier_row(c) for c in carriers_]
    return listing(CARRIERS, rows, total=total, offset=offset)


async def carriers(ctx: CommandContext, args: list[str]) -> Reply:
    _no_args("carriers", args)
    page = await ctx.client().carriers.list(limit=PAGE_SIZE, offset=ctx.offset)
    return carriers_reply(page.data, total=page.total, offset=ctx.offset)


# --- gateways and blacklist: one line each --------------------------------------------


def _lines_block(lines: Sequence[str]) -> list[Block]:
    return [section("\n".join(lines))] if lines else []


def gateways_reply(gateways_: Sequence[Gateway], *, total: int, offset: int) -> Reply:
    unnamed = _("Unnamed gateway")
    lines = [
        f":satellite_antenna: *{clip(g.gateway, 100) or unnamed}*"
        + (f" · {clip(g.description, LINE_DESCRIPTION_LIMIT)}" if g.description else "")
        for g in gateways_
    ]
    return listing(GATEWAYS, _lines_block(lines), total=total, offset=offset, shown=len(lines))


def blacklist_reply(entries: Sequence[BlacklistEntry], *, total: int, offset: int) -> Reply:
    lines = [
        f":no_entry_sign: {code(truncate(show_phone(e.phone_number), 40))}"
        + (f" · {clip(e.description, LINE_DESCRIPTION_LIMIT)}" if e.description else "")
        for e in entries
    ]
    return listing(BLACKLIST, _lines_block(lines), total=total, offset=offset, shown=len(lines))


async def gateways(ctx: CommandContext, args: list[str]) -> Reply:
    _no_args("gateways", args)
    page = await ctx.client().gateways.list(limit=PAGE_SIZE, offset=ctx.offset)
    return gateways_reply(page.data, total=page.total, offset=ctx.offset)


async def blacklist(ctx: CommandContext, args: list[str]) -> Reply:
    _no_args("blacklist", args)
    page = await ctx.client().blacklist.list(limit=PAGE_SIZE, offset=ctx.offset)
    return blacklist_reply(page.data, total=page.total, offset=ctx.offset)
