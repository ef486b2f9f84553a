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
from dataclasses import KW_ONLY, dataclass, replace
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    HeaderBlock,
    SectionBlock,
)

from commands.digests import anomalies
from commands.kernel.audiences import (
    LANGUAGE_OPTION,
    post_language,
    post_language_aside,
    post_language_note,
)
from commands.kernel.catalog import usage_of
from commands.kernel.channels import channel_for_posting, channel_readers
from commands.kernel.context import CommandContext
from commands.kernel.durations import is_duration, parse_minutes, recent_words
from commands.kernel.grammar import UsageError, check_keys, split_options, unescape_slack
from commands.kernel.i18n import N_, _, ngettext, use_audience
from commands.kernel.interactions import OPEN_CAMPAIGN, Click
from commands.kernel.matching import did_you_mean
from commands.kernel.reply import Outcome, Post, Reply, context_line, error, notice, section
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
    number,
    truncate,
    zone_name,
)
from commands.kernel.values import token
from commands.reports.figures import DialerFigures
from commands.reports.stats import MAX_WINDOW_MINUTES, MONITOR_WINDOW_MINUTES, dialer_line
from storage import Alert, Storage
from storage.offload import off_loop

SNOOZE_HOUR_ACTION = "alert_snooze_1h"
SNOOZE_TOMORROW_ACTION = "alert_snooze_tomorrow"


