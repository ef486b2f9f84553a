"""``policy`` and ``role``: who must approve what, and who may ask (admins only).

The policy is shown per kind of action (mode, approvers, self-approval, expiry, the
least role that may ask) with the approvals channel, and changed one kind at a time:

    policy set campaign.start mode=approval approvers=admins self=no expiry=30m
    policy set transfer mode=confirm
    policy channel #approvals        (or ``policy channel none``: the requesting channel)

A change applies to requests made after it: a pending request keeps the approvers it was
made with (storage snapshots them).
"""

from __future__ import annotations

from dataclasses import replace
from functools import reduce

from slack_sdk.models.blocks import (
    Block,
    HeaderBlock,
)

from commands.approvals import actions
from commands.approvals.workflow import all_policies, policy_for
from commands.kernel.catalog import usage_for_reader, usage_of
from commands.kernel.context import CommandContext
from commands.kernel.durations import parse_duration, span_words
from commands.kernel.grammar import UsageError, parse_channel, parse_user, split_options
from commands.kernel.help import role_name
from commands.kernel.i18n import N_, _
from commands.kernel.matching import did_you_mean
from commands.kernel.reply import Also, Reply, Tell, context_line, error, notice, section
from commands.kernel.text import code, escape, mention
from storage import (
    ADMINS,
    DEFAULT_ROLE,
    WORKFLOWS,
    KindPolicy,
    Mode,
    Role,
    Storage,
)
from storage.errors import InvalidValueError
from storage.offload import off_loop

MODE_WORDS = {
    Mode.APPROVAL: N_("approval"),
    Mode.CONFIRM: N_("confirm by the requester"),
    Mode.NONE: N_("runs at once"),
}
MAY_ASK = {
    Role.VIEWER: N_("viewers and up may ask"),
    Role.OPERATOR: N_("operators and up may ask"),
    Role.ADMIN: N_("admins and up may ask"),
}
SET_USAGE = (
    "policy set <kind> mode=approval|confirm|none approvers=admins|@a,@b self=yes|no "
    "expiry=30m requester=operator|admin"
)


def parse_kind(text: str) -> str:
    """A kind by its name (``campaign.start``) or the part after the dot (``start``)."""
    wanted = text.strip().lower().replace("-", "_")
    declared = actions.in_use().kinds
    for kind in declared:
        if wanted == kind:
            return kind
    matches = [k for k in declared if k.split(".", 1)[1] == wanted]
    if len(matches) == 1:
        return matches[0]
    raise UsageError(
        _("'{text}' is not a kind of action; use one of {kinds}.").format(
            text=text, kinds=", ".join(declared)
        ),
        SET_USAGE,
    )


def policy_line(kind: str, policy: KindPolicy) -> str:
    parts = [_(MODE_WORDS[policy.mode])]
    if policy.mode is Mode.APPROVAL:
        if policy.approvers == ADMINS:
            who = _("any admin")
        else:
            either = _("{people} or {person}")
            who = reduce(
                lambda people, person: either.format(people=people, person=person),
                (mention(u) for u in policy.approvers),
            )
        parts.append(_("by {who}").format(who=who))
        parts.append(
            _("self-approval allowed") if policy.allow_self_approval else _("not by the requester")
        )
    if policy.mode is not Mode.NONE:
        parts.append(_("expires after {span}").format(span=span_words(policy.expiry_seconds)))
    parts.append(_(MAY_ASK[policy.min_role]))
    try:
        title = _(actions.spec_for(kind).title)
    except LookupError:
        title = kind
    return f"*{escape(title)}* {code(kind)}\n" + " · ".join(parts)


def policy_reply(storage: Storage, team_id: str) -> Reply:
    workspace = storage.workspaces.get(team_id)
    channel = workspace.approvals_channel if workspace else None
    where = f"<#{channel}>" if channel else _("the channel where the request is made")
    posted = _("Approval cards are posted in {where}.").format(where=where)
    blocks: list[Block] = [
        HeaderBlock(text=_("Approval policy")),
        section(posted),
    ]
    for kind, policy in all_policies(storage.policies, team_id).items():
        blocks.append(section(policy_line(kind, policy)))
    blocks.append(
        context_line(
            _("Change one kind: {set_usage}. Change where cards go: {channel_usage}.").format(
                set_usage=code("/callops " + usage_for_reader(SET_USAGE)),
                channel_usage=code("/callops " + usage_for_reader(usage_of("policy channel"))),
            )
        )
    )
    return Reply(text=_("Approval policy"), blocks=blocks)


