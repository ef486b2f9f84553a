"""What a digest says: totals with their change, the autodialer campaigns, the agents, a chart.

Everything is fetched for the period the schedule covers (``commands.digests.schedules``), on the
workspace's clock, and the requests of one digest go out together (one round trip of the
service's latency, not five), because hundreds of digests fall due in the same minute.

Every number is one of ``commands.reports.figures`` and every block names its scope and
period.  A digest scoped to campaigns is about those campaigns: its totals, its chart and
its full report are their calls, counted from their call records (the statistics endpoint
cannot filter by campaign); agent time is kept per agent only, and says so.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from pydantic import Field, model_validator
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
from callcenter.errors import CallCenterError
from callcenter.models import AgentTime
from commands.digests.schedules import DigestPeriod
from commands.kernel.channels import channel_readers
from commands.kernel.context import CommandContext
from commands.kernel.failures import describe_failure
from commands.kernel.i18n import N_, _, ngettext, pgettext, use_audience
from commands.kernel.interactions import OPEN_CAMPAIGN, Click
from commands.kernel.periods import Window
from commands.kernel.reply import Nothing, Outcome, Post, Reply, context_line, notice, section
from commands.kernel.resolve import all_campaigns
from commands.kernel.text import (
    campaign_label,
    caption,
    clip,
    duration,
    escape,
    number,
    percent,
    signed_change,
    status_label,
    truncate,
    zone_name,
)
from commands.kernel.values import OutOfDate, Token, Value, read_fields
from commands.reports.chart_blocks import DEFAULT_MODE, ChartMode, ChartParts, chart_parts
from commands.reports.chart_spec import ChartSpec, Series
from commands.reports.figures import (
    ALL_DIALER,
    WHOLE,
    CallFigures,
    Counts,
    DialerFigures,
    Scope,
    agent_name,
    call_figures,
    dialer_figures,
    occupancy,
    worked,
)
from commands.reports.insights import INSIGHTS_TZ, Insights, gather_insights, insights_blocks
from commands.reports.progress import shown_in_thread
from commands.reports.stats import MAX_WINDOW_MINUTES, stats_reply
from commands.reports.tally import Progress
from commands.rules.consent import ending_words
from commands.rules.guard import DECREE_HOURS
from storage.offload import off_loop

SECTIONS = ("totals", "campaigns", "agents", "chart", "insights")
"""What a digest can hold, in the order it is shown."""
DEFAULT_SECTIONS = ("totals", "campaigns", "agents", "chart")
"""What a digest holds unless told otherwise: ``insights`` reads four weeks of call
records (once a day per campaign, then kept), so it is asked for, not given."""
FULL_REPORT_ACTION = "digest_full_report"
MAX_CAMPAIGNS = 5
"""Campaigns a digest lists: each gets its Open button (as many as ``MAX_CAMPAIGN_BUTTONS``)."""
MAX_CAMPAIGN_BUTTONS = 5
TOP_AGENTS = 3
MIN_CHART_HOURS = 3
"""A shorter period (an hourly digest) is charted from local midnight, so there is a shape."""
SOURCE_WORDS = {
    "statistics": N_("from the statistics"),
    "call records": N_("from the call records"),
}
"""What a digest's totals were counted from (``CallFigures.source``), in words."""
CHART_TITLES = {
    "hour": N_("Calls per hour, {scope}, {window}"),
    "day": N_("Calls per day, {scope}, {window}"),
}
"""The chart's title per ``DigestPeriod.interval``."""
CHART_SHORT_TITLES = {
    "hour": N_("Calls per hour, {scope}"),
    "day": N_("Calls per day, {scope}"),
}
"""Slack's own chart's title (50 characters), the digest's header saying the period."""


@dataclass
class DigestContent:
    """One digest ready to post: the message (with the chart in it when Slack draws it),
    and the chart's PNG to upload after it when the chart is sent as an image."""

    reply: Reply
    figures: CallFigures
    previous: CallFigures
    chart: ChartParts | None = None
    campaigns: list[DialerFigures] = field(default_factory=list)


