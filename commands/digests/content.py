"""What a digest says: totals with their change, the autodialer campaigns, the agents, a chart.

Everything is fetched for the period the schedule covers (``commands.digests.schedules``), on the
workspace's clock, and the requests of one digest go out together (one round trip of the
service's latency, not five), because hundreds of digests fall due in the same minute.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)

from callcenter import CallCenter
from callcenter.models import AgentTime, AutodialerStats, StatsRow
from commands.campaigns.cards import OPEN_ACTION
from commands.digests.schedules import DigestPeriod, span_label
from commands.kernel.context import CommandContext
from commands.kernel.durations import recent_words
from commands.kernel.interactions import Click, Interactions, OnClick
from commands.kernel.periods import Period, to_service
from commands.kernel.reply import Nothing, Outcome, Reply, notice
from commands.kernel.text import (
    campaign_label,
    clip,
    duration,
    escape,
    full_name,
    number,
    percent,
    plural,
    ratio_percent,
    signed_change,
    status_label,
    truncate,
)
from commands.reports.chart import Bar, render_bar_chart
from commands.reports.stats import (
    DROPPED_RATE_WARNING,
    MAX_WINDOW_MINUTES,
    local_buckets,
    stats_reply,
)
from storage import Role

SECTIONS = ("totals", "campaigns", "agents", "chart")
"""What a digest can hold, in the order it is shown; all of them unless told otherwise."""
FULL_REPORT_ACTION = "digest_full_report"
MAX_CAMPAIGNS = 6
MAX_CAMPAIGN_BUTTONS = 5
TOP_AGENTS = 3
"""The autodialer statistics look back at most this far (the service's window is minutes)."""
MIN_CHART_HOURS = 3
"""A shorter period (an hourly digest) is charted from local midnight, so there is a shape."""


@dataclass(frozen=True)
class Totals:
    """The counters a manager reads first, summed over a period's ``/v2/stats`` rows."""

    calls: int = 0
    answered: int = 0
    busy: int = 0
    no_answer: int = 0
    invalid: int = 0
    inbound: int = 0
    outbound: int = 0
    talk_seconds: int = 0

    @classmethod
    def of(cls, rows: Sequence[StatsRow]) -> Totals:
        return cls(
            calls=sum(r.total for r in rows),
            answered=sum(r.answered for r in rows),
            busy=sum(r.busy + r.busy_line for r in rows),
            no_answer=sum(r.no_answered for r in rows),
            invalid=sum(r.invalid for r in rows),
            inbound=sum(r.inbound for r in rows),
            outbound=sum(r.outbound for r in rows),
            talk_seconds=sum(r.total_billsec for r in rows),
        )


@dataclass
class DigestContent:
    """One digest ready to post: the message, and the chart to upload after it."""

    reply: Reply
    totals: Totals
    previous: Totals
    chart_png: bytes | None = None
    chart_title: str = ""
    chart_filename: str = "digest.png"
    campaigns: list[AutodialerStats] = field(default_factory=list)


@dataclass(frozen=True)
class DigestRequest:
    """Which digest to build: the period, what to show, and how to label it."""

    period: DigestPeriod
    title: str
    campaigns: tuple[str, ...] = ()
    """Campaign UUIDs; empty means the autodialer campaigns that were busy."""
    sections: tuple[str, ...] = SECTIONS
    digest_id: str | None = None
    schedule: str | None = None
    """For the footer: ``every day at 08:00``."""


def full_report_value(period: DigestPeriod, digest_id: str | None) -> str:
    """What the Full report button carries: enough to rebuild the period anywhere."""
    return (
        f"{digest_id or '-'}|{int(period.start.timestamp())}|{int(period.end.timestamp())}|"
        f"{int(period.previous_start.timestamp())}"
    )


def read_full_report_value(value: str, tz: ZoneInfo) -> tuple[str | None, DigestPeriod]:
    """The digest id (None for a preview) and the period a Full report button stands for."""
    digest_id, start, end, previous = value.split("|")
    period = DigestPeriod(
        start=datetime.fromtimestamp(int(start), tz),
        end=datetime.fromtimestamp(int(end), tz),
        previous_start=datetime.fromtimestamp(int(previous), tz),
        tz=tz,
    )
    return (None if digest_id == "-" else digest_id), period


def _chart_window(period: DigestPeriod) -> tuple[datetime, datetime]:
    if period.seconds >= MIN_CHART_HOURS * 3600:
        return period.start, period.end
    last = period.end - timedelta(seconds=1)
    midnight = last.replace(hour=0, minute=0, second=0, microsecond=0)
    return min(midnight, period.start), period.end


async def _stats_rows(cc: CallCenter, start: datetime, end: datetime) -> list[StatsRow]:
    """Hourly rows (summed into local days by ``local_buckets`` where needed), so a day is
    the workspace's day whatever clock the service counts on."""
    result = await cc.reports.stats(
        to_service(start), to_service(end - timedelta(seconds=1)), interval="hour"
    )
    return list(result.data)


async def _autodialer(
    cc: CallCenter, period: DigestPeriod, campaigns: Sequence[str]
) -> list[AutodialerStats]:
    minutes = autodialer_minutes(period)
    return [s async for s in cc.reports.iterate_autodialer(minutes, campaign_uuids=campaigns)]


async def _agents(cc: CallCenter, period: DigestPeriod) -> list[AgentTime]:
    start, end = period.service_bounds()
    return list((await cc.reports.agent_time(start_time=start, end_time=end)).data)


async def _nothing() -> list[Any]:
    return []


async def build_digest(cc: CallCenter, request: DigestRequest) -> DigestContent:
    period = request.period
    sections = request.sections or SECTIONS
    chart_start, chart_end = _chart_window(period)
    separate_chart = "chart" in sections and chart_start != period.start
    current, previous, dialer, agents, chart_rows = await asyncio.gather(
        _stats_rows(cc, period.start, period.end),
        _stats_rows(cc, period.previous_start, period.start),
        _autodialer(cc, period, request.campaigns) if "campaigns" in sections else _nothing(),
        _agents(cc, period) if "agents" in sections else _nothing(),
        _stats_rows(cc, chart_start, chart_end) if separate_chart else _nothing(),
    )
    totals, before = Totals.of(current), Totals.of(previous)
    shown = _pick_campaigns(dialer, request.campaigns)
    blocks: list[Block] = [
        HeaderBlock(text=truncate(request.title, 150)),
        ContextBlock(
            elements=[
                MarkdownTextObject(
                    text=f":calendar: {escape(period.label())} ({escape(period.tz.key)})"
                    f" · compared with {escape(period.previous_label())}"
                )
            ]
        ),
    ]
    if "totals" in sections:
        blocks.extend(_totals_blocks(totals, before))
    if "campaigns" in sections:
        blocks.extend(_campaign_blocks(shown, period, chosen=bool(request.campaigns)))
    if "agents" in sections:
        blocks.extend(_agent_blocks(agents))
    blocks.append(_buttons(shown, period, request.digest_id))
    footer = []
    if request.schedule:
        footer.append(f"Digest `{escape(request.digest_id or '')}` · {escape(request.schedule)}")
    if "chart" in sections:
        footer.append("chart below")
    if footer:
        blocks.append(ContextBlock(elements=[MarkdownTextObject(text=" · ".join(footer))]))
    text = (
        f"{request.title}: {plural(totals.calls, 'call')}, {number(totals.answered)} answered "
        f"({ratio_percent(totals.answered, totals.calls)})"
    )
    content = DigestContent(
        reply=Reply(text=escape(text), blocks=blocks, ephemeral=False),
        totals=totals,
        previous=before,
        campaigns=shown,
    )
    if "chart" in sections:
        rows = chart_rows if separate_chart else current
        content.chart_png, content.chart_title = await _chart(rows, chart_start, chart_end, period)
        stamp = period.end.strftime("%Y%m%d-%H%M")
        content.chart_filename = f"callops-digest-{request.digest_id or 'preview'}-{stamp}.png"
    return content


def _pick_campaigns(
    items: Sequence[AutodialerStats], chosen: Sequence[str]
) -> list[AutodialerStats]:
    if chosen:
        order = {uuid: i for i, uuid in enumerate(chosen)}
        return sorted(
            (s for s in items if s.campaign_uuid in order), key=lambda s: order[s.campaign_uuid]
        )
    busy = [s for s in items if s.total_calls or s.status in ("start", "running")]
    busy.sort(key=lambda s: (s.status not in ("start", "running"), -s.total_calls, s.campaign_name))
    return busy[:MAX_CAMPAIGNS]


def change_words(current: float, previous: float) -> str:
    """``▲ 12%``, ``▼ 3%``, ``±0%`` or ``new``, against the previous period."""
    words = signed_change(current, previous)
    return "±0%" if words == "=" else words


def _change(current: float, previous: float) -> str:
    return f"_{change_words(current, previous)}_"


def _totals_blocks(t: Totals, p: Totals) -> list[Block]:
    if t.calls == 0 and p.calls == 0:
        return [SectionBlock(text=MarkdownTextObject(text=":zzz: No calls in this period."))]
    headline = (
        f"*{plural(t.calls, 'call')}* {_change(t.calls, p.calls)} · :white_check_mark: "
        f"*{number(t.answered)} answered ({ratio_percent(t.answered, t.calls)})* "
        f"{_change(t.answered, p.answered)}"
    )
    pairs = [
        ("Busy", f"{number(t.busy)} {_change(t.busy, p.busy)}"),
        ("No answer", f"{number(t.no_answer)} {_change(t.no_answer, p.no_answer)}"),
        ("Invalid", f"{number(t.invalid)} {_change(t.invalid, p.invalid)}"),
        ("Inbound", f"{number(t.inbound)} {_change(t.inbound, p.inbound)}"),
        ("Outbound", f"{number(t.outbound)} {_change(t.outbound, p.outbound)}"),
        ("Talk time", f"{duration(t.talk_seconds)} {_change(t.talk_seconds, p.talk_seconds)}"),
    ]
    fields = [MarkdownTextObject(text=f"*{k}*\n{v}") for k, v in pairs]
    return [SectionBlock(text=MarkdownTextObject(text=headline), fields=fields)]


def _campaign_line(s: AutodialerStats) -> str:
    flag = ":warning: " if s.dropped_call_rate > DROPPED_RATE_WARNING else ""
    return (
        f"*{campaign_label(s.campaign_name, 100)}* {status_label(s.status)}\n"
        f":clipboard: {plural(s.total_leads, 'lead')} ({number(s.leads_in_progress)} in progress)"
        f" · :phone: {plural(s.total_calls, 'call')} · connected "
        f"*{percent(s.customer_connection_rate)}* · {flag}dropped "
        f"*{percent(s.dropped_call_rate)}* · :busts_in_silhouette: {number(s.agents_ready)} ready"
        f" / {number(s.agents_in_call)} in call / {plural(s.total_agents, 'agent')}"
    )


def autodialer_minutes(period: DigestPeriod) -> int:
    return max(1, min(MAX_WINDOW_MINUTES, round(period.seconds / 60)))


def _campaign_blocks(
    shown: Sequence[AutodialerStats], period: DigestPeriod, *, chosen: bool
) -> list[Block]:
    # The service's autodialer figures look back from the moment they are asked for, so
    # they are labelled with their own window rather than the digest's period.
    title = f"*Autodialer campaigns* (last {recent_words(autodialer_minutes(period) * 60)})"
    if not shown:
        empty = "none of the chosen campaigns has statistics" if chosen else "no activity"
        return [DividerBlock(), SectionBlock(text=MarkdownTextObject(text=f"{title}: {empty}."))]
    body = "\n\n".join(_campaign_line(s) for s in shown)
    return [
        DividerBlock(),
        SectionBlock(text=MarkdownTextObject(text=truncate(f"{title}\n{body}", 3000))),
    ]


def _agent_name(a: AgentTime) -> str:
    return full_name(a.first_name, a.middle_name, a.last_name) or a.username or "Unknown agent"


def _agent_line(rank: int, a: AgentTime) -> str:
    busy = a.total_talk_sec + a.total_dispo_sec
    occupancy = ratio_percent(busy, busy + a.total_wait_sec, 0)
    return (
        f"{rank}. {clip(_agent_name(a), 60)} · talk *{duration(a.total_talk_sec)}* · "
        f"occupancy {occupancy}"
    )


def _agent_blocks(agents: Sequence[AgentTime]) -> list[Block]:
    active = [a for a in agents if a.total_talk_sec or a.total_wait_sec]
    if not active:
        return [
            DividerBlock(),
            SectionBlock(text=MarkdownTextObject(text="*Agents*: nobody logged time.")),
        ]
    ranked = sorted(active, key=lambda a: (-a.total_talk_sec, a.username))
    top = ranked[:TOP_AGENTS]
    text = "*Top agents* (talk time)\n" + "\n".join(
        _agent_line(i + 1, a) for i, a in enumerate(top)
    )
    fields = []
    if len(ranked) > TOP_AGENTS:
        bottom = ranked[-min(TOP_AGENTS, len(ranked) - TOP_AGENTS) :]
        start = len(ranked) - len(bottom) + 1
        fields.append(
            "*Least talk time*\n"
            + "\n".join(_agent_line(start + i, a) for i, a in enumerate(bottom))
        )
    blocks: list[Block] = [DividerBlock(), SectionBlock(text=MarkdownTextObject(text=text))]
    if fields:
        blocks.append(SectionBlock(text=MarkdownTextObject(text=truncate(fields[0], 3000))))
    return blocks


def _buttons(
    shown: Sequence[AutodialerStats], period: DigestPeriod, digest_id: str | None
) -> ActionsBlock:
    elements = [
        ButtonElement(
            text=truncate(f"Open {s.campaign_name or 'campaign'}", 75),
            # Unique within the message: Slack refuses repeated action ids.
            action_id=f"{OPEN_ACTION}_{i}",
            value=s.campaign_uuid,
        )
        for i, s in enumerate(shown[:MAX_CAMPAIGN_BUTTONS])
    ]
    elements.append(
        ButtonElement(
            text="Full report",
            action_id=FULL_REPORT_ACTION,
            value=full_report_value(period, digest_id),
        )
    )
    return ActionsBlock(elements=elements)


async def _chart(
    rows: Sequence[StatsRow], start: datetime, end: datetime, period: DigestPeriod
) -> tuple[bytes, str]:
    chart_period = DigestPeriod(start=start, end=end, previous_start=start, tz=period.tz)
    interval = chart_period.interval
    inside = [
        (moment, row)
        for moment, row in local_buckets(rows, interval, period.tz)
        if start - timedelta(hours=1) < moment < end
    ]
    bars = [
        Bar(
            label=moment.strftime("%H" if interval == "hour" else "%a %d"),
            answered=row.answered,
            not_answered=row.total - row.answered,
        )
        for moment, row in inside
    ]
    # The chart's font has no arrows or dashes: plain words in the picture.
    span = span_label(start, end).replace(" → ", " to ").replace("–", "-")
    title = f"Calls per {interval}, {span}"
    x_label = f"{'hour' if interval == 'hour' else 'day'} ({period.tz.key})"
    # Drawing and PNG encoding run in a thread, off the event loop the other digests share.
    png = await asyncio.to_thread(render_bar_chart, bars, title=title, x_label=x_label)
    return png, title


# --- the full report (posted in the digest's thread on request) ----------------------


async def full_report(cc: CallCenter, period: DigestPeriod) -> Reply:
    """The whole breakdown behind a digest: every bucket of the period, and every agent."""
    rows, agents = await asyncio.gather(
        _stats_rows(cc, period.start, period.end), _agents(cc, period)
    )
    as_period = Period(
        word="digest",
        label=period.label(),
        start=period.start,
        end=period.end - timedelta(seconds=1),
    )
    # stats_reply reads only the time zone of its context.
    context = CommandContext(
        team_id="", user_id="", channel_id=None, role=Role.VIEWER, tz=period.tz
    )
    reply = stats_reply(rows, as_period, period.interval, context)
    active = sorted(
        (a for a in agents if a.total_talk_sec or a.total_wait_sec),
        key=lambda a: (-a.total_talk_sec, a.username),
    )
    if active:
        lines = [_agent_line(i + 1, a) for i, a in enumerate(active)]
        chunk: list[str] = ["*All agents* (talk time)"]
        for line in lines:
            if sum(len(x) + 1 for x in chunk) + len(line) > 2900:
                reply.blocks.append(SectionBlock(text=MarkdownTextObject(text="\n".join(chunk))))
                chunk = []
            chunk.append(line)
        reply.blocks.append(SectionBlock(text=MarkdownTextObject(text="\n".join(chunk))))
    reply.ephemeral = False
    return reply


async def full_report_clicked(ctx: CommandContext, click: Click) -> Outcome:
    """Full report: posted once in the digest's thread (a second click is told it is
    there already); from an ephemeral preview, shown only to the person who asked."""
    if ctx.storage is None:
        raise RuntimeError("the full report needs the app's database")
    digest_id, period = read_full_report_value(click.value, ctx.tz)
    digest = ctx.storage.digests.get(ctx.team_id, digest_id) if digest_id else None
    if digest is not None:  # its own clock, which may differ from the workspace's now
        period = read_full_report_value(click.value, ZoneInfo(digest.timezone))[1]
    channel, ts = ctx.channel_id, click.message_ts
    in_thread = channel is not None and ts is not None and not click.ephemeral
    if in_thread and not ctx.storage.dedup.mark_event(ctx.team_id, f"digest-full:{channel}:{ts}"):
        return notice("The full report is already in this digest's thread.")
    reply = await full_report(ctx.client(), period)
    if in_thread and channel is not None and ctx.messenger is not None:
        reply.text = f"Full report, asked for by <@{ctx.user_id}>: " + reply.text
        if await ctx.messenger.post(channel, reply, thread_ts=ts):
            return Nothing()
    reply.ephemeral = True
    return reply


INTERACTIONS = Interactions(clicks=(OnClick(FULL_REPORT_ACTION, full_report_clicked),))
