"""``notify``: the service's call-record callbacks as a live feed in Slack channels.

Each workspace has one unguessable callback URL (``/callbacks/<token>`` on the app). A
campaign is *attached* when its ``callback_url`` is that URL; the service then POSTs each
call record there, and *routes* say which channels get a card for it::

    notify                         the URL, the attached campaigns, the routes in short
    notify add #channel [campaign ...] [status=answered,busy] [direction=inbound] [presskey]
               [fold=on|off] [notable=busy,failed]
    notify list | notify remove <id>
    notify attach <campaign> | notify detach <campaign>
    notify rotate [only]           a new URL (the old one stops at once), after a confirm;
                                   the campaigns on the old URL move to the new one with it
                                   (``only``: they are left behind)

The URL is a secret (whoever knows it can post cards into the workspace's channels), so it
is only ever shown to admins, in ephemeral replies, and never written to the audit log.
Attaching changes the phone system's configuration, so it goes through the approval
policy (``notify.attach``); routes only decide which channel hears what (``notify.route``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from pydantic import Field
from slack_sdk.models.blocks import (
    Block,
    HeaderBlock,
)

from callcenter import CallCenter, errors
from callcenter.models import Campaign, Cdr
from commands.approvals.cards import propose
from commands.campaigns.control import CampaignRef
from commands.kernel.actions import (
    ActionParams,
    ActionRefused,
    ActionResult,
    ExecutionEnv,
    Observation,
    Proposal,
)
from commands.kernel.audiences import LANGUAGE_OPTION, post_language, post_language_note
from commands.kernel.call_words import fold_status, status_words
from commands.kernel.catalog import usage_for_reader
from commands.kernel.channels import channel_for_posting
from commands.kernel.context import CommandContext
from commands.kernel.failures import describe_failure
from commands.kernel.grammar import UsageError, check_keys, parse_direction, split_options
from commands.kernel.i18n import _, ngettext
from commands.kernel.matching import alternatives, suggest
from commands.kernel.reply import Outcome, Reply, context_line, notice, section
from commands.kernel.resolve import (
    CampaignNotFound,
    all_campaigns,
    campaign_queries,
    pick_campaign,
)
from commands.kernel.text import clip, code, escape, number, truncate
from storage import NotificationRoute, Storage
from storage.offload import off_loop

ATTACH_KIND = "notify.attach"
ROTATE_KIND = "notify.rotate"
"""The kinds of action declared in this family's ``FAMILY``, with their requests."""

CALLBACK_PREFIX = "/callbacks/"

USAGE = {
    "": "notify",
    "add": "notify add #channel [campaign ...] [status=answered,busy,...] "
    "[direction=inbound,outbound,local] [presskey] [fold=on|off] [notable=busy,...] "
    "[lang=vi|en] [optout-key=<digit>]",
    "list": "notify list",
    "remove": "notify remove <id>",
    "attach": "notify attach <campaign>",
    "detach": "notify detach <campaign>",
    "rotate": "notify rotate [only]",
}


def typed(usage: str) -> str:
    """A notify usage as the reader types it (``thong-bao add ...`` in Vietnamese), in
    code marks."""
    return code("/callops " + usage_for_reader(usage))


def attach_hint() -> str:
    return typed(USAGE["attach"])


_STATUS = re.compile(r"^[a-z][a-z\-]{0,39}$")
_ROUTE_ID = re.compile(r"^[0-9a-f]{8}$")


# --- matching a record to routes --------------------------------------------------------


def pressed(cdr: Cdr) -> bool:
    return bool(cdr.press_key.strip() or cdr.digits.strip())


def route_matches(route: NotificationRoute, cdr: Cdr) -> bool:
    """Every filter the route sets must hold; a filter left empty lets everything through."""
    if route.campaigns and cdr.campaign_uuid.lower() not in {c.lower() for c in route.campaigns}:
        return False
    if route.statuses and fold_status(cdr.status) not in route.statuses:
        return False
    if route.directions and cdr.direction.strip().lower() not in route.directions:
        return False
    return not (route.presskey_only and not pressed(cdr))


def matching_channels(routes: Iterable[NotificationRoute], cdr: Cdr) -> list[str]:
    """The channels that get a card for ``cdr``: each once, in the order routes were made."""
    return list(dict.fromkeys(r.channel for r in routes if route_matches(r, cdr)))


