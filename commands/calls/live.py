"""``calls``: what is on the line right now.

The service gives no page parameters for live calls (spec 4.8: one array and a total),
so the listing is paged here; a call center's live calls number in the tens.

A live call (spec 2.13) names no agent and no campaign.  The agent is derived from
documented data only (``agent_for_call``: the user whose extension is one of the call's
parties) and is "unknown" otherwise; the campaign is unknown while the call is live and
is read from the call's record once it has ended.  Each row shows the call's id, the one
``transfer`` needs.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from slack_sdk.models.blocks import (
    Block,
    ButtonElement,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)

from callcenter import errors
from callcenter.models import ActiveCall, User
from commands.calls.transfer import TRANSFER_BUTTON, TRANSFER_ROLE, button_value
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError
from commands.kernel.i18n import N_, _
from commands.kernel.names import name_of
from commands.kernel.paging import pager, showing
from commands.kernel.phones import show_parties
from commands.kernel.reply import Reply, context_line, notice
from commands.kernel.resolve import all_users
from commands.kernel.text import (
    clip,
    code,
    duration,
    number,
    parse_service_time,
    truncate,
    when,
)

PAGE_SIZE = 15
CAMPAIGN_UNKNOWN = N_(":dart: campaign unknown")
"""A live call names no campaign (spec 2.13); its record (``cdr``) does once it ends."""

DIRECTION_LABEL = {
    "inbound": N_(":arrow_lower_left: in"),
    "outbound": N_(":arrow_upper_right: out"),
    "local": N_(":left_right_arrow: local"),
}
STATE_LABEL = {
    "CS_NEW": N_(":hourglass_flowing_sand: setting up"),
    "CS_INIT": N_(":hourglass_flowing_sand: setting up"),
    "CS_ROUTING": N_(":hourglass_flowing_sand: routing"),
    "CS_SOFT_EXECUTE": N_(":large_green_circle: on the line"),
    "CS_EXECUTE": N_(":large_green_circle: on the line"),
    "CS_EXCHANGE_MEDIA": N_(":large_green_circle: on the line"),
    "CS_PARK": N_(":parking: parked"),
    "CS_CONSUME_MEDIA": N_(":large_green_circle: on the line"),
    "CS_HIBERNATE": N_(":zzz: on hold"),
    "CS_RESET": N_(":hourglass_flowing_sand: resetting"),
    "CS_HANGUP": N_(":red_circle: hanging up"),
    "CS_REPORTING": N_(":red_circle: hanging up"),
    "CS_DESTROY": N_(":red_circle: hanging up"),
}
"""The service reports FreeSWITCH channel states (``CS_EXECUTE`` is the one seen)."""


def direction_label(direction: str) -> str:
    label = DIRECTION_LABEL.get(direction.lower())
    return _(label) if label else clip(direction, 20) or "–"


def state_label(state: str) -> str:
    label = STATE_LABEL.get(state.upper())
    return _(label) if label else clip(state, 40) or "–"


def agents_on_call(call: ActiveCall, users: Iterable[User]) -> list[User]:
    """The users whose extension is the call's ``source`` or ``destination``, in that
    order: the only documented link between a live call and an agent (a call between
    two extensions has two)."""
    by_extension = {u.extension.strip(): u for u in users if u.extension.strip()}
    parties = dict.fromkeys(p.strip() for p in (call.source, call.destination))
    return [by_extension[p] for p in parties if p in by_extension]


def agent_for_call(call: ActiveCall, users: Iterable[User]) -> User | None:
    """The agent on a live call, or None when no user's extension is one of its parties
    (the agent is then unknown: a call still ringing, or a number outside the directory)."""
    found = agents_on_call(call, users)
    return found[0] if found else None


def agent_words(call: ActiveCall, users: Iterable[User]) -> str:
    """``agent *Name* (ext 1003)`` for the agents on the call, or ``agent unknown`` (escaped)."""
    found = agents_on_call(call, users)
    if not found:
        return _(":bust_in_silhouette: agent unknown")
    names = [
        _("*{name}* (ext {ext})").format(
            name=clip(name_of(u, u.username), 80),
            ext=clip(u.extension, 30),
        )
        for u in found
    ]
    if len(names) == 1:
        return _(":bust_in_silhouette: agent {agent}").format(agent=names[0])
    # A call has two parties, so two agents at most.
    return _(":bust_in_silhouette: agent {first} and {second}").format(
        first=names[0], second=", ".join(names[1:])
    )


def _call_row(
    call: ActiveCall,
    ctx: CommandContext,
    now: datetime,
    index: int = 0,
    users: Sequence[User] = (),
) -> SectionBlock:
    started = parse_service_time(call.created_time)
    elapsed = duration((now - started).total_seconds()) if started else "–"
    shown = show_parties(call.source, call.destination, call.direction)
    source = clip(shown[0], 60) or _("unknown")
    destination = clip(shown[1], 60) or _("unknown")
    since = _(":stopwatch: {elapsed} (since {since})").format(
        elapsed=elapsed, since=when(started, ctx.tz, now=now)
    )
    text = (
        f"*{source}* → *{destination}*\n"
        f"{direction_label(call.direction)} · {state_label(call.state)} · {since}\n"
        f"{agent_words(call, users)} · {_(CAMPAIGN_UNKNOWN)}\n"
        + _("call {id}").format(id=code(call.call_id))
    )
    # Slack wants action ids unique within a message, hence the row number; the button
    # opens the transfer form at once, before any service call (trigger ids last 3 s).
    # A viewer's listing has none: they may not transfer.
    transfer = None
    if ctx.role.at_least(TRANSFER_ROLE):
        transfer = ButtonElement(
            text=_("Transfer"), action_id=f"{TRANSFER_BUTTON}_{index}", value=button_value(call)
        )
    return SectionBlock(text=MarkdownTextObject(text=truncate(text, 3000)), accessory=transfer)


def calls_reply(
    calls: Sequence[ActiveCall],
    ctx: CommandContext,
    *,
    users: Sequence[User] | None,
    now: datetime | None = None,
) -> Reply:
    """The live calls, a page at a time; ``users`` (the directory) names each call's
    agent, None when the directory could not be read."""
    if not calls:
        return notice(_("No live calls right now."), emoji=":telephone_receiver:")
    moment = now or datetime.now(UTC)
    ordered = sorted(calls, key=lambda c: c.created_time)
    total = len(ordered)
    page = ordered[ctx.offset : ctx.offset + PAGE_SIZE]
    by_direction = Counter(c.direction.lower() or "unknown" for c in ordered)
    summary = " · ".join(
        f"{direction_label(d)} {number(n)}" for d, n in sorted(by_direction.items())
    )
    blocks: list[Block] = [
        HeaderBlock(text=_("Live calls: {n}").format(n=number(total))),
        context_line(summary or "–"),
    ]
    blocks.extend(_call_row(c, ctx, moment, i, users or ()) for i, c in enumerate(page))
    if users is None:
        blocks.append(
            context_line(_(":warning: Agents are unknown: the user directory could not be read."))
        )
    blocks.append(
        context_line(
            _(
                "A live call names no campaign; its call record does once it ends "
                "(`/callops cdr`). The agent is whoever has the extension on the line. "
                "`/callops transfer &lt;call id&gt; &lt;ext&gt;` moves a call."
            )
        )
    )
    blocks.append(showing(ctx.offset, len(page), total, one=N_("live call"), many=N_("live calls")))
    blocks.extend(pager("calls", ctx.offset, PAGE_SIZE, total))
    return Reply(text=_("Live calls: {n}").format(n=total), blocks=blocks)


async def live_calls(ctx: CommandContext, args: list[str]) -> Reply:
    if args:
        raise UsageError(_("`calls` takes no arguments."), usage_of("calls"))
    cc = ctx.client()
    result, users = await asyncio.gather(cc.calls.list(), _directory(ctx))
    return calls_reply(result.data, ctx, users=users)


async def _directory(ctx: CommandContext) -> list[User] | None:
    """Every user (their extensions name the agents on the calls); None when the
    directory cannot be read, so the calls still show, their agents unknown."""
    try:
        return await all_users(ctx.client())
    except errors.CallCenterError:
        return None