@dataclass(frozen=True)
class DigestRequest:
    """Which digest to build: the period, what to show, and how to label it."""

    period: DigestPeriod
    title: str
    campaigns: tuple[str, ...] = ()
    """Campaign UUIDs the digest is about; empty: the whole call center (and the busiest
    autodialer campaigns in its campaigns section)."""
    sections: tuple[str, ...] = DEFAULT_SECTIONS
    digest_id: str | None = None
    schedule: str | None = None
    """For the footer: ``every day at 08:00``."""
    why: str = ""
    """Why this period, as mrkdwn (escaped; it may mention who asked):
    ``the last complete period of this digest (every day at 08:00)``."""
    chart_follows: bool = True
    """The chart is posted right after the message (not for a preview, which is a
    message only its reader sees and cannot carry a file)."""
    refused_calls: int = 0
    """Calls the calling rules stopped in the period (the audit log's count)."""
    consents_ending: tuple[tuple[str, float], ...] = ()
    """Customers' consents that end within 7 days: number, end (``commands/rules/consent.py``)."""
    against_rules: int = 0
    """Calls the service placed against the calling rules in the period (the rule
    watch's count, ``commands/rules/watch.py``)."""
    looser_rules: tuple[str, ...] = ()
    """The calling rules set looser than Decree 91, in words (``hours 22:00–02:00``)."""
    calling_hours: tuple[int, int] = DECREE_HOURS
    """The calling rules' hours (Vietnam's minutes after midnight): the insights
    section's best hours to call lie within them."""
    chart_mode: ChartMode = DEFAULT_MODE
    """How the workspace reads charts (``settings charts``): drawn by Slack in the
    message where the chart fits, or a PNG after it."""


def full_report_value(period: DigestPeriod, digest_id: str | None) -> str:
    """What the Full report button carries: enough to rebuild the period anywhere."""
    return (
        f"{digest_id or '-'}|{int(period.start.timestamp())}|{int(period.end.timestamp())}|"
        f"{int(period.previous_start.timestamp())}|{int(period.previous_until.timestamp())}"
    )


Stamp = Annotated[int, Field(ge=0, le=4_102_444_800)]
"""A Unix time up to 2100: a forged huge one is out of date, not an overflow."""
MAX_REPORT_DAYS = 400
"""Longer than any digest's period (a month, and the one before it)."""


class FullReportValue(Value):
    """What a Full report button carries (``full_report_value``): the digest (``-`` for
    a preview) and its period's bounds.  Buttons posted before the previous period's end
    was carried have four parts."""

    digest_id: Token
    start: Stamp
    end: Stamp
    previous: Stamp
    previous_end: Stamp | None = None

    @model_validator(mode="after")
    def _a_period(self) -> FullReportValue:
        if not self.previous <= self.start < self.end:
            raise ValueError("the bounds are out of order")
        if self.end - self.previous > MAX_REPORT_DAYS * 86400:
            raise ValueError("the period is longer than any digest's")
        return self


FULL_REPORT_PARTS = ("digest_id", "start", "end", "previous", "previous_end")


def read_full_report_value(value: str, tz: ZoneInfo) -> tuple[str | None, DigestPeriod]:
    """The digest id (None for a preview) and the period a Full report button stands for."""
    parts = value.split("|")
    if len(parts) not in (4, 5):
        raise OutOfDate("a Full report button's value", f"{len(parts)} parts")
    found = read_fields(
        FullReportValue, dict(zip(FULL_REPORT_PARTS, parts, strict=False)), what="a Full report"
    )
    period = DigestPeriod(
        start=datetime.fromtimestamp(found.start, tz),
        end=datetime.fromtimestamp(found.end, tz),
        previous_start=datetime.fromtimestamp(found.previous, tz),
        tz=tz,
        previous_end=(
            datetime.fromtimestamp(found.previous_end, tz)
            if found.previous_end is not None
            else None
        ),
    )
    return (None if found.digest_id == "-" else found.digest_id), period


