"""``stats``, ``monitor``, ``agents`` and ``extensions``: the numbers a supervisor watches.

Each reply leads with the number that matters (calls and answer rate, connection and
dropped rates, talk time, calls per extension) and keeps rows compact.  The report
endpoints return whole arrays with no paging (spec 4.2), so agents and extensions are
paged here; the autodialer statistics are walked with the client's iterator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import TypeVar
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import (
    Block,
    ContextBlock,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)

from callcenter.models import (
    AgentTime,
    AutodialerStats,
    ExtensionCounters,
    StatsRow,
)
from commands.campaigns.cards import guess_note
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.durations import parse_minutes, recent_words
from commands.kernel.grammar import UsageError, check_keys, split_options
from commands.kernel.paging import pager, showing
from commands.kernel.periods import SERVICE_TZ, Period, PeriodError, parse_period
from commands.kernel.reply import Reply
from commands.kernel.resolve import (
    CampaignMatch,
    CampaignNotFound,
    all_campaigns,
    campaign_queries,
    find_campaign,
)
from commands.kernel.tables import Cell, Column, table
from commands.kernel.text import (
    campaign_label,
    clip,
    duration,
    escape,
    full_name,
    local_time,
    number,
    parse_service_time,
    percent,
    plural,
    ratio_percent,
    status_label,
    truncate,
)

Row = TypeVar("Row")

INTERVALS = ("hour", "day", "week", "month")
ROWS_PAGE_SIZE = 15
MONITOR_PAGE_SIZE = 10
MONITOR_WINDOW_MINUTES = 60
MAX_WINDOW_MINUTES = 30 * 24 * 60
DROPPED_RATE_WARNING = 3.0
"""Percent of connected calls dropped above which a campaign is flagged (the common
regulatory ceiling for abandoned calls)."""
TABLE_CHUNK = 2900
MAX_TABLE_BLOCKS = 4


def _window_text(period: Period, tz: ZoneInfo) -> str:
    fmt = "%d %b %H:%M"
    return (
        f":calendar: {period.start.strftime(fmt)} → {period.end.strftime(fmt)} ({escape(tz.key)})"
    )


def _period(word: str | None, ctx: CommandContext, usage: str) -> Period:
    try:
        return parse_period(word, ctx.tz)
    except PeriodError as exc:
        raise UsageError(str(exc), usage) from exc


def _fields(pairs: Sequence[tuple[str, str]]) -> list[MarkdownTextObject]:
    return [MarkdownTextObject(text=truncate(f"*{k}*\n{v}", 2000)) for k, v in pairs[:10]]


# --- stats ----------------------------------------------------------------------------


def _sum(rows: Sequence[StatsRow], name: str) -> int:
    return sum(int(getattr(r, name)) for r in rows)


Bucket = tuple[datetime, StatsRow]
"""A bucket's start on the workspace's clock, and its counters."""
_COUNTERS = tuple(name for name in StatsRow.model_fields if name != "time")


def same_clock(period: Period) -> bool:
    """Whether the service's days are the workspace's days over the whole period."""
    return all(
        moment.utcoffset() == moment.astimezone(SERVICE_TZ).utcoffset()
        for moment in (period.start, period.end)
    )


def _bucket_start(moment: datetime, interval: str) -> datetime:
    if interval == "hour":
        return moment.replace(minute=0, second=0)
    day = moment.replace(hour=0, minute=0, second=0)
    if interval == "week":
        day = day - timedelta(days=day.weekday())
    elif interval == "month":
        day = day.replace(day=1)
    return day


def local_buckets(rows: Sequence[StatsRow], interval: str, tz: ZoneInfo) -> list[Bucket]:
    """The service's rows summed into ``interval`` buckets of the workspace's calendar.

    Given hourly rows this turns the service's (UTC) hours into local days, weeks or
    months; given rows already bucketed on the same clock it only relabels them.
    """
    sums: dict[datetime, dict[str, int]] = {}
    for row in rows:
        moment = parse_service_time(row.time, SERVICE_TZ)
        if moment is None:
            continue
        key = _bucket_start(moment.astimezone(tz).replace(microsecond=0), interval)
        bucket = sums.setdefault(key, dict.fromkeys(_COUNTERS, 0))
        for name in _COUNTERS:
            bucket[name] += int(getattr(row, name))
    return [(key, StatsRow(time="", **sums[key])) for key in sorted(sums)]


def bucket_label(start: datetime, interval: str, *, multi_day: bool) -> str:
    if interval == "hour":
        return start.strftime("%a %d %H:%M" if multi_day else "%H:%M")
    if interval == "day":
        return start.strftime("%a %d %b")
    if interval == "week":
        return start.strftime("wk %d %b")
    return start.strftime("%b %Y")


def _table_blocks(lines: list[str]) -> list[SectionBlock]:
    """Code-block sections, each under Slack's 3000 characters."""
    blocks: list[SectionBlock] = []
    chunk: list[str] = []
    size = 0
    for line in lines:
        if chunk and size + len(line) + 1 > TABLE_CHUNK:
            blocks.append(
                SectionBlock(text=MarkdownTextObject(text="```" + "\n".join(chunk) + "```"))
            )
            chunk, size = [], 0
        chunk.append(line)
        size += len(line) + 1
    if chunk:
        blocks.append(SectionBlock(text=MarkdownTextObject(text="```" + "\n".join(chunk) + "```")))
    return blocks