@dataclass(frozen=True)
class Metric:
    name: str
    label: str
    """In English (marked ``N_``): shown as ``_(label)``."""
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
            N_("dropped-call rate"),
            lambda s: s.dropped_rate,
            percent=True,
            needs_calls=True,
        ),
        Metric(
            "connection_rate",
            N_("connection rate"),
            lambda s: s.connection_rate,
            percent=True,
            needs_calls=True,
        ),
        Metric(
            "agents_ready",
            N_("agents ready"),
            lambda s: float(s.agents_ready),
            percent=False,
            needs_calls=False,
        ),
        Metric(
            "leads_in_progress",
            N_("leads in progress"),
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


@dataclass(frozen=True)
class Condition:
    metric: str
    op: str
    threshold: float


def parse_condition(tokens: list[str], usage: str) -> tuple[Condition, list[str]]:
    """``<metric> <op> <value>`` at the front of ``tokens`` (``>5`` and ``> 5`` alike)."""
    if not tokens:
        raise UsageError(_("Name a metric: {metrics}.").format(metrics=", ".join(METRICS)), usage)
    metric = _METRIC_WORDS.get(tokens[0].lower())
    if metric is None:
        raise UsageError(
            _("'{word}' is not a metric; use one of {metrics}.").format(
                word=tokens[0], metrics=", ".join(METRICS)
            )
            + did_you_mean(tokens[0], METRICS),
            usage,
        )
    rest = [unescape_slack(t) for t in tokens[1:]]
    if not rest:
        raise UsageError(_("Give an operator and a value, e.g. > 5."), usage)
    word = rest[0].lower()
    if word in _OP_WORDS:
        op, value_text, after = _OP_WORDS[word], (rest[1] if len(rest) > 1 else ""), rest[2:]
    else:
        match = _OP_VALUE.match(rest[0])
        if not match or not match.group(2):
            raise UsageError(
                _("'{word}' is not an operator; use >, >=, < or <=.").format(word=rest[0]), usage
            )
        op, value_text, after = _OP_WORDS[match.group(1)], match.group(2), rest[1:]
    if not _NUMBER.match(value_text.strip()):
        raise UsageError(
            _("'{value}' is not a number to compare with.").format(
                value=value_text or _("nothing")
            ),
            usage,
        )
    threshold = float(value_text.strip().rstrip("%"))
    if METRICS[metric].percent and not 0 <= threshold <= 100:
        raise UsageError(
            _("{metric} is a percentage; give a value from 0 to 100.").format(metric=metric), usage
        )
    return Condition(metric, op, threshold), [t for t in tokens[len(tokens) - len(after) :]]


def describe(alert: Alert) -> str:
    """``dropped-call rate > 5%`` (plain text, not escaped)."""
    if anomalies.is_anomaly(alert):
        return anomalies.describe(alert)
    metric = METRICS.get(alert.metric)
    unit = "%" if metric and metric.percent else ""
    label = _(metric.label) if metric else alert.metric
    return f"{label} {alert.op} {_fmt(alert.threshold)}{unit}"


def _fmt(value: float) -> str:
    """A figure as the rest of the post writes it: one decimal, the reader's separators
    (``5,6`` beside the digest's ``5,6%``)."""
    return number(round(value, 1))


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
    label = _(metric.label)
    headline = _(":rotating_light: *{metric} is {value}* on *{campaign}* (alert: {alert})").format(
        metric=escape(label.capitalize()),
        value=f"{_fmt(value)}{unit}",
        campaign=name,
        alert=escape(describe(alert)),
    )
    blocks: list[Block] = [
        section(headline),
        context_line(truncate(dialer_line(stats, tz), 3000)),
        context_line(f":calendar: {stats.caption()}"),
        ActionsBlock(
            elements=[
                ButtonElement(text=_("Snooze 1 h"), action_id=SNOOZE_HOUR_ACTION, value=alert.id),
                ButtonElement(
                    text=_("Snooze until tomorrow"),
                    action_id=SNOOZE_TOMORROW_ACTION,
                    value=alert.id,
                ),
                ButtonElement(
                    text=_("Open campaign"),
                    action_id=f"{OPEN_CAMPAIGN}_0",
                    value=stats.campaign_uuid,
                ),
            ]
        ),
        context_line(
            _("Alert {id} · told once until it recovers · {time}").format(
                id=code(alert.id), time=f"{clock(now, tz)} {zone_name(now.astimezone(tz))}"
            )
        ),
    ]
    text = _("{metric} {value} on {campaign}").format(
        metric=label, value=f"{_fmt(value)}{unit}", campaign=stats.name
    )
    return Reply(text=escape(text), blocks=blocks, ephemeral=False)


def recovered_message(alert: Alert, stats: DialerFigures, value: float) -> Reply:
    metric = METRICS[alert.metric]
    unit = "%" if metric.percent else ""
    label = _(metric.label)
    text = _(
        ":white_check_mark: Back to normal: {metric} is {value} on *{campaign}* "
        "(alert {id}: {alert}; {scope})."
    ).format(
        metric=escape(label),
        value=f"{_fmt(value)}{unit}",
        campaign=clip(stats.name, 100),
        id=code(alert.id),
        alert=escape(describe(alert)),
        scope=stats.caption(),
    )
    return Reply(
        text=escape(
            _("{metric} back to normal on {campaign}").format(metric=label, campaign=stats.name)
        ),
        blocks=[section(text)],
        ephemeral=False,
    )


# --- the commands ----------------------------------------------------------------------


async def add(ctx: CommandContext, args: list[str]) -> Outcome:
    usage = usage_of("alert add")
    storage = ctx.storage
    positional, options = split_options(args)
    opts = {k.lower(): v for k, v in options.items()}
    language = post_language(opts, usage)
    if not positional:
        raise UsageError(_("Name the channel the alert goes to."), usage)
    channel_token, words = positional[0], positional[1:]
    if words and anomalies.is_word(words[0]):
        check_keys(
            options, ("metric", LANGUAGE_OPTION), what=_("an option of alert add"), usage=usage
        )
        return await anomalies.add(ctx, storage, channel_token, words[1:], opts, language, usage)
    check_keys(options, ("window", LANGUAGE_OPTION), what=_("an option of alert add"), usage=usage)
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
            window_text, longest_minutes=MAX_WINDOW_MINUTES, name=_("The window"), usage=usage
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
                _("No campaign is named '{query}' or starts with it.").format(query=exc.query),
                usage,
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
        language=language,
    )
    await ctx.audit(
        "alert.add",
        {
            "alert": alert.id,
            "channel": channel,
            "metric": alert.metric,
            "op": alert.op,
            "threshold": alert.threshold,
            "campaign": campaign_uuid,
            "window_minutes": minutes,
            "language": language,
        },
    )
    scope = f"*{clip(campaign_name, 100)}*" if campaign_name else _("every running campaign")
    return notice(
        _(
            "Alert {id}: {channel} hears when the {alert} on {scope} (last {window}). "
            "Checked every minute; told once until it recovers."
        ).format(
            id=code(alert.id),
            channel=f"<#{channel}>" + post_language_aside(language),
            alert=escape(describe(alert)),
            scope=scope,
            window=escape(recent_words(minutes * 60)),
        ),
        emoji=":rotating_light:",
    )