def _chart_window(period: DigestPeriod) -> Window:
    if period.seconds >= MIN_CHART_HOURS * 3600:
        return period.window()
    last = period.end - timedelta(seconds=1)
    midnight = last.replace(hour=0, minute=0, second=0, microsecond=0)
    return Window(min(midnight, period.start), period.end)


async def digest_scope(cc: CallCenter, campaigns: Sequence[str]) -> Scope:
    """The scope of a digest, its campaigns named as the service names them now."""
    if not campaigns:
        return Scope()
    names = {c.campaign_uuid: c.campaign_name for c in await all_campaigns(cc)}
    return Scope.of(campaigns, names)


async def _dialer(
    cc: CallCenter, period: DigestPeriod, campaigns: Sequence[str], at: datetime
) -> list[DialerFigures]:
    minutes = max(1, min(MAX_WINDOW_MINUTES, round(period.seconds / 60)))
    return await dialer_figures(cc, minutes, at=at, tz=period.tz, campaigns=campaigns)


async def _agents(cc: CallCenter, window: Window) -> list[AgentTime]:
    start, end = window.service_bounds()
    return list((await cc.reports.agent_time(start_time=start, end_time=end)).data)


async def _nothing() -> Any:
    return None


async def build_digest(
    cc: CallCenter,
    request: DigestRequest,
    *,
    now: datetime | None = None,
    progress: Progress | None = None,
) -> DigestContent:
    period = request.period
    sections = request.sections or DEFAULT_SECTIONS
    at = now or datetime.now(period.tz)
    chart_window = _chart_window(period)
    separate_chart = "chart" in sections and chart_window.start != period.start
    bare = Scope.of(request.campaigns, {})
    scope, current, previous, dialer, agents, charted, insight = await asyncio.gather(
        digest_scope(cc, request.campaigns),
        call_figures(cc, bare, period.window(), progress=progress),
        call_figures(cc, bare, Window(period.previous_start, period.previous_until)),
        _dialer(cc, period, request.campaigns, at) if "campaigns" in sections else _nothing(),
        _agents(cc, period.window()) if "agents" in sections else _nothing(),
        call_figures(cc, bare, chart_window) if separate_chart else _nothing(),
        _insights(cc, request, at) if "insights" in sections else _nothing(),
    )
    current, previous = replace(current, scope=scope), replace(previous, scope=scope)
    shown = _pick_campaigns(dialer or [], request.campaigns)
    # Each campaign's calls over the digest's own period, from its call records: the
    # service's autodialer figures look back from the moment they are asked for.  The
    # digest's own count already has its campaigns'; the others are counted in one pass.
    counts = {
        s.campaign_uuid: c for s in shown if (c := current.of_campaign(s.campaign_uuid)) is not None
    }
    missing = [s.campaign_uuid for s in shown if s.campaign_uuid not in counts]
    if missing:
        others = await call_figures(cc, Scope.of(missing, {}), period.window())
        counts |= {uuid: others.of_campaign(uuid) or Counts() for uuid in missing}
    context = f":calendar: {current.caption()}"
    if request.why:
        context += f" · {request.why}"
    context += " · " + _("compared with {period}").format(period=escape(period.previous_label()))
    if current.source == "call records":
        context += " · " + ngettext(
            "counted over {n} call record", "counted over {n} call records", current.records
        ).format(n=number(current.records))
    blocks: list[Block] = [
        HeaderBlock(text=truncate(request.title, 150)),
        context_line(truncate(context, 3000)),
    ]
    if "totals" in sections:
        blocks.extend(_totals_blocks(current, previous))
    if "campaigns" in sections:
        blocks.extend(_campaign_blocks(shown, counts, period, at, chosen=bool(request.campaigns)))
    if "agents" in sections:
        blocks.extend(_agent_blocks(agents or [], period, scope))
    if "insights" in sections:
        blocks.extend(insights_blocks(insight))
    if request.refused_calls:
        blocks.append(
            context_line(
                _(":scales: Calls refused by the calling rules: {n}").format(
                    n=number(request.refused_calls)
                )
            )
        )
    if request.consents_ending:
        blocks.append(context_line(":handshake: " + ending_words(request.consents_ending)))
    if request.against_rules:
        blocks.append(
            context_line(
                _(":rotating_light: Calls the service placed against the rules: {n}").format(
                    n=number(request.against_rules)
                )
            )
        )
    if request.looser_rules:
        blocks.append(
            context_line(
                _(":warning: Calling rules looser than Decree 91: {rules}").format(
                    rules=escape("; ".join(request.looser_rules))
                )
            )
        )
    chart: ChartParts | None = None
    if "chart" in sections:
        charted_figures = replace(charted, scope=scope) if separate_chart else current
        stamp = period.end.strftime("%Y%m%d-%H%M")
        filename = f"callops-digest-{request.digest_id or 'preview'}-{stamp}.png"
        spec = _chart_spec(charted_figures, period, filename)
        chart = await chart_parts(spec, request.chart_mode)
        blocks.extend(chart.blocks)  # the summary, and the chart when Slack draws it
    blocks.append(_buttons(shown, period, request.digest_id))
    footer = []
    if request.schedule:
        footer.append(
            _("Digest `{id}` · {schedule}").format(
                id=escape(request.digest_id or ""), schedule=escape(request.schedule)
            )
        )
    if chart is not None and not chart.native and request.chart_follows:
        footer.append(_("chart below"))
    if footer:
        blocks.append(context_line(" · ".join(footer)))
    t = current.totals
    text = ngettext(
        "{title}: {n} call, {answered} answered ({rate}) · {scope}",
        "{title}: {n} calls, {answered} answered ({rate}) · {scope}",
        t.calls,
    ).format(
        title=request.title,
        n=number(t.calls),
        answered=number(t.answered),
        rate=percent(t.answer_rate),
        scope=scope.plain(),
    )
    content = DigestContent(
        reply=Reply(text=escape(text), blocks=blocks, ephemeral=False),
        figures=current,
        previous=previous,
        campaigns=shown,
    )
    content.chart = chart
    return content


