"""``stats``, ``monitor``, ``agents`` and ``extensions``: the numbers a supervisor watches.

Each reply leads with the number that matters (calls and answer rate, connection and
dropped rates, talk time, calls per extension) and keeps rows compact.  The report
endpoints return whole arrays with no paging (spec 4.2), so agents and extensions are
paged here; the autodialer statistics are walked with the client's iterator.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import TypeVar
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import (
    Block,
    ContextBlock,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)

from callcenter.models import AgentTime, ExtensionCounters
from commands.campaigns.cards import guess_note
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.durations import parse_minutes, recent_words
from commands.kernel.grammar import UsageError, check_keys, split_options
from commands.kernel.paging import pager, showing
from commands.kernel.periods import Period, PeriodError, Window, parse_period
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
    caption,
    clip,
    duration,
    escape,
    full_name,
    local_time,
    number,
    percent,
    plural,
    status_label,
    truncate,
)
from commands.reports.figures import (
    INTERVALS,
    WHOLE,
    Bucket,
    CallFigures,
    Counts,
    DialerFigures,
    DialerTotals,
    Scope,
    agent_name,
    call_figures,
    dialer_figures,
    occupancy,
)

Row = TypeVar("Row")

ROWS_PAGE_SIZE = 15
MONITOR_PAGE_SIZE = 10
MONITOR_MAX_CAMPAIGNS = 20
"""Campaigns ``monitor`` takes by name: one screen's worth, and few enough that the
command a Next or choice button carries stays within Slack's 2,000 characters."""
MONITOR_WINDOW_MINUTES = 60
MAX_WINDOW_MINUTES = 30 * 24 * 60
TABLE_CHUNK = 2900
MAX_TABLE_BLOCKS = 4


def _period(word: str | None, ctx: CommandContext, usage: str) -> Period:
    try:
        return parse_period(word, ctx.tz)
    except PeriodError as exc:
        raise UsageError(str(exc), usage) from exc


def _fields(pairs: Sequence[tuple[str, str]]) -> list[MarkdownTextObject]:
    return [MarkdownTextObject(text=truncate(f"*{k}*\n{v}", 2000)) for k, v in pairs[:10]]


# --- stats ----------------------------------------------------------------------------


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
        shown = [(start, c) for start, c in shown if c.calls]
    cut = len(shown) > max_rows
    shown = shown[:max_rows]
    header = f"{'':<14}{'calls':>7}{'answered':>10}{'rate':>8}  talk"
    lines = [header]
    for start, c in shown:
        label = bucket_label(start, interval, multi_day=multi_day)
        lines.append(
            f"{label:<14}{number(c.calls):>7}{number(c.answered):>10}"
            f"{percent(c.answer_rate):>8}  {duration(c.talk_seconds)}"
        )
    blocks: list[Block] = list(_table_blocks(lines))
    if cut or len(shown) < len(buckets):
        blocks.append(
            showing(0, len(shown), len(buckets), f"{interval} buckets (quiet ones left out)")
        )
    return blocks


def call_pairs(t: Counts) -> list[tuple[str, str]]:
    """The calls' figures as field pairs, in the order every surface shows them."""
    return [
        ("Answered", f"{number(t.answered)} ({percent(t.answer_rate)})"),
        ("Busy", number(t.busy)),
        ("Line busy", number(t.line_busy)),
        ("No answer", number(t.no_answer)),
        ("Not available", number(t.not_available)),
        ("Invalid", number(t.invalid)),
        (
            "In / out / local",
            f"{number(t.inbound)} / {number(t.outbound)} / {number(t.local)}",
        ),
        ("Talk time", duration(t.talk_seconds)),
        ("Average wait", duration(t.average_wait)),
        ("Average talk", duration(t.average_talk)),
    ]