def notable(route: NotificationRoute, cdr: Cdr) -> bool:
    """A record worth a card even in a busy channel: a key pressed, an agent's call, or
    a status the route names."""
    agent = bool(cdr.extension.strip() or cdr.username.strip())
    return pressed(cdr) or agent or fold_status(cdr.status) in route.notable


def feed_kinds(routes: Iterable[NotificationRoute], cdr: Cdr) -> dict[str, str]:
    """How ``cdr`` goes to each channel that gets it, by the first route sending it there:
    ``fold`` (in the channel's folded message when records wait), ``note`` (notable: a
    reply on the folded message while one is open) or ``card`` (notable, the route says
    ``fold=off``: always a card of its own)."""
    kinds: dict[str, str] = {}
    for route in routes:
        if route.channel in kinds or not route_matches(route, cdr):
            continue
        if not notable(route, cdr):
            kinds[route.channel] = "fold"
        else:
            kinds[route.channel] = "note" if route.fold else "card"
    return kinds


def callback_url(public_url: str | None, token: str) -> str:
    """The workspace's callback URL on the app's public address."""
    return (public_url or "http://localhost:3000").rstrip("/") + CALLBACK_PREFIX + token


# --- the command ------------------------------------------------------------------------


async def _workspace_url(ctx: CommandContext, storage: Storage) -> str:
    token = await off_loop(storage.callback_tokens.get_or_create, ctx.team_id)
    return callback_url(ctx.app.public_url, token)


async def notify_command(ctx: CommandContext, args: list[str]) -> Outcome:
    sub = args[0].lower() if args else ""
    rest = args[1:]
    if sub == "":
        return await show(ctx)
    if sub == "add":
        return await add_route(ctx, rest)
    if sub == "list":
        if rest:
            raise UsageError(
                _("'notify {sub}' takes nothing after it.").format(sub=sub), USAGE[sub]
            )
        return await list_routes(ctx)
    if sub == "remove":
        return await off_loop(remove_route, ctx, rest)
    if sub in ("attach", "detach"):
        return await request_attach(ctx, rest, attach=sub == "attach")
    if sub == "rotate":
        if rest and [w.lower() for w in rest] != ["only"]:
            raise UsageError(
                _(
                    "'notify rotate' takes nothing after it, or 'only' to leave the campaigns on "
                    "the old URL behind."
                ),
                USAGE["rotate"],
            )
        return await rotate(ctx, reattach=not rest)
    subs = [k for k in USAGE if k]
    near = suggest(sub, subs, limit=2)
    if near:
        problem = _("'{word}' is not a notify command. Did you mean {near}? Use {subs}.")
    else:
        problem = _("'{word}' is not a notify command. Use {subs}.")
    raise UsageError(
        problem.format(
            word=args[0],
            near=alternatives([f"notify {n}" for n in near]),
            subs=alternatives(subs, str),
        ),
        USAGE[""] + " [add|list|remove|attach|detach|rotate]",
    )


async def show(ctx: CommandContext) -> Reply:
    storage = ctx.storage
    url = await _workspace_url(ctx, storage)
    campaigns = await all_campaigns(ctx.client())
    attached = [c for c in campaigns if c.callback_url == url]
    routes = await off_loop(storage.routes.list, ctx.team_id)
    lines = [
        _(":satellite_antenna: *This workspace's callback URL* (keep it secret):\n{url}").format(
            url=code(url)
        ),
        (
            _("*Attached campaigns:* {campaigns}").format(
                campaigns=", ".join(clip(c.campaign_name, 80) for c in attached)
            )
            if attached
            else _("*Attached campaigns:* none yet: {hint}.").format(hint=attach_hint())
        ),
        _("*Routes:* {n} (`/callops notify list`)").format(n=len(routes)),
    ]
    blocks: list[Block] = [
        HeaderBlock(text=_("Call notifications")),
        section("\n".join(lines)),
        section("\n".join(f"• {typed(u)}" for k, u in USAGE.items() if k)),
    ]
    return Reply(text=_("Call notifications: the callback URL and routes"), blocks=blocks)


# --- routes -------------------------------------------------------------------------------


def _split_values(raw: str, key: str) -> list[str]:
    values = [v.strip() for v in raw.split(",") if v.strip()]
    if not values:
        raise UsageError(_("{key}= needs at least one value.").format(key=key), USAGE["add"])
    return values