async def show_policy(ctx: CommandContext, args: list[str]) -> Reply:
    if args:
        raise UsageError(
            _("To change the policy use `policy set` or `policy channel`."), usage_of("policy")
        )
    return await off_loop(policy_reply, ctx.storage, ctx.team_id)


UNKNOWN_PERSON = N_(
    "'{token}' is not a person I can recognise: mention them (type @ and pick the name) so "
    "Slack sends their id."
)


def _approvers(text: str) -> tuple[str, ...] | str:
    if text.strip().lower() in ("admins", "admin"):
        return ADMINS
    ids: list[str] = []
    for token in (t for t in text.split(",") if t.strip()):
        ref = parse_user(token.strip())
        if ref is None or ref.id is None:
            raise UsageError(_(UNKNOWN_PERSON).format(token=token), SET_USAGE)
        ids.append(ref.id)
    if not ids:
        raise UsageError(_("Name at least one approver, or write approvers=admins."), SET_USAGE)
    return tuple(dict.fromkeys(ids))


def _yes_no(text: str) -> bool:
    value = text.strip().lower()
    if value in ("yes", "true", "on", "y"):
        return True
    if value in ("no", "false", "off", "n"):
        return False
    raise UsageError(_("'{text}' is not yes or no.").format(text=text), SET_USAGE)


async def set_policy(ctx: CommandContext, args: list[str]) -> Reply:
    positional, options = split_options(args)
    if len(positional) != 1 or not options:
        raise UsageError(_("Give one kind of action and what to change."), SET_USAGE)
    kind = parse_kind(positional[0])
    storage = ctx.storage
    policy = await off_loop(policy_for, storage.policies, ctx.team_id, kind)
    changes: dict[str, object] = {}
    for key, value in options.items():
        if key == "mode":
            try:
                changes["mode"] = Mode(value.strip().lower())
            except ValueError:
                raise UsageError(
                    _("'{value}' is not a mode: approval, confirm or none.").format(value=value),
                    SET_USAGE,
                ) from None
        elif key == "approvers":
            changes["approvers"] = _approvers(value)
        elif key == "self":
            changes["allow_self_approval"] = _yes_no(value)
        elif key == "expiry":
            changes["expiry_seconds"] = parse_duration(value, name="expiry=", usage=SET_USAGE)
        elif key == "requester":
            try:
                role = Role.parse(value)
            except InvalidValueError as exc:
                raise UsageError(exc.words(_), SET_USAGE) from None
            if role is Role.VIEWER:
                raise UsageError(
                    _("Viewers never ask for actions; use operator or admin."), SET_USAGE
                )
            changes["min_role"] = role
        else:
            raise UsageError(
                _(
                    "Unknown setting '{key}': use mode, approvers, self, expiry or requester."
                ).format(key=key),
                SET_USAGE,
            )
    try:
        updated = replace(policy, **changes)  # type: ignore[arg-type]
    except InvalidValueError as exc:
        raise UsageError(exc.words(_), SET_USAGE) from None
    await off_loop(storage.policies.set, ctx.team_id, kind, updated, updated_by=ctx.user_id)
    await ctx.audit(
        "policy.set",
        {
            "kind": kind,
            "mode": updated.mode.value,
            "approvers": updated.approvers
            if updated.approvers == ADMINS
            else list(updated.approvers),
            "allow_self_approval": updated.allow_self_approval,
            "expiry_seconds": updated.expiry_seconds,
            "min_role": updated.min_role.value,
        },
    )
    return notice(
        _("Policy changed; requests made from now on follow it.")
        + "\n"
        + policy_line(kind, updated),
        emoji=":white_check_mark:",
    )


async def policy_channel(ctx: CommandContext, args: list[str]) -> Reply:
    usage = usage_of("policy channel")
    if len(args) != 1:
        raise UsageError(_("Name one channel, or none."), usage)
    storage = ctx.storage
    if args[0].lower() == "none":
        await off_loop(storage.workspaces.ensure, ctx.team_id)
        await off_loop(storage.workspaces.set_channels, ctx.team_id, approvals=None)
        await ctx.audit("policy.channel", {"channel": None})
        return notice(_("Approval cards will be posted where each request is made."))
    ref = parse_channel(args[0])
    if ref is None:
        raise UsageError(
            _("'{token}' is not a channel: write #channel.").format(token=args[0]), usage
        )
    found = await ctx.slack.channel(ref.id or ref.name or "")
    channel_id = found.id if found else ref.id
    if channel_id is None:
        return error(
            _("I cannot find the channel {channel}.").format(channel=f"#{ref.name}"), usage
        )
    if found is not None and not found.is_member:
        return error(
            _(
                "I am not in {channel}, so I could not post cards there. Invite me first "
                "(/invite @callops), then run this again."
            ).format(channel=f"#{found.name}")
        )
    await off_loop(storage.workspaces.ensure, ctx.team_id)
    await off_loop(storage.workspaces.set_channels, ctx.team_id, approvals=channel_id)
    await ctx.audit("policy.channel", {"channel": channel_id})
    return notice(
        _("Approval cards will be posted in {channel}.").format(channel=f"<#{channel_id}>"),
        emoji=":white_check_mark:",
    )