def stats_reply(figures: CallFigures, interval: str, *, title: str = "Call statistics") -> Reply:
    """The calls of ``figures`` with a breakdown by ``interval``: ``stats`` and the full
    report behind a digest."""
    window = figures.window
    t = figures.totals
    blocks: list[Block] = [
        HeaderBlock(text=truncate(title, 150)),
        ContextBlock(
            elements=[MarkdownTextObject(text=f":calendar: {figures.caption()} · by {interval}")]
        ),
    ]
    words = f"{figures.scope.plain()}, {window.label()}"
    if t.calls == 0:
        blocks.append(SectionBlock(text=MarkdownTextObject(text=":zzz: No calls.")))
        return Reply(text=escape(f"No calls: {words}."), blocks=blocks)
    headline = (
        f"*{plural(t.calls, 'call')}* · :white_check_mark: *{number(t.answered)} answered "
        f"({percent(t.answer_rate)})*"
    )
    blocks.append(
        SectionBlock(text=MarkdownTextObject(text=headline), fields=_fields(call_pairs(t)))
    )
    others = (
        ("cancelled", t.cancelled),
        ("congestion", t.congestion),
        ("blocked", t.blocked),
        ("IVR", t.ivr),
    )
    extra = " · ".join(f"{number(n)} {name}" for name, n in others if n)
    if extra:
        blocks.append(ContextBlock(elements=[MarkdownTextObject(text=f"Also: {extra}")]))
    last = window.end - timedelta(seconds=1)
    multi_day = window.start.date() != last.date()
    blocks.extend(stats_breakdown(figures.buckets(interval), interval, multi_day=multi_day))
    return Reply(text=escape(f"{t.calls} calls, {t.answered} answered: {words}"), blocks=blocks)


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
    figures = await call_figures(ctx.client(), Scope(), period.window())
    return stats_reply(figures, interval)


# --- monitor --------------------------------------------------------------------------


def dialer_line(s: DialerFigures, tz: ZoneInfo) -> str:
    """One autodialer campaign's figures (mrkdwn): the monitor's rows, the wallboard's and
    the digest's campaign lines say it alike."""
    flag = ":warning: " if s.dropped_warning else ""
    return (
        f":phone: *{number(s.calls)}* calls · connected *{percent(s.connection_rate)}*"
        f" · {flag}dropped *{percent(s.dropped_rate)}* ({number(s.dropped)})"
        f"\n:busts_in_silhouette: {number(s.agents_ready)} ready · {number(s.agents_paused)} "
        f"paused · {number(s.agents_in_call)} in call of {number(s.agents)}"
        f" · :clipboard: {plural(s.leads, 'lead')} ({number(s.leads_in_progress)} in progress)"
        f" · last call {local_time(s.last_call_time, tz, '%d %b %H:%M')}"
    )


def _monitor_row(s: DialerFigures, tz: ZoneInfo) -> SectionBlock:
    text = (
        f"*{campaign_label(s.name)}* {status_label(s.status)}"
        + (f" · `{clip(s.type, 30)}`" if s.type else "")
        + "\n"
        + dialer_line(s, tz)
    )
    return SectionBlock(text=MarkdownTextObject(text=truncate(text, 3000)))