def insights_day(period: DigestPeriod) -> date:
    """The day (Vietnam's) a digest's insights are about: the day its period ends in; for
    a period of a day or more that ends before noon (a daily digest at 08:00), the day
    before, which it covers the most of."""
    last = (period.end - timedelta(seconds=1)).astimezone(INSIGHTS_TZ)
    if period.seconds >= 86400 and last.hour < 12:
        return last.date() - timedelta(days=1)
    return last.date()


async def _insights(cc: CallCenter, request: DigestRequest, at: datetime) -> Insights | str:
    """The insights of the digest's day (of its one campaign, else the call center), or
    why they could not be read (escaped words)."""
    last = insights_day(request.period)
    try:
        campaign = None
        if len(request.campaigns) == 1:
            found = [c for c in await all_campaigns(cc) if c.campaign_uuid == request.campaigns[0]]
            campaign = found[0] if found else None
        return await gather_insights(
            cc, last, campaign=campaign, allowed=request.calling_hours, now=at
        )
    except CallCenterError as exc:
        return describe_failure(exc).inline


def _pick_campaigns(items: Sequence[DialerFigures], chosen: Sequence[str]) -> list[DialerFigures]:
    if chosen:
        order = {uuid: i for i, uuid in enumerate(chosen)}
        return sorted(
            (s for s in items if s.campaign_uuid in order), key=lambda s: order[s.campaign_uuid]
        )
    busy = [s for s in items if s.calls or s.running]
    busy.sort(key=lambda s: (not s.running, -s.calls, s.name))
    return busy[:MAX_CAMPAIGNS]


def change_words(current: float, previous: float) -> str:
    """``▲ 12%``, ``▼ 3%``, ``±0%`` or ``new``, against the previous period."""
    words = signed_change(current, previous)
    return "±0%" if words == "=" else words


def _change(current: float, previous: float) -> str:
    return f"_{change_words(current, previous)}_"