def _fold(raw: str) -> bool:
    value = raw.strip().lower()
    if value in ("on", "yes", "true"):
        return True
    if value in ("off", "no", "false"):
        return False
    raise UsageError(
        _(
            "'fold={value}' is neither on nor off. With fold=on (the default) a notable call "
            "is a reply on the message that lists a busy channel's calls; with fold=off it "
            "gets a card of its own."
        ).format(value=raw),
        USAGE["add"],
    )


def _statuses(raw: str, key: str = "status") -> list[str]:
    found = []
    for value in _split_values(raw, key):
        status = fold_status(value)
        if not _STATUS.match(status):
            raise UsageError(
                _(
                    "'{value}' is not a call status; use words such as answered, busy, "
                    "no-answered, failed."
                ).format(value=value),
                USAGE["add"],
            )
        found.append(status)
    return list(dict.fromkeys(found))


def _directions(raw: str) -> list[str]:
    found = []
    for value in _split_values(raw, "direction"):
        direction = parse_direction(value)
        if direction is None:
            raise UsageError(
                _("'{value}' is not a direction; use inbound, outbound or local.").format(
                    value=value
                ),
                USAGE["add"],
            )
        found.append(direction)
    return list(dict.fromkeys(found))


_OPTOUT_KEY = re.compile(r"^optout[-_]key=(.*)$", re.IGNORECASE)
_KEYS = frozenset("0123456789*#")


def optout_key_of(args: list[str], usage: str) -> tuple[list[str], str | None]:
    """The words without ``optout-key=<digit>``, and that key (a hyphen is no part of a
    ``key=`` name, so the grammar leaves the word positional; it is taken here)."""
    rest: list[str] = []
    key: str | None = None
    for word in args:
        found = _OPTOUT_KEY.match(word)
        if found is None:
            rest.append(word)
            continue
        key = found.group(1).strip()
        if len(key) != 1 or key not in _KEYS:
            raise UsageError(_("optout-key= takes one key of the phone: a digit, * or #."), usage)
    return rest, key


async def add_route(ctx: CommandContext, args: list[str]) -> Outcome:
    storage = ctx.storage
    usage = USAGE["add"]
    args, optout_key = optout_key_of(args, usage)
    positional, options = split_options(args)
    if not positional:
        raise UsageError(_("Name the channel that should get the call cards."), usage)
    check_keys(
        options,
        ("status", "direction", "fold", "notable", LANGUAGE_OPTION),
        what=_("a route filter"),
        usage=usage,
    )
    opts = {k.lower(): v for k, v in options.items()}
    language = post_language(opts, usage)
    statuses = _statuses(opts["status"]) if "status" in opts else []
    fold = _fold(opts["fold"]) if "fold" in opts else True
    notable_statuses = _statuses(opts["notable"], "notable") if "notable" in opts else []
    directions = _directions(opts["direction"]) if "direction" in opts else []
    channel_token, words = positional[0], positional[1:]
    presskey = any(w.lower() in ("presskey", "pressed") for w in words)
    names = [w for w in words if w.lower() not in ("presskey", "pressed")]
    channel = await channel_for_posting(ctx, channel_token, usage)
    campaigns: list[Campaign] = []
    if names:
        listing = await all_campaigns(ctx.client())
        for name in campaign_queries(names, listing):
            try:
                campaigns.append(pick_campaign(listing, name))
            except CampaignNotFound:
                raise UsageError(
                    _("No campaign is called or starts with '{name}'.").format(name=name), usage
                ) from None
    route = await off_loop(
        storage.routes.add,
        ctx.team_id,
        channel=channel,
        created_by=ctx.user_id,
        campaigns=list(dict.fromkeys(c.campaign_uuid for c in campaigns)),
        statuses=statuses,
        directions=directions,
        presskey_only=presskey,
        language=language,
        fold=fold,
        notable=notable_statuses,
        optout_key=optout_key,
    )
    await ctx.audit(
        "notify.route.add",
        {
            "route": route.id,
            "channel": channel,
            "campaigns": list(route.campaigns),
            "statuses": list(statuses),
            "directions": list(directions),
            "presskey": presskey,
            "language": language,
            "fold": fold,
            "notable": list(notable_statuses),
            "optout_key": optout_key,
        },
    )
    text = _("Route {id} added: {route}.").format(
        id=code(route.id),
        route=describe_route(route, {c.campaign_uuid: c.campaign_name for c in campaigns}),
    )
    url = await _workspace_url(ctx, storage)
    detached = [c for c in campaigns if c.callback_url != url]
    if detached:
        listed = ", ".join(f"*{clip(c.campaign_name, 80)}*" for c in detached)
        text += "\n" + _("{campaigns} does not send its call records here yet: {hint}.").format(
            campaigns=listed, hint=attach_hint()
        )
    return notice(text, emoji=":white_check_mark:")


