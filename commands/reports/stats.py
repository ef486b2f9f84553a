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
    ActionsBlock,
    Block,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)

from callcenter.models import AgentTime, ExtensionCounters
from commands.campaigns.cards import guess_note
from commands.kernel.call_words import status_words
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.durations import parse_minutes, recent_words
from commands.kernel.formats import write_month, write_week
from commands.kernel.grammar import UsageError, check_keys, split_options
from commands.kernel.i18n import N_, _, ngettext, pgettext
from commands.kernel.matching import did_you_mean
from commands.kernel.names import person_name
from commands.kernel.paging import pager, showing
from commands.kernel.periods import Period, PeriodError, Window, parse_period
from commands.kernel.reply import Reply, context_line, labelled, section
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
    clock,
    day,
    day_time,
    duration,
    escape,
    number,
    percent,
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
ONE_PERIOD = N_("Give one period: today, yesterday, week or month.")
BY_INTERVAL = {
    "hour": N_("by hour"),
    "day": N_("by day"),
    "week": N_("by week"),
    "month": N_("by month"),
}
"""How a breakdown is cut, in words (the keys are what ``interval=`` takes)."""
BUCKETS = {
    "hour": (N_("hour bucket"), N_("hour buckets (quiet ones left out)")),
    "day": (N_("day bucket"), N_("day buckets (quiet ones left out)")),
    "week": (N_("week bucket"), N_("week buckets (quiet ones left out)")),
    "month": (N_("month bucket"), N_("month buckets (quiet ones left out)")),
}
"""One bucket, and several with the quiet ones dropped, per ``interval=``."""


def _period(word: str | None, ctx: CommandContext, usage: str) -> Period:
    try:
        return parse_period(word, ctx.tz)
    except PeriodError as exc:
        raise UsageError(str(exc), usage) from exc


# --- stats ----------------------------------------------------------------------------


def bucket_label(start: datetime, interval: str, *, multi_day: bool) -> str:
    if interval == "hour":
        return day_time(start) if multi_day else clock(start)
    if interval == "day":
        return day(start)
    if interval == "week":
        return write_week(start)
    return write_month(start)


def _table_blocks(lines: list[str]) -> list[SectionBlock]:
    """Code-block sections, each under Slack's 3000 characters."""
    blocks: list[SectionBlock] = []
    chunk: list[str] = []
    size = 0
    for line in lines:
        if chunk and size + len(line) + 1 > TABLE_CHUNK:
            blocks.append(section("```" + "\n".join(chunk) + "```"))
            chunk, size = [], 0
        chunk.append(line)
        size += len(line) + 1
    if chunk:
        blocks.append(section("```" + "\n".join(chunk) + "```"))
    return blocks