def _totals_blocks(current: CallFigures, previous: CallFigures) -> list[Block]:
    t, p = current.totals, previous.totals
    source = SOURCE_WORDS.get(current.source)
    counted = _(source) if source else escape(current.source)
    where = context_line(f"{current.caption()} · {counted}")
    if t.calls == 0 and p.calls == 0:
        none = MarkdownTextObject(text=_(":zzz: No calls in this period."))
        return [SectionBlock(text=none), where]
    headline = ngettext(
        "*{n} call* {change} · :white_check_mark: *{answered} answered ({rate})* {answered_change}",
        "*{n} calls* {change} · :white_check_mark: *{answered} answered ({rate})* "
        "{answered_change}",
        t.calls,
    ).format(
        n=number(t.calls),
        change=_change(t.calls, p.calls),
        answered=number(t.answered),
        rate=percent(t.answer_rate),
        answered_change=_change(t.answered, p.answered),
    )
    pairs = [
        (_(label), f"{number(getattr(t, key))} {_change(getattr(t, key), getattr(p, key))}")
        for label, key in _TOTAL_FIELDS
    ]
    pairs.append(
        (_("Talk time"), f"{duration(t.talk_seconds)} {_change(t.talk_seconds, p.talk_seconds)}")
    )
    fields = [MarkdownTextObject(text=f"*{k}*\n{v}") for k, v in pairs]
    return [SectionBlock(text=MarkdownTextObject(text=headline), fields=fields), where]


_TOTAL_FIELDS: tuple[tuple[str, str], ...] = (
    (N_("Busy"), "busy"),
    (N_("Line busy"), "line_busy"),
    (N_("No answer"), "no_answer"),
    (N_("Invalid"), "invalid"),
    (N_("Inbound"), "inbound"),
    (N_("Outbound"), "outbound"),
)
"""The digest's counted fields (each compared with the previous period), then talk time;
the labels are English, translated where they are shown."""


def _campaign_blocks(
    shown: Sequence[DialerFigures],
    counts: dict[str, Counts],
    period: DigestPeriod,
    at: datetime,
    *,
    chosen: bool,
) -> list[Block]:
    """The campaigns' calls over the digest's period (the same window as its totals),
    and what exists only now (agents, leads in progress), said to be now."""
    title = _("*Autodialer campaigns*")
    scope = _("Chosen campaigns") if chosen else _(ALL_DIALER)
    where = context_line(
        _("{scope} · agents and leads in progress: now, {now}").format(
            scope=caption(scope, period.window().label()),
            now=escape(at.strftime("%H:%M")),
        )
    )
    if not shown:
        if chosen:
            empty = _("*Autodialer campaigns*: none of the chosen campaigns has statistics.")
        else:
            empty = _("*Autodialer campaigns*: no activity.")
        return [DividerBlock(), section(empty), where]
    body = "\n\n".join(
        f"*{campaign_label(s.name, 100)}* {status_label(s.status)}\n"
        + period_line(counts.get(s.campaign_uuid, Counts()), s)
        for s in shown
    )
    return [
        DividerBlock(),
        section(f"{title}\n{body}"),
        where,
    ]


def period_line(calls: Counts, now: DialerFigures) -> str:
    """A campaign's calls in the period, then its agents and leads as they are now."""
    made = ngettext(
        ":phone: *{n} call* · answered *{answered}* ({rate})",
        ":phone: *{n} calls* · answered *{answered}* ({rate})",
        calls.calls,
    ).format(
        n=number(calls.calls), answered=number(calls.answered), rate=percent(calls.answer_rate)
    )
    agents = _(
        ":busts_in_silhouette: now {ready} ready · {in_call} in call of {agents} · "
        ":clipboard: {in_progress} leads in progress"
    ).format(
        ready=number(now.agents_ready),
        in_call=number(now.agents_in_call),
        agents=number(now.agents),
        in_progress=number(now.leads_in_progress),
    )
    return f"{made}\n{agents}"