async def role(ctx: CommandContext, args: list[str]) -> Reply | Also:
    usage = usage_of("role")
    storage = ctx.storage
    if not args:
        stored = await off_loop(storage.roles.list_roles, ctx.team_id)
        workflows = stored.pop(WORKFLOWS, DEFAULT_ROLE)
        lines = [f"{mention(user)}: {role_name(role)}" for user, role in stored.items()]
        body = "\n".join(lines) if lines else _("Nobody has been given a role yet.")
        heading = _("Roles given in callops")
        steps = _("Workflow steps run without a person (scheduled or by an event): {role}").format(
            role=role_name(workflows)
        )
        always = _(
            "Slack workspace admins are always admins; everyone else is a viewer until given "
            "a role."
        )
        return notice(f"*{heading}*\n{body}\n{steps}\n{always}", emoji=":busts_in_silhouette:")
    if len(args) != 2:
        raise UsageError(_("Name one person and one role."), usage)
    if args[0].lower() == WORKFLOWS:
        return await _workflows_role(ctx, storage, args[1], usage)
    ref = parse_user(args[0])
    if ref is None or ref.id is None:
        raise UsageError(_(UNKNOWN_PERSON).format(token=args[0]), usage)
    try:
        new_role = Role.parse(args[1])
    except InvalidValueError:
        raise UsageError(
            _("'{text}' is not a role: admin, operator or viewer.").format(text=args[1])
            + did_you_mean(args[1], ("admin", "operator", "viewer")),
            usage,
        ) from None
    await off_loop(storage.roles.set_role, ctx.team_id, ref.id, new_role, granted_by=ctx.user_id)
    await ctx.audit("role.set", {"user": ref.id, "role": new_role.value})
    if new_role is Role.ADMIN:
        now = _("{person} is now {role}.")
    else:
        now = _(
            "{person} is now {role}. (Slack workspace admins stay admins whatever is set here.)"
        )
    answer = notice(
        now.format(person=mention(ref.id), role=role_name(new_role)), emoji=":white_check_mark:"
    )
    if ref.id == ctx.user_id:
        return answer
    return Also(answer, Tell(ref.id, role_told(ctx.user_id, new_role)))


ROLE_CAN = {
    Role.VIEWER: N_(
        "You can look: campaigns, live calls, call records, reports and digests. Changing "
        "anything needs the operator role."
    ),
    Role.OPERATOR: N_(
        "You can now start, pause and stop campaigns, transfer calls, push autocalls and add "
        "leads; the risky ones wait for an admin's approval."
    ),
    Role.ADMIN: N_(
        "You can now do everything: approve requests, connect the workspace, and change the "
        "approval policy, roles, settings and calling rules."
    ),
}


def role_told(admin: str, role: Role) -> Reply:
    """The direct message to someone whose role changed: who changed it, and what the new
    role lets them do."""
    text = _("{admin} made you {role} in callops. {can}").format(
        admin=mention(admin), role=role_name(role), can=_(ROLE_CAN[role])
    )
    return notice(text, emoji=":busts_in_silhouette:")


async def _workflows_role(ctx: CommandContext, storage: Storage, word: str, usage: str) -> Reply:
    """The role of workflow steps no person started: stored like a person's, under the
    reserved id, and audited like one."""
    try:
        new_role = Role.parse(word)
    except InvalidValueError:
        raise UsageError(
            _("'{text}' is not a role: admin, operator or viewer.").format(text=word), usage
        ) from None
    await off_loop(storage.roles.set_role, ctx.team_id, WORKFLOWS, new_role, granted_by=ctx.user_id)
    await ctx.audit("role.set", {"user": WORKFLOWS, "role": new_role.value})
    return notice(
        _(
            "Workflow steps run without a person (scheduled or by an event) now act as "
            "{role}; a risky step still waits for an approver."
        ).format(role=role_name(new_role)),
        emoji=":white_check_mark:",
    )