def monitor_reply(
    items: Sequence[DialerFigures],
    totals: DialerTotals,
    *,
    command: str,
    ctx: CommandContext,
) -> Reply:
    title = f"Autodialer monitor: last {recent_words(round(totals.window.seconds))}"
    scope_line = ContextBlock(elements=[MarkdownTextObject(text=f":calendar: {totals.caption()}")])
    if not items:
        return Reply(
            text="No autodialer statistics.",
            blocks=[
                HeaderBlock(text=title),
                scope_line,
                SectionBlock(
                    text=MarkdownTextObject(text=":zzz: No autodialer campaigns to show.")
                ),
            ],
        )
    ordered = sorted(items, key=lambda s: (not s.running, -s.calls, s.name))
    headline = (
        f"*{plural(totals.calls, 'call')}* · connected *{percent(totals.connection_rate)}* · "
        f"dropped *{percent(totals.dropped_rate)}* · "
        f"{number(totals.running)} of {number(totals.campaigns)} campaigns running"
    )
    page = ordered[ctx.offset : ctx.offset + MONITOR_PAGE_SIZE]
    blocks: list[Block] = [
        HeaderBlock(text=title),
        scope_line,
        SectionBlock(text=MarkdownTextObject(text=headline)),
    ]
    blocks.extend(_monitor_row(s, ctx.tz) for s in page)
    blocks.append(showing(ctx.offset, len(page), len(ordered), "campaigns"))
    blocks.extend(pager(command, ctx.offset, MONITOR_PAGE_SIZE, len(ordered)))
    return Reply(text=f"{title}: {totals.calls} calls", blocks=blocks)


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
        queries = campaign_queries(positional, campaigns)
        if len(queries) > MONITOR_MAX_CAMPAIGNS:
            raise UsageError(
                f"monitor watches up to {MONITOR_MAX_CAMPAIGNS} named campaigns at once, not "
                f"{len(queries)}; name fewer, or none to see every autodialer campaign.",
                usage,
            )
        for query in queries:
            try:
                # Read-only: a clear nearest name is taken for a typo, and said so.
                matches.append(find_campaign(campaigns, query, take_guess=True))
            except CampaignNotFound as exc:
                raise UsageError(
                    f"No campaign is named '{exc.query}' or starts with it.", usage
                ) from exc
    uuids = list(dict.fromkeys(m.campaign.campaign_uuid for m in matches))
    names = {m.campaign.campaign_uuid: m.campaign.campaign_name for m in matches}
    at = datetime.now(UTC)
    items = await dialer_figures(cc, minutes, at=at, tz=ctx.tz, campaigns=uuids)
    totals = DialerTotals.of(items, Scope.of(uuids, names), Window.back_from(at, minutes, ctx.tz))
    reply = monitor_reply(items, totals, command=_monitor_command(uuids, minutes), ctx=ctx)
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
    fmt = "%d %b %H:%M" if multi_day else "%H:%M"
    login = f"{local_time(a.earliest_time, tz, fmt)}–{local_time(a.latest_time, tz, fmt)}"
    text = (
        f"*{clip(agent_name(a), 100)}*"
        + (f" `{clip(a.username, 60)}`" if a.username else "")
        + "\n"
        f":speech_balloon: talk *{duration(a.total_talk_sec)}* · :hourglass: wait "
        f"{duration(a.total_wait_sec)} · :double_vertical_bar: pause {duration(a.total_pause_sec)}"
        f" · :memo: wrap-up {duration(a.total_dispo_sec)} · occupancy "
        f"{percent(occupancy(a), 0)} · {login}"
    )
    return SectionBlock(text=MarkdownTextObject(text=truncate(text, 3000)))