def _agent_line(rank: int, a: AgentTime) -> str:
    return _("{rank}. {name} · talk *{talk}* · occupancy {occupancy}").format(
        rank=rank,
        name=clip(agent_name(a), 60),
        talk=duration(a.total_talk_sec),
        occupancy=percent(occupancy(a), 0),
    )


def _agents_caption(period: DigestPeriod, scope: Scope) -> ContextBlock:
    text = caption(_(WHOLE), period.window().label())
    if not scope.whole:
        text += " · " + _("agent time is kept per agent, not per campaign")
    return context_line(text)


def _agent_blocks(agents: Sequence[AgentTime], period: DigestPeriod, scope: Scope) -> list[Block]:
    active = [a for a in agents if worked(a)]
    where = _agents_caption(period, scope)
    if not active:
        return [
            DividerBlock(),
            section(_("*Agents*: nobody logged time.")),
            where,
        ]
    ranked = sorted(active, key=lambda a: (-a.total_talk_sec, a.username))
    top = ranked[:TOP_AGENTS]
    text = (
        _("*Top agents* (talk time)")
        + "\n"
        + "\n".join(_agent_line(i + 1, a) for i, a in enumerate(top))
    )
    blocks: list[Block] = [DividerBlock(), section(text)]
    if len(ranked) > TOP_AGENTS:
        bottom = ranked[-min(TOP_AGENTS, len(ranked) - TOP_AGENTS) :]
        start = len(ranked) - len(bottom) + 1
        least = (
            _("*Least talk time*")
            + "\n"
            + "\n".join(_agent_line(start + i, a) for i, a in enumerate(bottom))
        )
        blocks.append(section(least))
    blocks.append(where)
    return blocks


def _buttons(
    shown: Sequence[DialerFigures], period: DigestPeriod, digest_id: str | None
) -> ActionsBlock:
    elements = [
        ButtonElement(
            text=truncate(_("Open {name}").format(name=s.name or _("campaign")), 75),
            # Unique within the message: Slack refuses repeated action ids.
            action_id=f"{OPEN_CAMPAIGN}_{i}",
            value=s.campaign_uuid,
        )
        for i, s in enumerate(shown[:MAX_CAMPAIGN_BUTTONS])
    ]
    elements.append(
        ButtonElement(
            text=_("Full report"),
            action_id=FULL_REPORT_ACTION,
            value=full_report_value(period, digest_id),
        )
    )
    return ActionsBlock(elements=elements)


def _chart_spec(figures: CallFigures, period: DigestPeriod, filename: str) -> ChartSpec:
    """The digest's chart: answered and not answered calls per hour (or per day), with
    the busiest one said in words beside it."""
    window = figures.window
    interval = DigestPeriod(window.start, window.end, window.start, period.tz).interval
    buckets = figures.buckets(interval)
    # Translators: a day's bar under the chart, a strftime format: "Mon 23".
    labels = tuple(m.strftime("%H" if interval == "hour" else _("%a %d")) for m, _c in buckets)
    answered = tuple(float(c.answered) for _m, c in buckets)
    missed = tuple(float(c.calls - c.answered) for _m, c in buckets)
    # Plain words in the picture and the file's title: no arrows, no dashes.
    to = pgettext("a span of time in a chart's title: 08:00 to 12:00", "to")
    span = window.label().replace(" → ", f" {to} ").replace("–", "-")
    title = _(CHART_TITLES.get(interval, CHART_TITLES["day"])).format(
        scope=figures.scope.plain(), window=span
    )
    zone = zone_name(window.end)
    if interval == "hour":
        x_label = _("hour ({zone})").format(zone=zone)
    else:
        x_label = _("day ({zone})").format(zone=zone)
    calls = [a + m for a, m in zip(answered, missed, strict=True)]
    total = int(sum(calls))
    if total:
        busiest = max(range(len(calls)), key=lambda i: calls[i])
        if interval == "hour":
            words = ngettext(
                "{n} call, {answered} answered; the busiest hour was {label} ({most} calls).",
                "{n} calls, {answered} answered; the busiest hour was {label} ({most} calls).",
                total,
            )
        else:
            words = ngettext(
                "{n} call, {answered} answered; the busiest day was {label} ({most} calls).",
                "{n} calls, {answered} answered; the busiest day was {label} ({most} calls).",
                total,
            )
        summary = words.format(
            n=number(total),
            answered=number(int(sum(answered))),
            label=labels[busiest],
            most=number(int(calls[busiest])),
        )
    else:
        summary = _("No calls in this period.")
    return ChartSpec(
        kind="bar",
        title=title,
        labels=labels,
        series=(Series(_("answered"), answered), Series(_("not answered"), missed)),
        x_title=x_label,
        y_title=_("calls"),
        summary=summary,
        filename=filename,
        native_title=_(CHART_SHORT_TITLES.get(interval, CHART_SHORT_TITLES["day"])).format(
            scope=figures.scope.plain()
        ),
    )