def describe_route(route: NotificationRoute, campaign_names: Mapping[str, str]) -> str:
    """A route in words: where its cards go and which calls it lets through."""
    what = []
    if route.campaigns:
        named = ", ".join(
            f"*{clip(campaign_names[c], 80)}*" if c in campaign_names else code(c[:8])
            for c in route.campaigns
        )
        what.append(_("campaign {campaigns}").format(campaigns=named))
    else:
        what.append(_("every campaign"))
    if route.statuses:
        statuses = ", ".join(escape(status_words(s).lower()) for s in route.statuses)
        what.append(_("status {statuses}").format(statuses=statuses))
    if route.directions:
        directions = ", ".join(escape(d) for d in route.directions)
        what.append(_("{directions} calls").format(directions=directions))
    if route.presskey_only:
        what.append(_("only when a key was pressed"))
    if route.notable:
        what.append(
            _("notable also when {statuses}").format(
                statuses=", ".join(escape(status_words(s).lower()) for s in route.notable)
            )
        )
    if not route.fold:
        what.append(_("notable calls as cards of their own"))
    if route.optout_key:
        what.append(
            _("key {key} puts the number on the company's opt-out list").format(
                key=code(route.optout_key)
            )
        )
    return _("{channel} gets {what}").format(
        channel=f"<#{escape(route.channel)}>", what=" · ".join(what)
    ) + post_language_note(route.language)


async def list_routes(ctx: CommandContext) -> Reply:
    storage = ctx.storage
    routes = await off_loop(storage.routes.list, ctx.team_id)
    if not routes:
        return notice(
            _("No notification routes yet. Add one with {command}.").format(
                command=typed(USAGE["add"])
            ),
            emoji=":bell:",
        )
    names = {c.campaign_uuid: c.campaign_name for c in await all_campaigns(ctx.client())}
    lines = [f"{code(r.id)} {describe_route(r, names)}" for r in routes]
    title = _("Notification routes: {n}").format(n=len(routes))
    blocks: list[Block] = [HeaderBlock(text=title)]
    for start in range(0, len(lines), 20):
        chunk = "\n".join(lines[start : start + 20])
        blocks.append(section(chunk))
    blocks.append(
        context_line(_("Remove one with {command}.").format(command=typed(USAGE["remove"])))
    )
    return Reply(text=title, blocks=blocks)


def remove_route(ctx: CommandContext, args: list[str]) -> Reply:
    storage = ctx.storage
    if len(args) != 1:
        raise UsageError(_("Name one route id (see `/callops notify list`)."), USAGE["remove"])
    route_id = args[0].strip().lower()
    if not _ROUTE_ID.match(route_id) or not storage.routes.remove(ctx.team_id, route_id):
        raise UsageError(
            _("There is no route '{id}'; `/callops notify list` shows their ids.").format(
                id=args[0]
            ),
            USAGE["remove"],
        )
    storage.audit.append(ctx.team_id, ctx.user_id, "notify.route.remove", {"route": route_id})
    return notice(_("Route {id} removed.").format(id=code(route_id)), emoji=":wastebasket:")


# --- the callback URL -----------------------------------------------------------------


class RotateParams(ActionParams):
    """A new callback URL; with ``reattach``, every campaign that sends its records to the
    old URL when the rotation runs is pointed at the new one.  ``campaigns`` are those
    that did when it was asked for, for the card; no URL is stored (it is the secret)."""

    reattach: bool
    campaigns: tuple[CampaignRef, ...] = ()


LISTED = 20


def _campaign_names(names: Sequence[str]) -> str:
    shown = ", ".join(f"*{clip(n, 80)}*" for n in names[:LISTED])
    if len(names) <= LISTED:
        return shown
    return _("{names} and {n} more").format(names=shown, n=number(len(names) - LISTED))