def _period_listing(
    title: str,
    window: Window,
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
    """A paged listing over a window: title, what it covers, a headline, then this page of
    ``rows`` (all of them, in order) as a table (``grid``) where it fits Slack's limits,
    else drawn row by row by ``row``; ``empty`` (plain text) when there is none."""
    blocks: list[Block] = [
        HeaderBlock(text=title),
        ContextBlock(
            elements=[MarkdownTextObject(text=f":calendar: {caption(WHOLE, window.label())}")]
        ),
    ]
    if not rows:
        return [*blocks, SectionBlock(text=MarkdownTextObject(text=f":zzz: {escape(empty)}."))]
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
    fmt = "%d %b %H:%M" if multi_day else "%H:%M"
    return [
        agent_name(a),
        a.username,
        duration(a.total_talk_sec),
        duration(a.total_wait_sec),
        duration(a.total_pause_sec),
        duration(a.total_dispo_sec),
        percent(occupancy(a), 0),
        f"{local_time(a.earliest_time, tz, fmt)}–{local_time(a.latest_time, tz, fmt)}",
    ]


def agents_reply(
    rows: Sequence[AgentTime], window: Window, *, command: str, ctx: CommandContext
) -> Reply:
    title = f"Agent time: {window.word or 'the period'}"
    ordered = sorted(rows, key=lambda a: (-a.total_talk_sec, a.username))
    talk = sum(a.total_talk_sec for a in ordered)
    wait = sum(a.total_wait_sec for a in ordered)
    pause = sum(a.total_pause_sec for a in ordered)
    multi_day = window.start.date() != (window.end - timedelta(seconds=1)).date()
    blocks = _period_listing(
        title,
        window,
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
        return Reply(text=escape(f"No agent time: {window.label()}."), blocks=blocks)
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
    window = period.window()
    start, end = window.service_bounds()
    result = await ctx.client().reports.agent_time(start_time=start, end_time=end)
    return agents_reply(result.data, window, command=f"agents {period.word}", ctx=ctx)


# --- extensions -----------------------------------------------------------------------


def _extension_row(e: ExtensionCounters) -> SectionBlock:
    name = full_name(e.firstname, e.middlename, e.lastname) or e.username
    c = Counts.of_extension(e)
    text = (
        f"*{clip(e.extension, 30) or '–'}*" + (f" {clip(name, 100)}" if name else "") + "\n"
        f":phone: *{number(c.calls)}* calls · :white_check_mark: {number(c.answered)} "
        f"({percent(c.answer_rate)}) · :no_entry: {number(c.busy)} busy · "
        f"{number(c.line_busy)} line busy · :hourglass: {number(c.no_answer)} no answer · "
        f":no_mobile_phones: {number(c.not_available)} unavailable · "
        f"in {number(c.inbound)} / out {number(c.outbound)} / local {number(c.local)}"
    )
    return SectionBlock(text=MarkdownTextObject(text=truncate(text, 3000)))


EXTENSION_COLUMNS = (
    Column("Extension"),
    Column("Name"),
    Column("Calls", "right"),
    Column("Answered", "right"),
    Column("Answer rate", "right"),
    Column("Busy", "right"),
    Column("Line busy", "right"),
    Column("No answer", "right"),
    Column("Unavailable", "right"),
    Column("In", "right"),
    Column("Out", "right"),
    Column("Local", "right"),
)


def _extension_cells(e: ExtensionCounters) -> list[Cell]:
    c = Counts.of_extension(e)
    return [
        e.extension,
        full_name(e.firstname, e.middlename, e.lastname) or e.username,
        number(c.calls),
        number(c.answered),
        percent(c.answer_rate),
        number(c.busy),
        number(c.line_busy),
        number(c.no_answer),
        number(c.not_available),
        number(c.inbound),
        number(c.outbound),
        number(c.local),
    ]


def extensions_reply(
    rows: Sequence[ExtensionCounters], window: Window, *, command: str, ctx: CommandContext
) -> Reply:
    title = f"Calls per extension: {window.word or 'the period'}"
    ordered = sorted(rows, key=lambda e: (-e.total, e.extension))
    total = sum((Counts.of_extension(e) for e in ordered), Counts())
    blocks = _period_listing(
        title,
        window,
        ctx,
        empty="No extension calls",
        headline=f"*{plural(total.calls, 'call')}* on {plural(len(ordered), 'extension')} · "
        f":white_check_mark: *{number(total.answered)} answered ({percent(total.answer_rate)})*",
        rows=ordered,
        row=_extension_row,
        noun="extensions",
        command=command,
        grid=lambda page: table(EXTENSION_COLUMNS, [_extension_cells(e) for e in page]),
    )
    if not ordered:
        return Reply(text=escape(f"No extension calls: {window.label()}."), blocks=blocks)
    return Reply(text=f"{title}: {total.calls} calls", blocks=blocks)


async def extensions(ctx: CommandContext, args: list[str]) -> Reply:
    period = _period_only("extensions", args, ctx)
    window = period.window()
    start, end = window.service_bounds()
    result = await ctx.client().reports.extensions(start_time=start, end_time=end)
    return extensions_reply(result.data, window, command=f"extensions {period.word}", ctx=ctx)


HANDLERS = {"stats": stats, "monitor": monitor, "agents": agents, "extensions": extensions}
