"""``cdr [phone=] [ext=] [status=] [direction=] [campaign=] [from=] [to=]``: call records.

Pages come from the service (``limit``/``offset`` and its ``total``): a day of call
records can run to tens of thousands, far too many to fetch to page here.

The Next/Previous buttons carry the command rebuilt with an explicit window
(``from=``/``to=`` to the second), so paging through "the last 24 hours" keeps looking
at the same 24 hours while new calls arrive, and a page never shifts under the reader.

Besides ``key=value`` filters, a bare phone number is taken as ``phone=`` and a bare
UUID as ``campaign=``; ``campaign=`` takes a name with spaces, unquoted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import (
    Block,
    ContextBlock,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)

from callcenter.models import Campaign, Cdr
from commands.calls.live import direction_label
from commands.campaigns.cards import guess_note
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import (
    UsageError,
    check_keys,
    parse_direction,
    quote_word,
    split_options,
)
from commands.kernel.paging import pager, showing
from commands.kernel.periods import PeriodError, format_moment, parse_moment, to_service
from commands.kernel.reply import Reply
from commands.kernel.resolve import (
    CampaignMatch,
    CampaignNotFound,
    all_campaigns,
    find_campaign,
)
from commands.kernel.tables import Cell, Column, Link, table
from commands.kernel.text import (
    clip,
    code,
    duration,
    escape,
    full_name,
    link,
    local_time,
    number,
    truncate,
)

PAGE_SIZE = 10
DEFAULT_WINDOW = timedelta(hours=24)
FILTER_KEYS = ("phone", "ext", "status", "direction", "campaign", "from", "to")

_PHONE = re.compile(r"^\+?[0-9]{2,20}$")
_EXTENSION = re.compile(r"^[0-9A-Za-z*#]{1,20}$")
_STATUS = re.compile(r"^[A-Za-z][A-Za-z_\-]{0,39}$")
_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")

STATUS_ICON = {
    "answered": ":white_check_mark:",
    "busy": ":no_entry:",
    "busy-line": ":no_entry:",
    "no-answered": ":hourglass:",
    "no-answer": ":hourglass:",
    "not-available": ":no_mobile_phones:",
    "failed": ":x:",
    "cancel": ":leftwards_arrow_with_hook:",
    "cancelled": ":leftwards_arrow_with_hook:",
    "invalid": ":grey_question:",
    "invalid-number": ":grey_question:",
    "congestion": ":construction:",
    "voicemail": ":mailbox_with_mail:",
    "phone-block": ":no_entry_sign:",
    "drop": ":warning:",
}


def status_icon(status: str) -> str:
    key = status.strip().lower().replace("_", "-")
    return STATUS_ICON.get(key, ":black_small_square:")


@dataclass
class CdrQuery:
    """The parsed filters; ``start``/``end`` are aware, in the workspace's zone."""

    start: datetime | None = None
    end: datetime | None = None
    phone: str | None = None
    extension: str | None = None
    status: str | None = None
    direction: str | None = None
    campaign: Campaign | None = None
    campaign_query: str | None = None

    def command(self, tz: ZoneInfo) -> str:
        """The command text that shows exactly these records again (for buttons)."""
        parts = ["cdr"]
        for key, value in (
            ("phone", self.phone),
            ("ext", self.extension),
            ("status", self.status),
            ("direction", self.direction),
        ):
            if value:
                parts.append(quote_word(f"{key}={value}"))
        if self.campaign is not None:
            parts.append(f"campaign={self.campaign.campaign_uuid}")
        if self.start is not None:
            parts.append(quote_word(f"from={format_moment(self.start, tz)}"))
        if self.end is not None:
            parts.append(quote_word(f"to={format_moment(self.end, tz)}"))
        return " ".join(parts)

    def describe(self, tz: ZoneInfo) -> str:
        """The filters in words, for the context line under the header."""
        fmt = "%d %b %H:%M"
        start = self.start.astimezone(tz).strftime(fmt) if self.start else "the beginning"
        end = self.end.astimezone(tz).strftime(fmt) if self.end else "now"
        parts = [f":calendar: {start} → {end} ({escape(tz.key)})"]
        if self.phone:
            parts.append(f"phone {code(self.phone)}")
        if self.extension:
            parts.append(f"ext {code(self.extension)}")
        if self.status:
            parts.append(f"status {code(self.status)}")
        if self.direction:
            parts.append(direction_label(self.direction))
        if self.campaign is not None:
            parts.append(f"campaign *{clip(self.campaign.campaign_name, 150)}*")
        return " · ".join(parts)