def describe_rotate(params: RotateParams) -> str:
    lines = [
        _(
            "Give this workspace a *new callback URL*. The current one stops working at once "
            "(do this when it has leaked)."
        )
    ]
    names = [c.campaign_name or c.campaign_uuid for c in params.campaigns]
    if not names:
        lines.append(_("No campaign sends its call records to the current URL."))
    elif params.reattach:
        lines.append(
            ngettext(
                "Re-attach the {n} campaign that use the current URL, in the same step: "
                "{campaigns} (any other campaign on it by then too).",
                "Re-attach the {n} campaigns that use the current URL, in the same step: "
                "{campaigns} (any other campaign on it by then too).",
                len(names),
            ).format(n=number(len(names)), campaigns=_campaign_names(names))
        )
    else:
        lines.append(
            ngettext(
                ":warning: {n} campaign keep the old URL and stop sending their call records "
                "here: {campaigns}.",
                ":warning: {n} campaigns keep the old URL and stop sending their call records "
                "here: {campaigns}.",
                len(names),
            ).format(n=number(len(names)), campaigns=_campaign_names(names))
        )
    return "\n".join(lines)


async def execute_rotate(params: RotateParams, env: ExecutionEnv) -> ActionResult:
    """Read the campaigns, rotate, then point those on the old URL at the new one: each
    with the campaign's whole body (``set_fields``), each once."""
    storage = env.storage
    if storage is None or not env.team_id:
        raise ActionRefused(_("the app's database is not available here"))
    old_token = await off_loop(storage.callback_tokens.get, env.team_id)
    old_url = callback_url(env.public_url, old_token) if old_token else None
    stale: list[Campaign] = []
    if old_url is not None:
        stale = [c for c in await all_campaigns(env.cc) if c.callback_url == old_url]
    new_url = callback_url(
        env.public_url, await off_loop(storage.callback_tokens.rotate, env.team_id)
    )
    text = _("New callback URL in use; the old one stopped working. `/callops notify` shows it.")
    moved: list[Campaign] = []
    failed: list[tuple[Campaign, str]] = []
    if params.reattach:
        for campaign in stale:
            try:
                await env.cc.campaigns.set_fields(campaign.campaign_uuid, callback_url=new_url)
            except errors.CallCenterError as exc:
                effect = _("its callback may or may not have moved")
                failed.append((campaign, describe_failure(exc, effect=effect).text))
            else:
                moved.append(campaign)
        if moved:
            text += "\n" + ngettext(
                "Re-attached {moved} of {n} campaign: {campaigns}.",
                "Re-attached {moved} of {n} campaigns: {campaigns}.",
                len(stale),
            ).format(
                moved=number(len(moved)),
                n=number(len(stale)),
                campaigns=_campaign_names([c.campaign_name for c in moved]),
            )
        if failed:
            text += "\n" + _(":warning: Not re-attached: {campaigns}").format(
                campaigns="; ".join(
                    f"*{clip(c.campaign_name, 80)}* ({truncate(problem, 200)})"
                    for c, problem in failed[:LISTED]
                )
            )
    elif stale:
        text += "\n" + _(
            ":warning: Still on the old URL: {campaigns}. Attach them again with {hint}."
        ).format(campaigns=_campaign_names([c.campaign_name for c in stale]), hint=attach_hint())
    return ActionResult(
        ok=not failed,
        text=text,
        data={
            "reattached": [c.campaign_uuid for c in moved],
            "failed": [c.campaign_uuid for c, _ in failed],
        },
    )


async def rotate(ctx: CommandContext, *, reattach: bool) -> Reply:
    """Ask for a new callback URL (a confirm by default policy), offering to move the
    campaigns on the old one in the same request."""
    storage = ctx.storage
    old = await off_loop(storage.callback_tokens.get, ctx.team_id)
    stale: list[Campaign] = []
    if old:
        old_url = callback_url(ctx.app.public_url, old)
        stale = [c for c in await all_campaigns(ctx.client()) if c.callback_url == old_url]
    params = RotateParams(
        reattach=reattach,
        campaigns=tuple(
            CampaignRef(campaign_uuid=c.campaign_uuid, campaign_name=c.campaign_name) for c in stale
        ),
    )
    note = None
    if stale and reattach:
        note = _("To rotate without moving them: `/callops notify rotate only`.")
    return await propose(ctx, Proposal(ROTATE_KIND, params, prompt_note=note))


