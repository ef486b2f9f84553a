"""``alert add|list|remove``: tell a channel when an autodialer figure crosses a line.

    alert add #channel <metric> <op> <value> [campaign] [window]
    alert add #call-center dropped_rate > 5
    alert add #call-center agents_ready < 2 "Summer sale" 30m

Metrics are the autodialer figures of ``commands.reports.figures`` (the same numbers
``monitor``, the wallboard and the digests show) over the last ``window`` (default an
hour): ``dropped_rate`` and ``connection_rate`` in percent, ``agents_ready`` and
``leads_in_progress`` as counts, each of one campaign.  Without a campaign every running
autodialer campaign is watched, each on its own.  An alert fires once when its line is
crossed and again only after the figure came back (the scheduler keeps that state in
storage); Snooze silences it for an hour or until tomorrow, and re-arms it so a problem
still there afterwards is told once more.

Slack escapes ``<`` and ``>`` in slash command text (``&lt;``, ``&gt;``), so both forms,
and the words above/below, are read as operators.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)

from commands.campaigns.cards import OPEN_ACTION
from commands.kernel.catalog import usage_of
from commands.kernel.channels import channel_for_posting
from commands.kernel.context import CommandContext
from commands.kernel.durations import is_duration, parse_minutes, recent_words
from commands.kernel.grammar import UsageError, check_keys, split_options
from commands.kernel.interactions import Click, Interactions, OnClick
from commands.kernel.reply import Nothing, Outcome, Reply, error, notice
from commands.kernel.resolve import (
    CampaignNotFound,
    all_campaigns,
    pick_campaign,
)
from commands.kernel.text import (
    campaign_label,
    clip,
    clock,
    code,
    day_time,
    escape,
    plural,
    truncate,
    zone_name,
)
from commands.kernel.values import token
from commands.reports.figures import DialerFigures
from commands.reports.stats import MAX_WINDOW_MINUTES, MONITOR_WINDOW_MINUTES, dialer_line
from storage import Alert, Role, Storage
from storage import Outcome as Audit
from storage.offload import off_loop

SNOOZE_HOUR_ACTION = "alert_snooze_1h"
SNOOZE_TOMORROW_ACTION = "alert_snooze_tomorrow"


@dataclass(frozen=True)
class Metric:
    name: str
    label: str
    read: Callable[[DialerFigures], float | None]
    _: KW_ONLY
    percent: bool
    needs_calls: bool
    """A rate means nothing before the first call: such a campaign is not judged."""


METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        Metric(
            "dropped_rate",
            "dropped-call rate",
            lambda s: s.dropped_rate,
            percent=True,
            needs_calls=True,
        ),
        Metric(
            "connection_rate",
            "connection rate",
            lambda s: s.connection_rate,
            percent=True,
            needs_calls=True,
        ),
        Metric(
            "agents_ready",
            "agents ready",
            lambda s: float(s.agents_ready),
            percent=False,
            needs_calls=False,
        ),
        Metric(
            "leads_in_progress",
            "leads in progress",
            lambda s: float(s.leads_in_progress),
            percent=False,
            needs_calls=False,
        ),
    )
}
_METRIC_WORDS = {
    **{name: name for name in METRICS},
    "dropped": "dropped_rate",
    "drop_rate": "dropped_rate",
    "dropped_call_rate": "dropped_rate",
    "connection": "connection_rate",
    "connected": "connection_rate",
    "customer_connection_rate": "connection_rate",
    "ready": "agents_ready",
    "in_progress": "leads_in_progress",
}
OPS: dict[str, Callable[[float, float], bool]] = {
    ">": operator.gt,
    ">=": operator.ge,
    "<": operator.lt,
    "<=": operator.le,
}
_OP_WORDS = {
    ">": ">",
    ">=": ">=",
    "<": "<",
    "<=": "<=",
    "=>": ">=",
    "=<": "<=",
    "above": ">",
    "over": ">",
    "gt": ">",
    "ge": ">=",
    "below": "<",
    "under": "<",
    "lt": "<",
    "le": "<=",
}
_OP_VALUE = re.compile(r"^(>=|<=|=>|=<|>|<)\s*(.*)$")
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?%?$")


def _storage(ctx: CommandContext) -> Storage:
    if ctx.storage is None:
        raise UsageError("Alerts are not available here (no database).")
    return ctx.storage


def _unescape(token: str) -> str:
    return token.replace("&gt;", ">").replace("&lt;", "<").replace("&amp;", "&")


@dataclass(frozen=True)
class Condition:
    metric: str
    op: str
    threshold: float


def parse_condition(tokens: list[str], usage: str) -> tuple[Condition, list[str]]:
    """``<metric> <op> <value>`` at the front of ``tokens`` (``>5`` and ``> 5`` alike)."""
    if not tokens:
        raise UsageError(f"Name a metric: {', '.join(METRICS)}.", usage)
    metric = _METRIC_WORDS.get(tokens[0].lower())
    if metric is None:
        raise UsageError(f"'{tokens[0]}' is not a metric; use one of {', '.join(METRICS)}.", usage)
    rest = [_unescape(t) for t in tokens[1:]]
    if not rest:
        raise UsageError("Give an operator and a value, e.g. > 5.", usage)
    word = rest[0].lower()
    if word in _OP_WORDS:
        op, value_text, after = _OP_WORDS[word], (rest[1] if len(rest) > 1 else ""), rest[2:]
    else:
        match = _OP_VALUE.match(rest[0])
        if not match or not match.group(2):
            raise UsageError(f"'{rest[0]}' is not an operator; use >, >=, < or <=.", usage)
        op, value_text, after = _OP_WORDS[match.group(1)], match.group(2), rest[1:]
    if not _NUMBER.match(value_text.strip()):
        raise UsageError(f"'{value_text or 'nothing'}' is not a number to compare with.", usage)
    threshold = float(value_text.strip().rstrip("%"))
    if METRICS[metric].percent and not 0 <= threshold <= 100:
        raise UsageError(f"{metric} is a percentage; give a value from 0 to 100.", usage)
    return Condition(metric, op, threshold), [t for t in tokens[len(tokens) - len(after) :]]


def describe(alert: Alert) -> str:
    """``dropped-call rate > 5%`` (plain text, not escaped)."""
    metric = METRICS.get(alert.metric)
    unit = "%" if metric and metric.percent else ""
    label = metric.label if metric else alert.metric
    return f"{label} {alert.op} {_fmt(alert.threshold)}{unit}"


def _fmt(value: float) -> str:
    return f"{value:g}"


# --- evaluation ------------------------------------------------------------------------


def value_of(alert: Alert, stats: DialerFigures) -> float | None:
    """The figure ``alert`` watches, or None when there is nothing to judge yet."""
    metric = METRICS.get(alert.metric)
    if metric is None:
        return None
    if metric.needs_calls and stats.calls == 0:
        return None
    return metric.read(stats)


def is_crossed(alert: Alert, value: float) -> bool:
    return OPS[alert.op](value, alert.threshold)


def watched(alert: Alert, items: Sequence[DialerFigures]) -> list[DialerFigures]:
    """The campaigns ``alert`` looks at: its own, or every running one; a campaign that is
    not running is left alone (its figures are history, not news)."""
    running = [s for s in items if s.running]
    if alert.campaign_uuid:
        return [s for s in running if s.campaign_uuid == alert.campaign_uuid]
    return running


def snooze_until(kind: str, now: datetime, tz: ZoneInfo) -> datetime:
    """``1h``: an hour from now; ``tomorrow``: the start of the next local day."""
    if kind == "1h":
        return now + timedelta(hours=1)
    local = now.astimezone(tz)
    tomorrow = (local + timedelta(days=1)).date()
    return datetime(tomorrow.year, tomorrow.month, tomorrow.day, tzinfo=tz)


def fired_message(
    alert: Alert, stats: DialerFigures, value: float, tz: ZoneInfo, now: datetime
) -> Reply:
    metric = METRICS[alert.metric]
    unit = "%" if metric.percent else ""
    name = campaign_label(stats.name, 100)
    headline = (
        f":rotating_light: *{escape(metric.label.capitalize())} is {_fmt(round(value, 2))}{unit}* "
        f"on *{name}* (alert: {escape(describe(alert))})"
    )
    blocks: list[Block] = [
        SectionBlock(text=MarkdownTextObject(text=truncate(headline, 3000))),
        ContextBlock(elements=[MarkdownTextObject(text=truncate(dialer_line(stats, tz), 3000))]),
        ContextBlock(elements=[MarkdownTextObject(text=f":calendar: {stats.caption()}")]),
        ActionsBlock(
            elements=[
                ButtonElement(text="Snooze 1 h", action_id=SNOOZE_HOUR_ACTION, value=alert.id),
                ButtonElement(
                    text="Snooze until tomorrow", action_id=SNOOZE_TOMORROW_ACTION, value=alert.id
                ),
                ButtonElement(
                    text="Open campaign", action_id=f"{OPEN_ACTION}_0", value=stats.campaign_uuid
                ),
            ]
        ),
        ContextBlock(
            elements=[
                MarkdownTextObject(
                    text=f"Alert {code(alert.id)} · told once until it recovers · "
                    f"{clock(now, tz)} {zone_name(now.astimezone(tz))}"
                )
            ]
        ),
    ]
    text = f"{metric.label} {_fmt(round(value, 2))}{unit} on {stats.name}"
    return Reply(text=escape(text), blocks=blocks, ephemeral=False)


def recovered_message(alert: Alert, stats: DialerFigures, value: float) -> Reply:
    metric = METRICS[alert.metric]
    unit = "%" if metric.percent else ""
    text = (
        f":white_check_mark: Back to normal: {escape(metric.label)} is "
        f"{_fmt(round(value, 2))}{unit} on *{clip(stats.name, 100)}* "
        f"(alert {code(alert.id)}: {escape(describe(alert))}; {stats.caption()})."
    )
    return Reply(
        text=escape(f"{metric.label} back to normal on {stats.name}"),
        blocks=[SectionBlock(text=MarkdownTextObject(text=truncate(text, 3000)))],
        ephemeral=False,
    )


# --- the commands ----------------------------------------------------------------------


async def add(ctx: CommandContext, args: list[str]) -> Outcome:
    usage = usage_of("alert add")
    storage = _storage(ctx)
    positional, options = split_options(args)
    check_keys(options, ("window",), what="an option of alert add", usage=usage)
    opts = {k.lower(): v for k, v in options.items()}
    if not positional:
        raise UsageError("Name the channel the alert goes to.", usage)
    channel_token, words = positional[0], positional[1:]
    condition, rest = parse_condition(words, usage)
    window_text = opts.get("window")
    campaign_words: list[str] = []
    for word in rest:
        if window_text is None and is_duration(word):
            window_text = word
        else:
            campaign_words.append(word)
    minutes = MONITOR_WINDOW_MINUTES
    if window_text is not None:
        minutes = parse_minutes(
            window_text, longest_minutes=MAX_WINDOW_MINUTES, name="The window", usage=usage
        )
    channel = await channel_for_posting(ctx, channel_token, usage)
    campaign_uuid = campaign_name = None
    if campaign_words:
        # One campaign, its name quoted or not; several that fit (or a typo) are offered
        # as buttons by the dispatcher.
        try:
            campaign = pick_campaign(await all_campaigns(ctx.client()), " ".join(campaign_words))
        except CampaignNotFound as exc:
            raise UsageError(
                f"No campaign is named '{exc.query}' or starts with it.", usage
            ) from exc
        campaign_uuid, campaign_name = campaign.campaign_uuid, campaign.campaign_name
    alert = await off_loop(
        storage.alerts.add,
        ctx.team_id,
        channel=channel,
        metric=condition.metric,
        op=condition.op,
        threshold=condition.threshold,
        window_minutes=minutes,
        created_by=ctx.user_id,
        campaign_uuid=campaign_uuid,
        campaign_name=campaign_name,
    )
    await off_loop(
        storage.audit.append,
        ctx.team_id,
        ctx.user_id,
        "alert.add",
        {
            "alert": alert.id,
            "channel": channel,
            "metric": alert.metric,
            "op": alert.op,
            "threshold": alert.threshold,
            "campaign": campaign_uuid,
            "window_minutes": minutes,
        },
        outcome=Audit.OK,
    )
    scope = f"*{clip(campaign_name, 100)}*" if campaign_name else "every running campaign"
    return notice(
        f"Alert {code(alert.id)}: <#{channel}> hears when the {escape(describe(alert))} on "
        f"{scope} (last {escape(recent_words(minutes * 60))}). Checked every minute; told once "
        "until it recovers.",
        emoji=":rotating_light:",
    )


def _alert_row(alert: Alert, storage: Storage, tz: ZoneInfo, now: float) -> SectionBlock:
    scope = clip(alert.campaign_name, 60) if alert.campaign_name else "every running campaign"
    fired = storage.alerts.fired(alert.team_id, alert.id)
    state = f":rotating_light: firing on {len(fired)}" if fired else ":white_check_mark: armed"
    if alert.snoozed_until and alert.snoozed_until > now:
        until = day_time(alert.snoozed_until, tz)
        state = f":zzz: snoozed until {until}"
    text = (
        f"{code(alert.id)} {state} · *{escape(describe(alert))}* on {scope} "
        f"(last {escape(recent_words(alert.window_minutes * 60))}) → <#{alert.channel}>"
    )
    return SectionBlock(text=MarkdownTextObject(text=truncate(text, 3000)))


async def list_alerts(ctx: CommandContext, args: list[str]) -> Outcome:
    if args:
        raise UsageError("alert list takes no arguments.", usage_of("alert list"))
    storage = _storage(ctx)
    alerts = await off_loop(storage.alerts.list, ctx.team_id)
    if not alerts:
        return notice(
            "No alerts yet. Add one with `/callops alert add #call-center dropped_rate > 5`.",
            emoji=":rotating_light:",
        )
    now = datetime.now(UTC).timestamp()
    blocks: list[Block] = [HeaderBlock(text=f"Alerts ({len(alerts)})")]
    blocks.extend(
        await off_loop(lambda: [_alert_row(a, storage, ctx.tz, now) for a in alerts[:45]])
    )
    blocks.append(
        ContextBlock(elements=[MarkdownTextObject(text=f"{code('alert remove <id>')} deletes one")])
    )
    return Reply(text=plural(len(alerts), "alert"), blocks=blocks)


async def remove(ctx: CommandContext, args: list[str]) -> Outcome:
    usage = usage_of("alert remove")
    if len(args) != 1:
        raise UsageError("Give the alert's id (alert list shows them).", usage)
    storage = _storage(ctx)
    alert = await off_loop(storage.alerts.get, ctx.team_id, args[0].strip().lower())
    if alert is None:
        raise UsageError(f"There is no alert '{args[0]}' in this workspace.", "alert list")
    await off_loop(storage.alerts.remove, ctx.team_id, alert.id)
    await off_loop(
        storage.audit.append,
        ctx.team_id,
        ctx.user_id,
        "alert.remove",
        {"alert": alert.id, "metric": alert.metric, "channel": alert.channel},
        outcome=Audit.OK,
    )
    return notice(f"Alert {code(alert.id)} removed.", emoji=":wastebasket:")


HANDLERS = {"alert add": add, "alert list": list_alerts, "alert remove": remove}


async def snooze_clicked(ctx: CommandContext, click: Click) -> Outcome:
    """Snooze on an alert: silent until then, and said in the alert's thread."""
    storage = _store(ctx)
    alert = await off_loop(storage.alerts.get, ctx.team_id, token(click.value))
    if alert is None:
        return error("That alert was removed.")
    kind = "1h" if click.action_id == SNOOZE_HOUR_ACTION else "tomorrow"
    until = snooze_until(kind, datetime.now(UTC), ctx.tz)
    await off_loop(storage.alerts.snooze, ctx.team_id, alert.id, until.timestamp())
    await off_loop(
        storage.audit.append,
        ctx.team_id,
        ctx.user_id,
        "alert.snooze",
        {"alert": alert.id, "until": until.isoformat(timespec="minutes")},
        outcome=Audit.OK,
    )
    text = (
        f":zzz: <@{escape(ctx.user_id)}> snoozed alert {code(alert.id)} until "
        f"{day_time(until, ctx.tz)} {zone_name(until.astimezone(ctx.tz))}. "
        "If it is still crossed then, it is told once more."
    )
    note = Reply(text=text, blocks=[SectionBlock(text=MarkdownTextObject(text=text))])
    note.ephemeral = False
    channel = ctx.channel_id or alert.channel
    if ctx.messenger is not None and await ctx.messenger.post(
        channel, note, thread_ts=click.message_ts
    ):
        return Nothing()
    note.ephemeral = True
    return note


def _store(ctx: CommandContext) -> Storage:
    if ctx.storage is None:
        raise RuntimeError("alerts need the app's database")
    return ctx.storage


INTERACTIONS = Interactions(
    clicks=(
        OnClick(SNOOZE_HOUR_ACTION, snooze_clicked, role=Role.OPERATOR),
        OnClick(SNOOZE_TOMORROW_ACTION, snooze_clicked, role=Role.OPERATOR),
    )
)