def _bad(key: str, what: str) -> UsageError:
    return UsageError(f"{key}= {what}", usage_of("cdr"))


def parse_query(args: list[str], tz: ZoneInfo, *, now: datetime | None = None) -> CdrQuery:
    """Read the filters; every problem names the key it is about."""
    # A campaign's name may have spaces: ``campaign=Gọi lại khách hàng CT status=busy``.
    positional, options = split_options(args, spaced=("campaign",))
    check_keys(options, FILTER_KEYS, what="a filter", usage=usage_of("cdr"))
    options = {k.lower(): v.strip() for k, v in options.items()}
    for word in positional:
        if _UUID.match(word) and "campaign" not in options:
            options["campaign"] = word
        elif _PHONE.match(word) and "phone" not in options:
            options["phone"] = word
        else:
            raise UsageError(
                f"'{word}' is not a filter; write filters as key=value, e.g. phone=0912345678.",
                usage_of("cdr"),
            )
    for key, value in options.items():
        if not value:
            raise _bad(key, "needs a value.")
    query = CdrQuery()
    if "phone" in options:
        if not _PHONE.match(options["phone"]):
            raise _bad("phone", "takes a phone number of digits, e.g. phone=0912345678.")
        query.phone = options["phone"]
    if "ext" in options:
        if not _EXTENSION.match(options["ext"]):
            raise _bad("ext", "takes an extension such as ext=1001.")
        query.extension = options["ext"]
    if "status" in options:
        if not _STATUS.match(options["status"]):
            raise _bad("status", "takes a call status such as status=answered or status=busy.")
        query.status = options["status"]
    if "direction" in options:
        direction = parse_direction(options["direction"])
        if direction is None:
            raise _bad("direction", "is inbound, outbound or local.")
        query.direction = direction
    for key in ("from", "to"):
        if key in options:
            try:
                moment = parse_moment(options[key], tz, end=key == "to", now=now)
            except PeriodError as exc:
                raise _bad(key, str(exc)) from exc
            if key == "from":
                query.start = moment
            else:
                query.end = moment
    if query.start is None and query.end is None:
        query.end = parse_moment("now", tz, now=now)
        query.start = query.end - DEFAULT_WINDOW
    if query.start is not None and query.end is not None and query.start > query.end:
        raise UsageError("from= is after to=; the window would be empty.", usage_of("cdr"))
    query.campaign_query = options.get("campaign")
    return query


def _record(cdr: Cdr, tz: ZoneInfo, campaign_names: Mapping[str, str]) -> SectionBlock:
    when = local_time(cdr.time_started, tz, "%d %b %H:%M:%S")
    source = clip(cdr.from_number, 60) or "unknown"
    destination = clip(cdr.to_number, 60) or "unknown"
    status = clip(cdr.status, 40) or "unknown"
    if cdr.cause and cdr.cause.lower().replace("_", "-") != cdr.status.lower():
        status += f" ({clip(cdr.cause, 60)})"
    length = f":stopwatch: {duration(cdr.duration)}"
    if cdr.billsec:
        length += f" (talk {duration(cdr.billsec)})"
    details = [f"{status_icon(cdr.status)} {status}", length]
    if cdr.extension:
        agent = full_name(cdr.fullname) or cdr.username
        details.append(
            f"ext {clip(cdr.extension, 30)}" + (f" ({clip(agent, 80)})" if agent else "")
        )
    pressed = cdr.press_key or cdr.digits
    if pressed:
        details.append(f"pressed {code(truncate(pressed, 20))}")
    name = campaign_names.get(cdr.campaign_uuid)
    if name:
        details.append(f":mega: {clip(name, 100)}")
    recording = cdr.recording_url or cdr.autocall_recording_url
    if recording.strip().lower().startswith(("http://", "https://")):
        details.append(link(recording, ":studio_microphone: recording"))
    text = f"`{when}` {direction_label(cdr.direction)} *{source}* → *{destination}*\n" + " · ".join(
        details
    )
    return SectionBlock(text=MarkdownTextObject(text=truncate(text, 3000)))