def host_of(url: str) -> str:
    """Only the host of another system's URL is shown: its path may hold its own secret."""
    parts = urlsplit(url.strip())
    return parts.netloc or _("another address")


async def request_attach(ctx: CommandContext, args: list[str], *, attach: bool) -> Outcome:
    """Ask to attach (or detach) a campaign's callbacks: the approval flow shows exactly
    what will change and runs it once, when the policy's approval or confirm is given."""
    storage = ctx.storage
    sub = "attach" if attach else "detach"
    if not args:
        raise UsageError(_("Name the campaign."), USAGE[sub])
    campaign = pick_campaign(await all_campaigns(ctx.client()), " ".join(args))
    url = await _workspace_url(ctx, storage) if attach else ""
    name = clip(campaign.campaign_name, 100)
    if campaign.callback_url == url:
        if attach:
            said = _("*{name}* already sends its call records here; nothing to change.")
        else:
            said = _("*{name}* has no callback URL; nothing to change.")
        return notice(said.format(name=name), emoji=":information_source:")
    params = AttachParams(
        campaign_uuid=campaign.campaign_uuid,
        campaign_name=campaign.campaign_name,
        attach=attach,
        callback_token_url=url,
        replaces_host=host_of(campaign.callback_url) if campaign.callback_url else None,
    )
    return await propose(ctx, Proposal(ATTACH_KIND, params))


class AttachParams(ActionParams):
    """Point a campaign's ``callback_url`` at this workspace (or clear it).
    ``replaces_host`` is only the host of the URL it replaces, whose path may hold
    another system's secret."""

    OMIT_WHEN_NONE = frozenset({"replaces_host"})

    campaign_uuid: str
    campaign_name: str = ""
    attach: bool
    callback_token_url: str = Field(default="", repr=False)
    """The URL to set.  Its name says "token", so the audit log redacts it (the URL
    holds the workspace's secret); cards never show it."""
    replaces_host: str | None = None


def describe_attach(params: AttachParams) -> str:
    """The change in words, from the stored parameters (for the prompt and the card)."""
    name = clip(params.campaign_name, 100)
    if not params.attach:
        return _(
            "Detach campaign *{name}*: its `callback_url` is cleared, so its call records "
            "stop coming to this workspace."
        ).format(name=name)
    text = _(
        "Attach campaign *{name}*: the service sends each of its call records to this "
        "workspace's callback URL, and cards go to the channels the notification routes name."
    ).format(name=name)
    if params.replaces_host:
        text += "\n" + _(
            ":warning: When asked, it sent them to *{host}*; attaching ends that."
        ).format(host=clip(params.replaces_host, 100))
    return text


async def execute_attach(params: AttachParams, env: ExecutionEnv) -> ActionResult:
    """The one service write: a full-body campaign update that keeps every other field."""
    campaign_uuid, url = params.campaign_uuid, params.callback_token_url
    name = clip(params.campaign_name, 100)
    try:
        await env.cc.campaigns.set_fields(campaign_uuid, callback_url=url)
    except errors.NotFoundError:
        # set_fields reads the campaign before it writes: nothing was sent.
        raise ActionRefused(_("the campaign no longer exists")) from None
    if url:
        text = _("*{name}* now sends its call records here.").format(name=name)
    else:
        text = _("*{name}* no longer sends its call records here.").format(name=name)
    return ActionResult(ok=True, text=text, data={"campaign_uuid": campaign_uuid})


async def observe_attach(params: Mapping[str, Any], cc: CallCenter) -> Observation:
    """After a cut-off run: does the campaign's callback URL say what was asked?"""
    campaign_uuid = str(params["campaign_uuid"])
    url = str(params.get("callback_token_url") or "")
    name = clip(params.get("campaign_name", ""), 100)
    try:
        campaign = await cc.campaigns.get(campaign_uuid)
    except errors.NotFoundError:
        return Observation(
            False, _("*{name}* no longer exists; nothing more was sent.").format(name=name)
        )
    if campaign.callback_url == url:
        if url:
            done = _("*{name}* sends its call records here: the service shows it was done.")
        else:
            done = _(
                "*{name}* no longer sends its call records here: the service shows it was done."
            )
        return Observation(True, done.format(name=name))
    return Observation(
        False,
        _("*{name}* was not changed: its callback URL is as before. Ask again if needed.").format(
            name=name
        ),
    )