# --- the full report (posted in the digest's thread on request) ----------------------


async def full_report(
    cc: CallCenter,
    period: DigestPeriod,
    campaigns: Sequence[str] = (),
    *,
    progress: Progress | None = None,
) -> Reply:
    """The whole breakdown behind a digest: every bucket of the period, and every agent,
    for the digest's own scope."""
    scope, figures, agents = await asyncio.gather(
        digest_scope(cc, campaigns),
        call_figures(cc, Scope.of(campaigns, {}), period.window(), progress=progress),
        _agents(cc, period.window()),
    )
    reply = stats_reply(replace(figures, scope=scope), period.interval)
    active = sorted((a for a in agents if worked(a)), key=lambda a: (-a.total_talk_sec, a.username))
    if active:
        lines = [_agent_line(i + 1, a) for i, a in enumerate(active)]
        chunk: list[str] = [_("*All agents* (talk time)")]
        for line in lines:
            if sum(len(x) + 1 for x in chunk) + len(line) > 2900:
                reply.blocks.append(section("\n".join(chunk)))
                chunk = []
            chunk.append(line)
        reply.blocks.append(section("\n".join(chunk)))
        reply.blocks.append(_agents_caption(period, scope))
    reply.ephemeral = False
    return reply


async def full_report_clicked(ctx: CommandContext, click: Click) -> Outcome:
    """Full report: posted once in the digest's thread (a second click is told it is
    there already); from an ephemeral preview, shown only to the person who asked."""
    digest_id, period = read_full_report_value(click.value, ctx.tz)
    digest = await off_loop(ctx.storage.digests.get, ctx.team_id, digest_id) if digest_id else None
    if digest is not None:  # its own clock, which may differ from the workspace's now
        period = read_full_report_value(click.value, ZoneInfo(digest.timezone))[1]
    channel, ts = ctx.channel_id, click.message_ts
    in_thread = channel is not None and ts is not None and not click.ephemeral
    if in_thread and not await off_loop(
        ctx.storage.dedup.mark_event, ctx.team_id, f"digest-full:{channel}:{ts}"
    ):
        return notice(_("The full report is already in this digest's thread."))
    campaigns = digest.campaigns if digest is not None else ()
    # In the digest's thread it is read by the channel: the digest's language, else the
    # workspace's; shown only to the person who asked, in theirs.
    language = digest.language if digest is not None else None
    readers = await channel_readers(ctx, channel, language) if in_thread else ctx.audience
    cc = ctx.client()

    async def report(progress: Progress | None = None) -> Reply:
        with use_audience(readers):
            reply = await full_report(cc, period, campaigns, progress=progress)
            if in_thread:
                reply.text = _("Full report, asked for by {user}: {report}").format(
                    user=f"<@{ctx.user_id}>", report=reply.text
                )
        return reply

    if in_thread and channel is not None and ts is not None:
        # A count that takes a while says so in the thread, then becomes the report.
        with use_audience(readers):
            shown = await shown_in_thread(ctx.messenger, channel, ts, report)
        if shown is None:
            return Nothing()
        return Post(channel, shown, thread_ts=ts, otherwise=replace(shown, ephemeral=True))
    reply = await report()
    reply.ephemeral = True
    return reply