RECORD_COLUMNS = (
    Column("Time"),
    Column("Direction"),
    Column("From"),
    Column("To"),
    Column("Status"),
    Column("Duration", "right"),
    Column("Talk", "right"),
    Column("Extension"),
    Column("Pressed"),
    Column("Campaign"),
    Column("Recording"),
)
DIRECTION_WORD = {"inbound": "in", "outbound": "out", "local": "local"}


def _record_cells(cdr: Cdr, tz: ZoneInfo, campaign_names: Mapping[str, str]) -> list[Cell]:
    status = cdr.status or "unknown"
    if cdr.cause and cdr.cause.lower().replace("_", "-") != cdr.status.lower():
        status += f" ({cdr.cause})"
    agent = full_name(cdr.fullname) or cdr.username
    extension = cdr.extension + (f" ({agent})" if agent and cdr.extension else "")
    recording = cdr.recording_url or cdr.autocall_recording_url
    return [
        local_time(cdr.time_started, tz, "%d %b %H:%M:%S"),
        DIRECTION_WORD.get(cdr.direction.lower(), cdr.direction),
        cdr.from_number,
        cdr.to_number,
        status,
        duration(cdr.duration),
        duration(cdr.billsec) if cdr.billsec else None,
        extension,
        cdr.press_key or cdr.digits,
        campaign_names.get(cdr.campaign_uuid),
        Link(recording.strip(), "recording") if recording.strip() else None,
    ]


def records_reply(
    records: Sequence[Cdr],
    *,
    total: int,
    query: CdrQuery,
    ctx: CommandContext,
    campaign_names: Mapping[str, str] | None = None,
) -> Reply:
    names = campaign_names or {}
    filters = ContextBlock(
        elements=[MarkdownTextObject(text=truncate(query.describe(ctx.tz), 3000))]
    )
    if not records:
        return Reply(
            text="No call records match.",
            blocks=[
                SectionBlock(text=MarkdownTextObject(text=":mag: No call records match.")),
                filters,
                *pager(query.command(ctx.tz), ctx.offset, PAGE_SIZE, total),
            ],
        )
    page = list(records[:PAGE_SIZE])
    blocks: list[Block] = [HeaderBlock(text=f"Call records: {number(total)}"), filters]
    grid = table(RECORD_COLUMNS, [_record_cells(c, ctx.tz, names) for c in page])
    if grid is not None:
        blocks.append(grid)
    else:
        blocks.extend(_record(c, ctx.tz, names) for c in page)
    blocks.append(showing(ctx.offset, len(page), total, "call records"))
    blocks.extend(pager(query.command(ctx.tz), ctx.offset, PAGE_SIZE, total))
    return Reply(text=f"Call records: {total}", blocks=blocks)


async def call_records(ctx: CommandContext, args: list[str]) -> Reply:
    query = parse_query(args, ctx.tz)
    cc = ctx.client()
    campaigns = await all_campaigns(cc)
    found: CampaignMatch | None = None
    if query.campaign_query is not None:
        try:
            # Read-only: a clear nearest name is taken for a typo, and said so.
            found = find_campaign(campaigns, query.campaign_query, take_guess=True)
        except CampaignNotFound as exc:
            raise _bad(
                "campaign", f"matches no campaign: '{exc.query}' is no name, prefix or UUID."
            ) from exc
        query.campaign = found.campaign
    page = await cc.cdrs.list(
        start_date=to_service(query.start) if query.start else None,
        end_date=to_service(query.end) if query.end else None,
        extension=query.extension,
        status=query.status,
        phone=query.phone,
        direction=query.direction,
        campaign_uuid=query.campaign.campaign_uuid if query.campaign else None,
        limit=PAGE_SIZE,
        offset=ctx.offset,
    )
    names = {c.campaign_uuid: c.campaign_name for c in campaigns}
    reply = records_reply(page.data, total=page.total, query=query, ctx=ctx, campaign_names=names)
    note = guess_note([found] if found else [])
    if note is not None:
        reply.blocks.insert(1, note)
    return reply


HANDLERS = {"cdr": call_records}