def _alert_row(alert: Alert, storage: Storage, tz: ZoneInfo, now: float) -> SectionBlock:
    scope = clip(alert.campaign_name, 60) if alert.campaign_name else _("every running campaign")
    fired: Sequence[object] = storage.alerts.fired(alert.team_id, alert.id)
    if anomalies.is_anomaly(alert):
        if not alert.campaign_name:
            scope = _("every campaign and every mobile network")
        fired = storage.anomalies.open_of(alert.team_id, alert.id)
    if fired:
        state = _(":rotating_light: firing on {n}").format(n=len(fired))
    else:
        state = _(":white_check_mark: armed")
    if alert.snoozed_until and alert.snoozed_until > now:
        until = day_time(alert.snoozed_until, tz)
        state = _(":zzz: snoozed until {when}").format(when=until)
    text = _("{id} {state} · *{alert}* on {scope} (last {window}) → {channel}").format(
        id=code(alert.id),
        state=state,
        alert=escape(describe(alert)),
        scope=scope,
        window=escape(recent_words(alert.window_minutes * 60)),
        channel=f"<#{alert.channel}>",
    ) + post_language_note(alert.language)
    return section(text)


async def list_alerts(ctx: CommandContext, args: list[str]) -> Outcome:
    if args:
        raise UsageError(_("alert list takes no arguments."), usage_of("alert list"))
    storage = ctx.storage
    alerts = await off_loop(storage.alerts.list, ctx.team_id)
    if not alerts:
        return notice(
            _("No alerts yet. Add one with `/callops alert add #call-center dropped_rate > 5`."),
            emoji=":rotating_light:",
        )
    now = datetime.now(UTC).timestamp()
    blocks: list[Block] = [HeaderBlock(text=_("Alerts ({n})").format(n=len(alerts)))]
    blocks.extend(
        await off_loop(lambda: [_alert_row(a, storage, ctx.tz, now) for a in alerts[:45]])
    )
    blocks.append(context_line(_("{remove} deletes one").format(remove=code("alert remove <id>"))))
    count = ngettext("{n} alert", "{n} alerts", len(alerts)).format(n=number(len(alerts)))
    return Reply(text=count, blocks=blocks)


async def remove(ctx: CommandContext, args: list[str]) -> Outcome:
    usage = usage_of("alert remove")
    if len(args) != 1:
        raise UsageError(_("Give the alert's id (alert list shows them)."), usage)
    storage = ctx.storage
    alert = await off_loop(storage.alerts.get, ctx.team_id, args[0].strip().lower())
    if alert is None:
        raise UsageError(
            _("There is no alert '{id}' in this workspace.").format(id=args[0]), "alert list"
        )
    await off_loop(storage.alerts.remove, ctx.team_id, alert.id)
    await ctx.audit(
        "alert.remove",
        {"alert": alert.id, "metric": alert.metric, "channel": alert.channel},
    )
    return notice(_("Alert {id} removed.").format(id=code(alert.id)), emoji=":wastebasket:")


async def snooze_clicked(ctx: CommandContext, click: Click) -> Outcome:
    """Snooze on an alert: silent until then, and said in the alert's thread."""
    storage = ctx.storage
    alert = await off_loop(storage.alerts.get, ctx.team_id, token(click.value))
    if alert is None:
        return error(_("That alert was removed."))
    kind = "1h" if click.action_id == SNOOZE_HOUR_ACTION else "tomorrow"
    # The database's clock, the one the checks compare ``snoozed_until`` with.
    until = snooze_until(kind, datetime.fromtimestamp(storage.clock(), UTC), ctx.tz)
    await off_loop(storage.alerts.snooze, ctx.team_id, alert.id, until.timestamp())
    await ctx.audit(
        "alert.snooze",
        {"alert": alert.id, "until": until.isoformat(timespec="minutes")},
    )
    with use_audience(await channel_readers(ctx, alert.channel, alert.language)):
        text = _(
            ":zzz: {user} snoozed alert {id} until {when}. "
            "If it is still crossed then, it is told once more."
        ).format(
            user=f"<@{escape(ctx.user_id)}>",
            id=code(alert.id),
            when=f"{day_time(until, ctx.tz)} {zone_name(until.astimezone(ctx.tz))}",
        )
    note = Reply(text=text, blocks=[section(text)])
    channel = ctx.channel_id or alert.channel
    note.ephemeral = True
    return Post(channel, replace(note, ephemeral=False), thread_ts=click.message_ts, otherwise=note)