def stats_breakdown(buckets: Sequence[Bucket], interval: str, *, multi_day: bool) -> list[Block]:
    """One line per bucket; quiet buckets are dropped when there are too many to show."""
    shown = list(buckets)
    max_rows = MAX_TABLE_BLOCKS * (TABLE_CHUNK // 50)
    if len(shown) > 48:
        shown = [(start, r) for start, r in shown if r.total]
    cut = len(shown) > max_rows
    shown = shown[:max_rows]
    header = f"{'':<14}{'calls':>7}{'answered':>10}{'rate':>8}  talk"
    lines = [header]
    for start, r in shown:
        label = bucket_label(start, interval, multi_day=multi_day)
        lines.append(
            f"{label:<14}{number(r.total):>7}{number(r.answered):>10}"
            f"{ratio_percent(r.answered, r.total):>8}  {duration(r.total_billsec)}"
        )
    blocks: list[Block] = list(_table_blocks(lines))
    if cut or len(shown) < len(buckets):
        blocks.append(
            showing(0, len(shown), len(buckets), f"{interval} buckets (quiet ones left out)")
        )
    return blocks


def stats_reply(
    rows: Sequence[StatsRow], period: Period, interval: str, ctx: CommandContext
) -> Reply:
    total = _sum(rows, "total")
    answered = _sum(rows, "answered")
    blocks: list[Block] = [
        HeaderBlock(text=f"Call statistics: {period.label}"),
        ContextBlock(
            elements=[MarkdownTextObject(text=f"{_window_text(period, ctx.tz)} · by {interval}")]
        ),
    ]
    if total == 0:
        blocks.append(
            SectionBlock(text=MarkdownTextObject(text=f":zzz: No calls {escape(period.label)}."))
        )
        return Reply(text=f"No calls {period.label}.", blocks=blocks)
    headline = (
        f"*{plural(total, 'call')}* · :white_check_mark: *{number(answered)} answered "
        f"({ratio_percent(answered, total)})*"
    )
    busy = _sum(rows, "busy")
    busy_line = _sum(rows, "busy_line")
    billsec = _sum(rows, "total_billsec")
    pairs = [
        ("Answered", f"{number(answered)} ({ratio_percent(answered, total)})"),
        (
            "Busy",
            f"{number(busy)}" + (f" (+{number(busy_line)} line busy)" if busy_line else ""),
        ),
        ("No answer", number(_sum(rows, "no_answered"))),
        ("Not available", number(_sum(rows, "not_available"))),
        ("Invalid", number(_sum(rows, "invalid"))),
        ("Cancelled", number(_sum(rows, "cancel"))),
        (
            "In / out / local",
            f"{number(_sum(rows, 'inbound'))} / {number(_sum(rows, 'outbound'))} / "
            f"{number(_sum(rows, 'local'))}",
        ),
        ("Talk time", duration(billsec)),
        ("Average wait", duration(_sum(rows, "total_waitsec") / total)),
        ("Average talk", duration(billsec / answered) if answered else "–"),
    ]
    blocks.append(SectionBlock(text=MarkdownTextObject(text=headline), fields=_fields(pairs)))
    others = [
        (name, _sum(rows, key))
        for name, key in (("congestion", "congestion"), ("blocked", "phone_block"), ("IVR", "ivr"))
    ]
    extra = " · ".join(f"{number(n)} {name}" for name, n in others if n)
    if extra:
        blocks.append(ContextBlock(elements=[MarkdownTextObject(text=f"Also: {extra}")]))
    multi_day = period.start.date() != period.end.date()
    buckets = local_buckets(rows, interval, ctx.tz)
    blocks.extend(stats_breakdown(buckets, interval, multi_day=multi_day))
    return Reply(text=f"{total} calls {period.label}, {answered} answered", blocks=blocks)


async def stats(ctx: CommandContext, args: list[str]) -> Reply:
    usage = usage_of("stats")
    positional, raw_options = split_options(args)
    check_keys(raw_options, ("interval",), what="an option of stats", usage=usage)
    options = {k.lower(): v for k, v in raw_options.items()}
    if len(positional) > 1:
        raise UsageError("Give one period: today, yesterday, week or month.", usage)
    period = _period(positional[0] if positional else None, ctx, usage)
    interval = options.get("interval", period.default_interval).strip().lower()
    if interval not in INTERVALS:
        raise UsageError(
            f"interval= is one of {', '.join(INTERVALS)}, not '{options.get('interval')}'.", usage
        )
    start, end = period.service_bounds()
    # Days, weeks and months must be the workspace's: when the service counts on another
    # clock, ask for hours and add them up locally.
    ask = interval if interval == "hour" or same_clock(period) else "hour"
    result = await ctx.client().reports.stats(start, end, interval=ask)
    return stats_reply(result.data, period, interval, ctx)


# --- monitor --------------------------------------------------------------------------


def _monitor_row(s: AutodialerStats, tz: ZoneInfo) -> SectionBlock:
    dropped_flag = ":warning: " if s.dropped_call_rate > DROPPED_RATE_WARNING else ""
    text = (
        f"*{campaign_label(s.campaign_name)}* {status_label(s.status)}"
        + (f" · `{clip(s.type, 30)}`" if s.type else "")
        + f"\n:phone: *{number(s.total_calls)}* calls"
        f" · connected *{percent(s.customer_connection_rate)}*"
        f" · {dropped_flag}dropped *{percent(s.dropped_call_rate)}*"
        f" ({number(s.dropped_calls)})"
        f"\n:busts_in_silhouette: {number(s.agents_ready)} ready · {number(s.agents_pause)} paused"
        f" · {number(s.agents_in_call)} in call"
        f" · :clipboard: {plural(s.total_leads, 'lead')}"
        f" ({number(s.leads_in_progress)} in progress)"
        f" · last call {local_time(s.last_call_time, tz, '%d %b %H:%M')}"
    )
    return SectionBlock(text=MarkdownTextObject(text=truncate(text, 3000)))


def monitor_reply(
    items: Sequence[AutodialerStats], *, minutes: int, command: str, ctx: CommandContext
) -> Reply:
    title = f"Autodialer monitor: last {recent_words(minutes * 60)}"
    if not items:
        return Reply(
            text="No autodialer statistics.",
            blocks=[
                HeaderBlock(text=title),
                SectionBlock(
                    text=MarkdownTextObject(text=":zzz: No autodialer campaigns to show.")
                ),
            ],
        )
    ordered = sorted(
        items,
        key=lambda s: (s.status not in ("start", "running"), -s.total_calls, s.campaign_name),
    )
    calls = sum(s.total_calls for s in ordered)
    connected = sum(s.total_connected_customers for s in ordered)
    dropped = sum(s.dropped_calls for s in ordered)
    running = sum(1 for s in ordered if s.status in ("start", "running"))
    headline = (
        f"*{plural(calls, 'call')}* · connected *{ratio_percent(connected, calls)}* · "
        f"dropped *{ratio_percent(dropped, connected)}* · "
        f"{number(running)} of {number(len(ordered))} campaigns running"
    )
    page = ordered[ctx.offset : ctx.offset + MONITOR_PAGE_SIZE]
    blocks: list[Block] = [
        HeaderBlock(text=title),
        SectionBlock(text=MarkdownTextObject(text=headline)),
    ]
    blocks.extend(_monitor_row(s, ctx.tz) for s in page)
    blocks.append(showing(ctx.offset, len(page), len(ordered), "campaigns"))
    blocks.extend(pager(command, ctx.offset, MONITOR_PAGE_SIZE, len(ordered)))
    return Reply(text=f"{title}: {calls} calls", blocks=blocks)


async def monitor(ctx: CommandContext, args: list[str]) -> Reply:
    usage = usage_of("monitor")
    positional, options = split_options(args)
    check_keys(options, ("window",), what="an option of monitor", usage=usage)
    minutes = MONITOR_WINDOW_MINUTES
    for value in options.values():
        minutes = parse_minutes(
            value, longest_minutes=MAX_WINDOW_MINUTES, name="window=", usage=usage
        )
    cc = ctx.client()
    matches: list[CampaignMatch] = []
    if positional:
        campaigns = await all_campaigns(cc)
        for query in campaign_queries(positional, campaigns):
            try:
                # Read-only: a clear nearest name is taken for a typo, and said so.
                matches.append(find_campaign(campaigns, query, take_guess=True))
            except CampaignNotFound as exc:
                raise UsageError(
                    f"No campaign is named '{exc.query}' or starts with it.", usage
                ) from exc
    uuids = list(dict.fromkeys(m.campaign.campaign_uuid for m in matches))
    items = [s async for s in cc.reports.iterate_autodialer(minutes, campaign_uuids=uuids)]
    reply = monitor_reply(items, minutes=minutes, command=_monitor_command(uuids, minutes), ctx=ctx)
    note = guess_note(matches)
    if note is not None:
        reply.blocks.insert(1, note)
    return reply


def _monitor_command(words: Sequence[str], minutes: int) -> str:
    parts = ["monitor", *words]
    if minutes != MONITOR_WINDOW_MINUTES:
        parts.append(f"window={minutes}")
    return " ".join(parts)


# --- agents ---------------------------------------------------------------------------


def _agent_row(a: AgentTime, tz: ZoneInfo, *, multi_day: bool) -> SectionBlock:
    name = full_name(a.first_name, a.middle_name, a.last_name) or a.username or "Unknown agent"
    busy = a.total_talk_sec + a.total_dispo_sec
    occupancy = ratio_percent(busy, busy + a.total_wait_sec, 0)
    fmt = "%d %b %H:%M" if multi_day else "%H:%M"
    login = f"{local_time(a.earliest_time, tz, fmt)}–{local_time(a.latest_time, tz, fmt)}"
    text = (
        f"*{clip(name, 100)}*" + (f" `{clip(a.username, 60)}`" if a.username else "") + "\n"
        f":speech_balloon: talk *{duration(a.total_talk_sec)}* · :hourglass: wait "
        f"{duration(a.total_wait_sec)} · :double_vertical_bar: pause {duration(a.total_pause_sec)}"
        f" · :memo: wrap-up {duration(a.total_dispo_sec)} · occupancy {occupancy} · {login}"
    )
    return SectionBlock(text=MarkdownTextObject(text=truncate(text, 3000)))


def _period_listing(
    title: str,
    period: Period,
    ctx: CommandContext,
    *,
    empty: str,
    headline: str,
    rows: Sequence[Row],
    row: Callable[[Row], SectionBlock],
    noun: str,
    command: str,
    grid: Callable[[Sequence[Row]], Block | None] | None = None,
) -> list[Block]:
    """A paged listing over a period: title, its window, a headline, then this page of
    ``rows`` (all of them, in order) as a table (``grid``) where it fits Slack's limits,
    else drawn row by row by ``row``; ``empty`` (plain text) when there is none."""
    blocks: list[Block] = [
        HeaderBlock(text=title),
        ContextBlock(elements=[MarkdownTextObject(text=_window_text(period, ctx.tz))]),
    ]
    if not rows:
        text = f":zzz: {escape(empty)} {escape(period.label)}."
        return [*blocks, SectionBlock(text=MarkdownTextObject(text=text))]
    page = rows[ctx.offset : ctx.offset + ROWS_PAGE_SIZE]
    blocks.append(SectionBlock(text=MarkdownTextObject(text=headline)))
    drawn = grid(page) if grid is not None else None
    if drawn is not None:
        blocks.append(drawn)
    else:
        blocks.extend(row(item) for item in page)
    blocks.append(showing(ctx.offset, len(page), len(rows), noun))
    blocks.extend(pager(command, ctx.offset, ROWS_PAGE_SIZE, len(rows)))
    return blocks


AGENT_COLUMNS = (
    Column("Agent"),
    Column("Username"),
    Column("Talk", "right"),
    Column("Wait", "right"),
    Column("Pause", "right"),
    Column("Wrap-up", "right"),
    Column("Occupancy", "right"),
    Column("Logged in"),
)


def _agent_cells(a: AgentTime, tz: ZoneInfo, *, multi_day: bool) -> list[Cell]:
    name = full_name(a.first_name, a.middle_name, a.last_name) or a.username or "Unknown agent"
    busy = a.total_talk_sec + a.total_dispo_sec
    fmt = "%d %b %H:%M" if multi_day else "%H:%M"
    return [
        name,
        a.username,
        duration(a.total_talk_sec),
        duration(a.total_wait_sec),
        duration(a.total_pause_sec),
        duration(a.total_dispo_sec),
        ratio_percent(busy, busy + a.total_wait_sec, 0),
        f"{local_time(a.earliest_time, tz, fmt)}–{local_time(a.latest_time, tz, fmt)}",
    ]


def agents_reply(
    rows: Sequence[AgentTime], period: Period, *, command: str, ctx: CommandContext
) -> Reply:
    title = f"Agent time: {period.label}"
    ordered = sorted(rows, key=lambda a: (-a.total_talk_sec, a.username))
    talk = sum(a.total_talk_sec for a in ordered)
    wait = sum(a.total_wait_sec for a in ordered)
    pause = sum(a.total_pause_sec for a in ordered)
    multi_day = period.start.date() != period.end.date()
    blocks = _period_listing(
        title,
        period,
        ctx,
        empty="No agent time",
        headline=f"*{plural(len(ordered), 'agent')}* · talk *{duration(talk)}* · "
        f"wait {duration(wait)} · pause {duration(pause)}",
        rows=ordered,
        row=lambda a: _agent_row(a, ctx.tz, multi_day=multi_day),
        noun="agents",
        command=command,
        grid=lambda page: table(
            AGENT_COLUMNS, [_agent_cells(a, ctx.tz, multi_day=multi_day) for a in page]
        ),
    )
    if not ordered:
        return Reply(text=f"No agent time {period.label}.", blocks=blocks)
    return Reply(
        text=f"{title}: {plural(len(ordered), 'agent')}, talk {duration(talk)}", blocks=blocks
    )


def _period_only(name: str, args: list[str], ctx: CommandContext) -> Period:
    usage = usage_of(name)
    positional, options = split_options(args)
    if options:
        raise UsageError(f"{name} takes no options; give a period only.", usage)
    if len(positional) > 1:
        raise UsageError("Give one period: today, yesterday, week or month.", usage)
    return _period(positional[0] if positional else None, ctx, usage)


async def agents(ctx: CommandContext, args: list[str]) -> Reply:
    period = _period_only("agents", args, ctx)
    start, end = period.service_bounds()
    result = await ctx.client().reports.agent_time(start_time=start, end_time=end)
    return agents_reply(result.data, period, command=f"agents {period.word}", ctx=ctx)


# --- extensions -----------------------------------------------------------------------


def _extension_row(e: ExtensionCounters) -> SectionBlock:
    name = full_name(e.firstname, e.middlename, e.lastname) or e.username
    text = (
        f"*{clip(e.extension, 30) or '–'}*" + (f" {clip(name, 100)}" if name else "") + "\n"
        f":phone: *{number(e.total)}* calls · :white_check_mark: {number(e.answered)} "
        f"({ratio_percent(e.answered, e.total)}) · :no_entry: {number(e.busy)} busy · "
        f":hourglass: {number(e.no_answered)} no answer · "
        f":no_mobile_phones: {number(e.not_available)} unavailable · "
        f"in {number(e.inbound)} / out {number(e.outbound)} / local {number(e.local)}"
    )
    return SectionBlock(text=MarkdownTextObject(text=truncate(text, 3000)))


EXTENSION_COLUMNS = (
    Column("Extension"),
    Column("Name"),
    Column("Calls", "right"),
    Column("Answered", "right"),
    Column("Answer rate", "right"),
    Column("Busy", "right"),
    Column("No answer", "right"),
    Column("Unavailable", "right"),
    Column("In", "right"),
    Column("Out", "right"),
    Column("Local", "right"),
)


def _extension_cells(e: ExtensionCounters) -> list[Cell]:
    return [
        e.extension,
        full_name(e.firstname, e.middlename, e.lastname) or e.username,
        number(e.total),
        number(e.answered),
        ratio_percent(e.answered, e.total),
        number(e.busy),
        number(e.no_answered),
        number(e.not_available),
        number(e.inbound),
        number(e.outbound),
        number(e.local),
    ]


def extensions_reply(
    rows: Sequence[ExtensionCounters], period: Period, *, command: str, ctx: CommandContext
) -> Reply:
    title = f"Calls per extension: {period.label}"
    ordered = sorted(rows, key=lambda e: (-e.total, e.extension))
    total = sum(e.total for e in ordered)
    answered = sum(e.answered for e in ordered)
    blocks = _period_listing(
        title,
        period,
        ctx,
        empty="No extension calls",
        headline=f"*{plural(total, 'call')}* on {plural(len(ordered), 'extension')} · "
        f":white_check_mark: *{number(answered)} answered ({ratio_percent(answered, total)})*",
        rows=ordered,
        row=_extension_row,
        noun="extensions",
        command=command,
        grid=lambda page: table(EXTENSION_COLUMNS, [_extension_cells(e) for e in page]),
    )
    if not ordered:
        return Reply(text=f"No extension calls {period.label}.", blocks=blocks)
    return Reply(text=f"{title}: {total} calls", blocks=blocks)


async def extensions(ctx: CommandContext, args: list[str]) -> Reply:
    period = _period_only("extensions", args, ctx)
    start, end = period.service_bounds()
    result = await ctx.client().reports.extensions(start_time=start, end_time=end)
    return extensions_reply(result.data, period, command=f"extensions {period.word}", ctx=ctx)


HANDLERS = {"stats": stats, "monitor": monitor, "agents": agents, "extensions": extensions}
