"""``calls``: what is on the line right now.

The service gives no page parameters for live calls (spec 4.8: one array and a total),
so the listing is paged here; a call center's live calls number in the tens.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime

from slack_sdk.models.blocks import (
    Block,
    ButtonElement,
    ContextBlock,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)

from callcenter.models import ActiveCall
from commands.calls.transfer import TRANSFER_BUTTON, button_value
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError
from commands.kernel.paging import pager, showing
from commands.kernel.reply import Reply, notice
from commands.kernel.text import clip, duration, local_time, number, parse_service_time, truncate

PAGE_SIZE = 15

DIRECTION_LABEL = {
    "inbound": ":arrow_lower_left: in",
    "outbound": ":arrow_upper_right: out",
    "local": ":left_right_arrow: local",
}
STATE_LABEL = {
    "CS_NEW": ":hourglass_flowing_sand: setting up",
    "CS_INIT": ":hourglass_flowing_sand: setting up",
    "CS_ROUTING": ":hourglass_flowing_sand: routing",
    "CS_SOFT_EXECUTE": ":large_green_circle: on the line",
    "CS_EXECUTE": ":large_green_circle: on the line",
    "CS_EXCHANGE_MEDIA": ":large_green_circle: on the line",
    "CS_PARK": ":parking: parked",
    "CS_CONSUME_MEDIA": ":large_green_circle: on the line",
    "CS_HIBERNATE": ":zzz: on hold",
    "CS_RESET": ":hourglass_flowing_sand: resetting",
    "CS_HANGUP": ":red_circle: hanging up",
    "CS_REPORTING": ":red_circle: hanging up",
    "CS_DESTROY": ":red_circle: hanging up",
}
"""The service reports FreeSWITCH channel states (``CS_EXECUTE`` is the one seen)."""


def direction_label(direction: str) -> str:
    return DIRECTION_LABEL.get(direction.lower(), clip(direction, 20) or "–")


def state_label(state: str) -> str:
    return STATE_LABEL.get(state.upper(), clip(state, 40) or "–")


def _call_row(call: ActiveCall, ctx: CommandContext, now: datetime, index: int = 0) -> SectionBlock:
    started = parse_service_time(call.created_time)
    elapsed = duration((now - started).total_seconds()) if started else "–"
    source = clip(call.source, 60) or "unknown"
    destination = clip(call.destination, 60) or "unknown"
    text = (
        f"*{source}* → *{destination}*\n"
        f"{direction_label(call.direction)} · {state_label(call.state)} · "
        f":stopwatch: {elapsed} (since {local_time(call.created_time, ctx.tz, '%H:%M:%S')})"
    )
    # Slack wants action ids unique within a message, hence the row number; the button
    # opens the transfer form at once, before any service call (trigger ids last 3 s).
    transfer = ButtonElement(
        text="Transfer", action_id=f"{TRANSFER_BUTTON}_{index}", value=button_value(call)
    )
    return SectionBlock(text=MarkdownTextObject(text=truncate(text, 3000)), accessory=transfer)


def calls_reply(
    calls: Sequence[ActiveCall], ctx: CommandContext, *, now: datetime | None = None
) -> Reply:
    if not calls:
        return notice("No live calls right now.", emoji=":telephone_receiver:")
    moment = now or datetime.now(UTC)
    ordered = sorted(calls, key=lambda c: c.created_time)
    total = len(ordered)
    page = ordered[ctx.offset : ctx.offset + PAGE_SIZE]
    by_direction = Counter(c.direction.lower() or "unknown" for c in ordered)
    summary = " · ".join(
        f"{direction_label(d)} {number(n)}" for d, n in sorted(by_direction.items())
    )
    blocks: list[Block] = [
        HeaderBlock(text=f"Live calls: {number(total)}"),
        ContextBlock(elements=[MarkdownTextObject(text=summary or "–")]),
    ]
    blocks.extend(_call_row(c, ctx, moment, i) for i, c in enumerate(page))
    blocks.append(showing(ctx.offset, len(page), total, "live calls"))
    blocks.extend(pager("calls", ctx.offset, PAGE_SIZE, total))
    return Reply(text=f"Live calls: {total}", blocks=blocks)


async def live_calls(ctx: CommandContext, args: list[str]) -> Reply:
    if args:
        raise UsageError("`calls` takes no arguments.", usage_of("calls"))
    result = await ctx.client().calls.list()
    return calls_reply(result.data, ctx)


HANDLERS = {"calls": live_calls}