def stats_breakdown(buckets: Sequence[Bucket], interval: str, *, multi_day: bool) -> list[Block]:
    """One line per bucket; quiet buckets are dropped when there are too many to show."""
    shown = list(buckets)
    max_rows = MAX_TABLE_BLOCKS * (TABLE_CHUNK // 50)
    if len(shown) > 48:
        shown = [(start, c) for start, c in shown if c.calls]
    cut = len(shown) > max_rows
    shown = shown[:max_rows]
    # Column words: each is looked up outside the f-string, where the catalog finds it.
    calls, answered, rate, talk = _("calls"), _("answered"), _("rate"), _("talk")
    header = f"{'':<17}{calls:>7}{answered:>10}{rate:>8}  {talk}"
    lines = [header]
    for start, c in shown:
        label = bucket_label(start, interval, multi_day=multi_day)
        lines.append(
            f"{label:<17}{number(c.calls):>7}{number(c.answered):>10}"
            f"{percent(c.answer_rate):>8}  {duration(c.talk_seconds)}"
        )
    blocks: list[Block] = list(_table_blocks(lines))
    if cut or len(shown) < len(buckets):
        one, quiet = BUCKETS.get(interval, BUCKETS["hour"])
        blocks.append(showing(0, len(shown), len(buckets), one=_(one), many=_(quiet)))
    return blocks


def call_pairs(t: Counts) -> list[tuple[str, str]]:
    """The calls' figures as field pairs, in the order every surface shows them."""
    word = status_words  # the same words as call cards and call records
    return [
        (word("answered"), f"{number(t.answered)} ({percent(t.answer_rate)})"),
        (word("busy"), number(t.busy)),
        (word("busy-line"), number(t.line_busy)),
        (word("no-answered"), number(t.no_answer)),
        (word("not-available"), number(t.not_available)),
        (word("invalid"), number(t.invalid)),
        (
            _("In / out / local"),
            f"{number(t.inbound)} / {number(t.outbound)} / {number(t.local)}",
        ),
        (_("Talk time"), duration(t.talk_seconds)),
        (_("Average wait"), duration(t.average_wait)),
        (_("Average talk"), duration(t.average_talk)),
    ]


def stats_reply(figures: CallFigures, interval: str, *, title: str | None = None) -> Reply:
    """The calls of ``figures`` with a breakdown by ``interval``: ``stats`` and the full
    report behind a digest (``title`` is "Call statistics" unless given)."""
    window = figures.window
    t = figures.totals
    by = _(BY_INTERVAL[interval]) if interval in BY_INTERVAL else escape(interval)
    blocks: list[Block] = [
        HeaderBlock(text=truncate(title or _("Call statistics"), 150)),
        context_line(f":calendar: {figures.caption()} · {by}"),
    ]
    words = f"{figures.scope.plain()}, {window.label()}"
    if t.calls == 0:
        blocks.append(section(_(":zzz: No calls.")))
        return Reply(text=escape(_("No calls: {what}.").format(what=words)), blocks=blocks)
    headline = ngettext(
        "*{n} call* · :white_check_mark: *{answered} answered ({rate})*",
        "*{n} calls* · :white_check_mark: *{answered} answered ({rate})*",
        t.calls,
    ).format(n=number(t.calls), answered=number(t.answered), rate=percent(t.answer_rate))
    blocks.append(
        SectionBlock(text=MarkdownTextObject(text=headline), fields=labelled(call_pairs(t)[:10]))
    )
    others = (
        (status_words("cancel").lower(), t.cancelled),
        (status_words("congestion").lower(), t.congestion),
        (status_words("phone-block").lower(), t.blocked),
        ("IVR", t.ivr),
    )
    extra = " · ".join(f"{number(n)} {name}" for name, n in others if n)
    if extra:
        also = _("Also: {counts}").format(counts=extra)
        blocks.append(context_line(also))
    last = window.end - timedelta(seconds=1)
    multi_day = window.start.date() != last.date()
    blocks.extend(stats_breakdown(figures.buckets(interval), interval, multi_day=multi_day))
    counted = ngettext(
        "{n} call, {answered} answered: {what}", "{n} calls, {answered} answered: {what}", t.calls
    ).format(n=number(t.calls), answered=number(t.answered), what=words)
    return Reply(text=escape(counted), blocks=blocks)


async def stats(ctx: CommandContext, args: list[str]) -> Reply:
    usage = usage_of("stats")
    positional, raw_options = split_options(args)
    check_keys(raw_options, ("interval",), what=_("an option of stats"), usage=usage)
    options = {k.lower(): v for k, v in raw_options.items()}
    if len(positional) > 1:
        raise UsageError(_(ONE_PERIOD), usage)
    period = _period(positional[0] if positional else None, ctx, usage)
    interval = options.get("interval", period.default_interval).strip().lower()
    if interval not in INTERVALS:
        raise UsageError(
            _("interval= is one of {choices}, not '{value}'.").format(
                choices=", ".join(INTERVALS), value=options.get("interval")
            )
            + did_you_mean(interval, INTERVALS),
            usage,
        )
    figures = await call_figures(ctx.client(), Scope(), period.window())
    return stats_reply(figures, interval)


# --- monitor --------------------------------------------------------------------------


def dialer_line(s: DialerFigures, tz: ZoneInfo) -> str:
    """One autodialer campaign's figures (mrkdwn): the monitor's rows, the wallboard's and
    the digest's campaign lines say it alike."""
    flag = ":warning: " if s.dropped_warning else ""
    calls = ngettext(
        ":phone: *{n} call* · connected *{connected}* · {flag}dropped *{dropped_rate}* ({dropped})",
        ":phone: *{n} calls* · connected *{connected}* · {flag}dropped *{dropped_rate}* "
        "({dropped})",
        s.calls,
    ).format(
        n=number(s.calls),
        connected=percent(s.connection_rate),
        flag=flag,
        dropped_rate=percent(s.dropped_rate),
        dropped=number(s.dropped),
    )
    agents = _(
        ":busts_in_silhouette: {ready} ready · {paused} paused · {in_call} in call of {agents}"
    ).format(
        ready=number(s.agents_ready),
        paused=number(s.agents_paused),
        in_call=number(s.agents_in_call),
        agents=number(s.agents),
    )
    leads = ngettext(
        ":clipboard: {n} lead ({in_progress} in progress)",
        ":clipboard: {n} leads ({in_progress} in progress)",
        s.leads,
    ).format(n=number(s.leads), in_progress=number(s.leads_in_progress))
    last = _("last call {when}").format(when=day_time(s.last_call_time, tz))
    return f"{calls}\n{agents} · {leads} · {last}"


def _monitor_row(s: DialerFigures, tz: ZoneInfo) -> SectionBlock:
    text = (
        f"*{campaign_label(s.name)}* {status_label(s.status)}"
        + (f" · `{clip(s.type, 30)}`" if s.type else "")
        + "\n"
        + dialer_line(s, tz)
    )
    return section(text)


def monitor_reply(
    items: Sequence[DialerFigures],
    totals: DialerTotals,
    *,
    command: str,
    ctx: CommandContext,
) -> Reply:
    title = _("Autodialer monitor: last {window}").format(
        window=recent_words(round(totals.window.seconds))
    )
    scope_line = context_line(f":calendar: {totals.caption()}")
    if not items:
        return Reply(
            text=_("No autodialer statistics."),
            blocks=[
                HeaderBlock(text=title),
                scope_line,
                section(_(":zzz: No autodialer campaigns to show.")),
            ],
        )
    ordered = sorted(items, key=lambda s: (not s.running, -s.calls, s.name))
    calls = ngettext(
        "*{n} call* · connected *{connected}* · dropped *{dropped}*",
        "*{n} calls* · connected *{connected}* · dropped *{dropped}*",
        totals.calls,
    ).format(
        n=number(totals.calls),
        connected=percent(totals.connection_rate),
        dropped=percent(totals.dropped_rate),
    )
    running = ngettext(
        "{running} of {n} campaign running", "{running} of {n} campaigns running", totals.campaigns
    ).format(running=number(totals.running), n=number(totals.campaigns))
    headline = f"{calls} · {running}"
    page = ordered[ctx.offset : ctx.offset + MONITOR_PAGE_SIZE]
    blocks: list[Block] = [
        HeaderBlock(text=title),
        scope_line,
        section(headline),
    ]
    blocks.extend(_monitor_row(s, ctx.tz) for s in page)
    blocks.append(
        showing(ctx.offset, len(page), len(ordered), one=_("campaign"), many=_("campaigns"))
    )
    blocks.extend(pager(command, ctx.offset, MONITOR_PAGE_SIZE, len(ordered)))
    text = ngettext("{title}: {n} call", "{title}: {n} calls", totals.calls)
    return Reply(text=text.format(title=title, n=number(totals.calls)), blocks=blocks)


async def monitor(ctx: CommandContext, args: list[str]) -> Reply:
    usage = usage_of("monitor")
    positional, options = split_options(args)
    check_keys(options, ("window",), what=_("an option of monitor"), usage=usage)
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
                _(
                    "monitor watches up to {most} named campaigns at once, not {count}; "
                    "name fewer, or none to see every autodialer campaign."
                ).format(most=MONITOR_MAX_CAMPAIGNS, count=len(queries)),
                usage,
            )
        for query in queries:
            try:
                # Read-only: a clear nearest name is taken for a typo, and said so.
                matches.append(find_campaign(campaigns, query, take_guess=True))
            except CampaignNotFound as exc:
                raise UsageError(
                    _("No campaign is named '{query}' or starts with it.").format(query=exc.query),
                    usage,
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


def _period_listing(
    title: str,
    window: Window,
    ctx: CommandContext,
    *,
    empty: str,
    headline: str,
    rows: Sequence[Row],
    columns: Sequence[Column],
    cells: Callable[[Row], list[Cell]],
    one: str,
    many: str,
    command: str,
) -> list[Block]:
    """A paged listing over a window: title, what it covers, a headline, then this page of
    ``rows`` (all of them, in order) as a table; ``empty`` (plain text) when there is none."""
    blocks: list[Block] = [
        HeaderBlock(text=title),
        context_line(f":calendar: {caption(_(WHOLE), window.label())}"),
    ]
    if not rows:
        return [*blocks, section(f":zzz: {escape(empty)}.")]
    page = rows[ctx.offset : ctx.offset + ROWS_PAGE_SIZE]
    blocks.append(section(headline))
    grid = table(columns, [cells(item) for item in page])
    if grid is not None:  # a page of a listing always fits one table
        blocks.append(grid)
    blocks.append(showing(ctx.offset, len(page), len(rows), one=one, many=many))
    blocks.extend(pager(command, ctx.offset, ROWS_PAGE_SIZE, len(rows)))
    return blocks


def agent_columns() -> tuple[Column, ...]:
    """The agents table's columns (their titles are translated when a table is made);
    an agent's pause is "tạm nghỉ", not the campaign's "tạm dừng" of the same English
    word, so its title is said here with its own context."""
    return (
        Column(N_("Agent")),
        Column(N_("Username")),
        Column(N_("Talk"), "right"),
        Column(N_("Wait"), "right"),
        Column(pgettext("an agent's time on a break, a table's column", "Pause"), "right"),
        Column(N_("Wrap-up"), "right"),
        Column(N_("Occupancy"), "right"),
        Column(N_("Logged in")),
    )


def logged_in_range(first: str, last: str) -> str:
    """``08:01–17:30``; one dash when neither end is known (never ``–––``)."""
    if first == last == "–":
        return "–"
    return f"{first}–{last}"


def _agent_cells(a: AgentTime, tz: ZoneInfo, *, multi_day: bool) -> list[Cell]:
    told = day_time if multi_day else clock
    return [
        agent_name(a),
        a.username,
        duration(a.total_talk_sec),
        duration(a.total_wait_sec),
        duration(a.total_pause_sec),
        duration(a.total_dispo_sec),
        percent(occupancy(a), 0),
        logged_in_range(told(a.earliest_time, tz), told(a.latest_time, tz)),
    ]


def agents_reply(
    rows: Sequence[AgentTime], window: Window, *, command: str, ctx: CommandContext
) -> Reply:
    title = _("Agent time: {period}").format(period=window.said_word() or _("the period"))
    ordered = sorted(rows, key=lambda a: (-a.total_talk_sec, a.username))
    talk = sum(a.total_talk_sec for a in ordered)
    wait = sum(a.total_wait_sec for a in ordered)
    pause = sum(a.total_pause_sec for a in ordered)
    multi_day = window.start.date() != (window.end - timedelta(seconds=1)).date()
    blocks = _period_listing(
        title,
        window,
        ctx,
        empty=_("No agent time"),
        headline=ngettext(
            "*{n} agent* · talk *{talk}* · wait {wait} · pause {pause}",
            "*{n} agents* · talk *{talk}* · wait {wait} · pause {pause}",
            len(ordered),
        ).format(
            n=number(len(ordered)), talk=duration(talk), wait=duration(wait), pause=duration(pause)
        ),
        rows=ordered,
        columns=agent_columns(),
        cells=lambda a: _agent_cells(a, ctx.tz, multi_day=multi_day),
        one=_("agent"),
        many=_("agents"),
        command=command,
    )
    if not ordered:
        text = _("No agent time: {window}.").format(window=window.label())
        return Reply(text=escape(text), blocks=blocks)
    text = ngettext(
        "{title}: {n} agent, talk {talk}", "{title}: {n} agents, talk {talk}", len(ordered)
    ).format(title=title, n=number(len(ordered)), talk=duration(talk))
    return Reply(text=text, blocks=blocks)


def _period_only(name: str, args: list[str], ctx: CommandContext) -> Period:
    usage = usage_of(name)
    positional, options = split_options(args)
    if options:
        raise UsageError(_("{name} takes no options; give a period only.").format(name=name), usage)
    if len(positional) > 1:
        raise UsageError(_(ONE_PERIOD), usage)
    return _period(positional[0] if positional else None, ctx, usage)


async def agents(ctx: CommandContext, args: list[str]) -> Reply:
    period = _period_only("agents", args, ctx)
    window = period.window()
    start, end = window.service_bounds()
    result = await ctx.client().reports.agent_time(start_time=start, end_time=end)
    reply = agents_reply(result.data, window, command=f"agents {period.word}", ctx=ctx)
    return with_note(reply, _(AGENTS_NOTE))


# --- extensions -----------------------------------------------------------------------


EXTENSION_COLUMNS = (
    Column(N_("Extension")),
    Column(N_("Name")),
    Column(N_("Calls"), "right"),
    Column(N_("Answered"), "right"),
    Column(N_("Answer rate"), "right"),
    Column(N_("Busy"), "right"),
    Column(N_("Line busy"), "right"),
    Column(N_("No answer"), "right"),
    Column(N_("Unavailable"), "right"),
    Column(N_("In"), "right"),
    Column(N_("Out"), "right"),
    Column(N_("Local"), "right"),
)


def _extension_cells(e: ExtensionCounters) -> list[Cell]:
    c = Counts.of_extension(e)
    return [
        e.extension,
        person_name(e.lastname, e.middlename, e.firstname) or e.username,
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
    title = _("Calls per extension: {period}").format(period=window.said_word() or _("the period"))
    ordered = sorted(rows, key=lambda e: (-e.total, e.extension))
    total = sum((Counts.of_extension(e) for e in ordered), Counts())
    on = ngettext("{n} extension", "{n} extensions", len(ordered)).format(n=number(len(ordered)))
    calls = ngettext("*{n} call* on {extensions}", "*{n} calls* on {extensions}", total.calls)
    answered = _(":white_check_mark: *{answered} answered ({rate})*").format(
        answered=number(total.answered), rate=percent(total.answer_rate)
    )
    blocks = _period_listing(
        title,
        window,
        ctx,
        empty=_("No extension calls"),
        headline=f"{calls.format(n=number(total.calls), extensions=on)} · {answered}",
        rows=ordered,
        columns=EXTENSION_COLUMNS,
        cells=_extension_cells,
        one=_("extension"),
        many=_("extensions"),
        command=command,
    )
    if not ordered:
        text = _("No extension calls: {window}.").format(window=window.label())
        return Reply(text=escape(text), blocks=blocks)
    text = ngettext("{title}: {n} call", "{title}: {n} calls", total.calls)
    return Reply(text=text.format(title=title, n=number(total.calls)), blocks=blocks)


async def extensions(ctx: CommandContext, args: list[str]) -> Reply:
    period = _period_only("extensions", args, ctx)
    window = period.window()
    start, end = window.service_bounds()
    result = await ctx.client().reports.extensions(start_time=start, end_time=end)
    reply = extensions_reply(result.data, window, command=f"extensions {period.word}", ctx=ctx)
    return with_note(reply, _(EXTENSIONS_NOTE))


AGENTS_NOTE = N_(
    ":information_source: Talk time here is agents' own calls; autocalls have no agent, so "
    "`/callops stats` (all calls) shows more."
)
EXTENSIONS_NOTE = N_(
    ":information_source: Calls here are those on an extension; autocalls use none, so "
    "`/callops stats` (all calls) counts more."
)
"""Where a figure differs from the same word elsewhere by definition, it says so."""


def with_note(reply: Reply, note: str) -> Reply:
    """``reply`` with a closing note (before its paging buttons, if any)."""
    at = len(reply.blocks)
    while at and isinstance(reply.blocks[at - 1], ActionsBlock):
        at -= 1
    reply.blocks.insert(at, context_line(note))
    return reply
