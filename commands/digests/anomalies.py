"""Anomaly alerts: tell a channel when a KPI leaves its usual band for a campaign or a
mobile network.

    alert add #call-center anomaly                      answer rate, every campaign and network
    alert add #call-center anomaly "Summer sale" metric=asr

A threshold alert (``commands.digests.alerts``) compares a figure with a number someone
chose; an anomaly alert compares this hour's KPI (``commands.reports.kpis``) with what
it usually is at this hour of this weekday (``commands.reports.usual``: a robust band
learned from the last four weeks).  It is an ``Alert`` row whose ``op`` is ``anomaly``
and whose ``metric`` is the KPI, one row per campaign named (none: every campaign and
every mobile network), so ``alert list``, ``alert remove`` and the Snooze buttons work on
it as on any alert.

When is a KPI out of its band?  This hour so far must have ``MIN_HOUR_CALLS`` calls in
the KPI's denominator, the value must be outside the band, and the distance from the
usual value must exceed ``SIGMAS`` times this hour's own sampling error (a binomial
error for a rate, ``DURATION_SPREAD`` usual values over the root of the calls for an
average of durations): the band is learned from whole hours, and the
first forty calls of an hour wander more than a whole hour does.  An episode then lasts
until the value is back in the band, or within one sampling error of it; in between it
neither opens nor closes one, so an alert does not flap at the band's edge.

The check itself (once a minute, one process) is ``anomaly_watch``, the family's job;
this module parses the command, judges the figures and writes the posts.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import ActionsBlock, Block, ButtonElement

from callcenter.models import Cdr
from commands.digests.snooze_ids import SNOOZE_HOUR_ACTION, SNOOZE_TOMORROW_ACTION
from commands.kernel.audiences import post_language_aside
from commands.kernel.channels import channel_for_posting
from commands.kernel.context import CommandContext
from commands.kernel.formats import locale_of, number
from commands.kernel.grammar import UsageError
from commands.kernel.i18n import N_, _, current_language, ngettext
from commands.kernel.matching import did_you_mean, fold
from commands.kernel.networks import network_of
from commands.kernel.reply import Outcome, Reply, context_line, notice, section
from commands.kernel.resolve import CampaignNotFound, all_campaigns, campaign_queries, pick_campaign
from commands.kernel.text import clip, clock, code, day_time, escape, zone_name
from commands.reports.chart_spec import Band, ChartSpec, Series
from commands.reports.kpis import KPIS, NETWORK_NOTE, KpiCounter, KpiCounts
from commands.reports.tally import LocalHours
from commands.reports.usual import (
    USUAL_KPIS,
    USUAL_WEEKS,
    Scope,
    UsualBand,
    UsualLevels,
    campaign_scope,
    is_outside,
    network_scope,
)
from storage import Alert, Storage
from storage.anomalies import Episode
from storage.offload import off_loop

ANOMALY = "anomaly"
"""The ``op`` of an anomaly alert's row."""
WORDS = frozenset({"anomaly", "anomalies", "bat thuong", "batthuong"})
"""The command's word, folded (``bat-thuong``, ``bất thường`` and ``anomaly`` alike)."""
DEFAULT_KPI = "answer_rate"
ANOMALY_KPIS = ("answer_rate", "asr", "acd", "aht", "abandonment", "service_level", "asa")
"""The KPIs with a usual band that mean something for part of an hour (not the volumes:
an hour's first minutes always have fewer calls than a whole hour)."""
_KPI_WORDS = {
    **{k: k for k in ANOMALY_KPIS},
    "answer": "answer_rate",
    "answered": "answer_rate",
    "answer-rate": "answer_rate",
    "ty-le-nghe-may": "answer_rate",
    "abandon": "abandonment",
    "abandoned": "abandonment",
    "sl": "service_level",
    "service-level": "service_level",
}
MIN_HOUR_CALLS = 30
"""Calls of this hour in the KPI's denominator before it is judged at all."""
SIGMAS = 4.0
"""How many sampling errors of this hour the value must be from the usual one.  Four,
not the textbook three: the check reads every campaign and network of every hour, a few
hundred readings a week, and at three one of them would cry wolf about once a week."""
DURATION_SPREAD = 1.5
"""Call durations are skewed (many short calls, a few long ones): their standard
deviation is about one and a half times their mean, which sets how far an average of a
few dozen wanders by chance.  Call records give sums, not spreads, so it is assumed."""
QUIET = timedelta(hours=2)
"""An episode whose scope has had too few calls to judge for this long (the campaign
stopped, the night came) is closed as quiet rather than left open with an old figure."""
SLOT_FORMAT = "%Y-%m-%dT%H:%MZ"
"""A check's minute, in UTC: sorts as it runs."""
KPI_NAMES = {k.key: k.name for k in KPIS}


def slot_key(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime(SLOT_FORMAT)


def slot_time(slot: str) -> datetime:
    return datetime.strptime(slot, SLOT_FORMAT).replace(tzinfo=UTC)


def is_word(word: str) -> bool:
    """Whether ``word`` asks for an anomaly alert (``alert add #c anomaly``)."""
    return fold(word) in WORDS


def is_anomaly(alert: Alert) -> bool:
    return alert.op == ANOMALY


def kpi_label(key: str) -> str:
    """The KPI's name in the reader's language (``Answer rate``)."""
    name = KPI_NAMES.get(key)
    return _(name) if name else key


def _in_sentence(name: str) -> str:
    """A KPI's name inside a sentence: its first letter small, its acronym kept
    (``answer-seizure ratio (ASR)``, ``tỷ lệ nghe máy``)."""
    return name[:1].lower() + name[1:]


def describe(alert: Alert) -> str:
    """``anomaly of Answer rate`` (plain text, not escaped)."""
    return _("anomaly of {kpi}").format(kpi=kpi_label(alert.metric))


# --- the command -------------------------------------------------------------------------


async def add(
    ctx: CommandContext,
    storage: Storage,
    channel_token: str,
    words: Sequence[str],
    options: Mapping[str, str],
    language: str | None,
    usage: str,
) -> Outcome:
    """``alert add #channel anomaly [campaign ...] [metric=...]``."""
    metric_word = options.get("metric", DEFAULT_KPI)
    kpi = _KPI_WORDS.get(fold(metric_word).replace(" ", "-")) or _KPI_WORDS.get(
        metric_word.strip().lower()
    )
    if kpi is None:
        raise UsageError(
            _("'{word}' is not a KPI with a usual band; use one of {kpis}.").format(
                word=metric_word, kpis=", ".join(ANOMALY_KPIS)
            )
            + did_you_mean(metric_word, ANOMALY_KPIS),
            usage,
        )
    channel = await channel_for_posting(ctx, channel_token, usage)
    picked: list[tuple[str, str]] = []
    if words:
        campaigns = await all_campaigns(ctx.client())
        for query in campaign_queries(list(words), campaigns):
            try:
                found = pick_campaign(campaigns, query)
            except CampaignNotFound as exc:
                raise UsageError(
                    _("No campaign is named '{query}' or starts with it.").format(query=exc.query),
                    usage,
                ) from exc
            if found.campaign_uuid not in {uuid for uuid, _name in picked}:
                picked.append((found.campaign_uuid, found.campaign_name))
    targets: list[tuple[str | None, str | None]] = list(picked) or [(None, None)]
    made: list[Alert] = []
    for uuid, name in targets:
        alert = await off_loop(
            storage.alerts.add,
            ctx.team_id,
            channel=channel,
            metric=kpi,
            op=ANOMALY,
            threshold=0.0,
            window_minutes=60,
            created_by=ctx.user_id,
            campaign_uuid=uuid,
            campaign_name=name,
            language=language,
        )
        made.append(alert)
        await ctx.audit(
            "alert.add",
            {
                "alert": alert.id,
                "channel": channel,
                "metric": kpi,
                "op": ANOMALY,
                "campaign": uuid,
                "language": language,
            },
        )
    if picked:
        scope = ", ".join(f"*{clip(name, 100)}*" for _uuid, name in picked)
    else:
        scope = _("every campaign and every mobile network")
    ids = ", ".join(code(a.id) for a in made)
    return notice(
        ngettext(
            "Anomaly alert {ids}: {channel} hears when the {kpi} of {scope} leaves its usual "
            "band for this hour of the week (learned from the last {weeks} weeks). Checked "
            "every minute; one post per episode, updated until it recovers.",
            "Anomaly alerts {ids}: {channel} hears when the {kpi} of {scope} leaves its "
            "usual band for this hour of the week (learned from the last {weeks} weeks). "
            "Checked every minute; one post per episode, updated until it recovers.",
            len(made),
        ).format(
            ids=ids,
            channel=f"<#{channel}>" + post_language_aside(language),
            kpi=escape(_in_sentence(kpi_label(kpi))),
            scope=scope,
            weeks=USUAL_WEEKS,
        ),
        emoji=":chart_with_downwards_trend:",
    )


# --- judging -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """One KPI of one scope this hour, against its usual band."""

    scope: Scope
    name: str
    """The campaign's name or the network's."""
    kpi: str
    value: float
    band: UsualBand
    calls: int
    """Calls in the KPI's denominator this hour so far."""

    @property
    def outside(self) -> bool:
        """Out of the band by more than this hour's sampling error: an anomaly."""
        return is_outside(self.band, self.value) and abs(self.value - self.band.value) > (
            SIGMAS * sampling_error(self.kpi, self.band.value, self.calls)
        )

    @property
    def inside(self) -> bool:
        """Back in the band, or out of it by no more than this hour's sampling error:
        an episode ends."""
        gap = max(self.band.low - self.value, self.value - self.band.high, 0.0)
        return gap <= sampling_error(self.kpi, self.band.value, self.calls)


def sampling_error(kpi: str, usual: float, calls: int) -> float:
    """How much this hour's value wanders around the usual one by chance alone, with
    ``calls`` in its denominator: binomial for a rate, ``DURATION_SPREAD`` times the
    usual value over the root of the calls for an average of durations."""
    if calls <= 0:
        return math.inf
    definition = USUAL_KPIS[kpi]
    if definition.unit == "percent":
        share = min(0.98, max(0.02, usual / 100.0))
        return 100.0 * math.sqrt(share * (1.0 - share) / calls)
    return DURATION_SPREAD * abs(usual) / math.sqrt(calls)


def read_scopes(
    kpi: str,
    counts: Mapping[Scope, KpiCounts],
    names: Mapping[Scope, str],
    levels: UsualLevels,
    weekday: int,
    hour: int,
) -> list[Reading]:
    """The readings of ``kpi`` for each scope with enough calls this hour and a band."""
    definition = USUAL_KPIS[kpi]
    found: list[Reading] = []
    for scope, figures in sorted(counts.items()):
        calls = definition.denominator(figures)
        value = definition.value(figures)
        if calls < MIN_HOUR_CALLS or value is None:
            continue
        band = levels.band(scope, kpi, weekday, hour)
        if band is None:
            continue
        found.append(Reading(scope, names.get(scope, scope.key), kpi, value, band, calls))
    return found


def scopes_of(
    alert: Alert,
    campaigns: Mapping[str, KpiCounts],
    networks: Mapping[str, KpiCounts],
) -> dict[Scope, KpiCounts]:
    """What ``alert`` watches, with this hour's counts: its campaign, or every campaign
    and every named mobile network."""
    if alert.campaign_uuid:
        found = campaigns.get(alert.campaign_uuid)
        return {campaign_scope(alert.campaign_uuid): found} if found is not None else {}
    scopes: dict[Scope, KpiCounts] = {campaign_scope(k): v for k, v in campaigns.items() if k}
    scopes.update({network_scope(k): v for k, v in networks.items() if k})
    return scopes


# --- the posts -------------------------------------------------------------------------------


def _unit(kpi: str) -> str:
    return USUAL_KPIS[kpi].unit


def figure(kpi: str, value: float) -> str:
    """``48.2%`` or ``1m 05s``-like seconds, in the reader's separators."""
    if _unit(kpi) == "percent":
        return f"{number(round(value, 1))}%"
    return _("{seconds} s").format(seconds=number(round(value)))


def distance(kpi: str, value: float, band: UsualBand) -> str:
    """How far ``value`` is from the band: ``31.5 points below``, ``40 s above``."""
    below = value < band.low
    gap = band.low - value if below else value - band.high
    if _unit(kpi) == "percent":
        amount = ngettext("{n} point", "{n} points", max(1, round(gap))).format(
            n=number(round(gap, 1))
        )
    else:
        amount = _("{seconds} s").format(seconds=number(round(gap)))
    if below:
        return _("{amount} below its usual band").format(amount=amount)
    return _("{amount} above its usual band").format(amount=amount)


def weekday_name(weekday: int) -> str:
    """``Monday`` / ``thứ Hai`` (Babel's names, the review's capitals)."""
    wide = locale_of(current_language()).days["format"]["wide"]
    name = str(wide[weekday])
    return name.replace("Chủ Nhật", "Chủ nhật").replace("Thứ", "thứ")


def scope_words(episode: Episode) -> str:
    """``*Viettel* (mobile network)`` or ``*Summer sale* (campaign)``, escaped mrkdwn."""
    name = f"*{clip(episode.scope_name, 100)}*"
    if episode.scope_kind == "network":
        return _("{name} (mobile network)").format(name=name)
    return _("{name} (campaign)").format(name=name)


def episode_reply(
    alert: Alert, episode: Episode, tz: ZoneInfo, now: datetime, hour: datetime
) -> Reply:
    """The episode's post while it lasts: which KPI, where, value against the band,
    how far, since when, with the Snooze buttons."""
    kpi = episode.kpi
    band = UsualBand(episode.usual, episode.low, episode.high, 0, 0)
    since = datetime.fromtimestamp(episode.opened_at, tz)
    headline = _(
        ":chart_with_downwards_trend: *{kpi}* of {scope} is *{value}*, {distance} "
        "({low}–{high}, usually {usual})."
    ).format(
        kpi=escape(kpi_label(kpi)),
        scope=scope_words(episode),
        value=figure(kpi, episode.value),
        distance=distance(kpi, episode.value, band),
        low=figure(kpi, episode.low),
        high=figure(kpi, episode.high),
        usual=figure(kpi, episode.usual),
    )
    detail = _(
        "Since {since} · {calls} this hour · usual band of {weekday} {hour}:00–{next}:00, "
        "from the last {weeks} weeks"
    ).format(
        since=f"{clock(since, tz)} {zone_name(since)}",
        calls=ngettext("{n} call", "{n} calls", episode.calls).format(n=number(episode.calls)),
        weekday=weekday_name(hour.weekday()),
        hour=f"{hour.hour:02d}",
        next=f"{(hour + timedelta(hours=1)).hour:02d}",
        weeks=USUAL_WEEKS,
    )
    blocks: list[Block] = [section(headline), context_line(detail)]
    if episode.scope_kind == "network":
        blocks.append(context_line(":information_source: " + escape(_(NETWORK_NOTE))))
    blocks.append(
        ActionsBlock(
            elements=[
                ButtonElement(text=_("Snooze 1 h"), action_id=SNOOZE_HOUR_ACTION, value=alert.id),
                ButtonElement(
                    text=_("Snooze until tomorrow"),
                    action_id=SNOOZE_TOMORROW_ACTION,
                    value=alert.id,
                ),
            ]
        )
    )
    blocks.append(
        context_line(
            _(
                "Anomaly alert {id} · one post per episode, updated until it recovers · {time}"
            ).format(id=code(alert.id), time=f"{clock(now, tz)} {zone_name(now.astimezone(tz))}")
        )
    )
    text = _("{kpi} of {scope} is {value}, outside its usual band").format(
        kpi=kpi_label(kpi), scope=episode.scope_name, value=figure(kpi, episode.value)
    )
    return Reply(text=escape(text), blocks=blocks, ephemeral=False)


def closed_reply(alert: Alert, episode: Episode, tz: ZoneInfo, now: datetime) -> Reply:
    """The episode's post once it ended: recovered (for how long it lasted), snoozed,
    or gone quiet (too few calls to judge it for ``QUIET``)."""
    kpi = episode.kpi
    since = datetime.fromtimestamp(episode.opened_at, tz)
    lasted = max(0, round((now.timestamp() - episode.opened_at) / 60))
    checked = slot_time(episode.checked_slot).astimezone(tz)
    if episode.closed_how == "snoozed":
        head = _(
            ":zzz: *{kpi}* of {scope} was out of its usual band from {since}; the alert was "
            "snoozed. If it is still out when the snooze ends, a new post tells it."
        )
    elif episode.closed_how == "quiet":
        head = _(
            ":grey_question: *{kpi}* of {scope} was out of its usual band from {since}, "
            "last *{value}* at {checked}; there have not been enough calls to judge it "
            "since, so this episode is closed. A new post tells it if it is still out "
            "once the calls come back."
        )
    else:
        head = _(
            ":white_check_mark: Recovered: *{kpi}* of {scope} is *{value}*, back in its "
            "usual band ({low}–{high}). Out of it from {since}, for {minutes}."
        )
    text = head.format(
        kpi=escape(kpi_label(kpi)),
        scope=scope_words(episode),
        value=figure(kpi, episode.value),
        low=figure(kpi, episode.low),
        high=figure(kpi, episode.high),
        since=f"{clock(since, tz)} {zone_name(since)}",
        minutes=ngettext("{n} minute", "{n} minutes", lasted).format(n=number(lasted)),
        checked=f"{day_time(checked, tz)} {zone_name(checked)}",
    )
    blocks: list[Block] = [
        section(text),
        context_line(_("Anomaly alert {id} · episode closed").format(id=code(alert.id))),
    ]
    plain = _("{kpi} of {scope}: episode closed").format(
        kpi=kpi_label(kpi), scope=episode.scope_name
    )
    return Reply(text=escape(plain), blocks=blocks, ephemeral=False)


def recovered_note(episode: Episode) -> Reply:
    """The short reply in the episode's thread when it recovers."""
    text = _(":white_check_mark: Back to normal: {kpi} of {scope} is {value}.").format(
        kpi=escape(kpi_label(episode.kpi)),
        scope=scope_words(episode),
        value=figure(episode.kpi, episode.value),
    )
    return Reply(text=text, blocks=[section(text)], ephemeral=False)


CHART_TITLE = N_("{kpi} of {scope} today, against its usual band")


def chart_title(episode: Episode) -> str:
    """The chart's title and alt text (plain text)."""
    return _(CHART_TITLE).format(kpi=kpi_label(episode.kpi), scope=episode.scope_name)


class ScopeHours:
    """A ``PageFold`` of today's records into counters per scope and local hour, for the
    chart of one episode (campaigns and named networks; never the records)."""

    def __init__(self, tz: ZoneInfo) -> None:
        self._hour = LocalHours(tz)
        self._counters: dict[tuple[Scope, int], KpiCounter] = {}

    def add_page(self, records: Sequence[Cdr]) -> None:
        for record in records:
            hour = self._hour(record.time_started)
            if hour is None:
                continue
            if record.campaign_uuid:
                self._count(campaign_scope(record.campaign_uuid), hour.hour, record)
            inbound = str(record.direction).strip().lower() == "inbound"
            customer = record.from_number if inbound else record.to_number
            network = network_of(customer) if customer else ""
            if network:
                self._count(network_scope(network), hour.hour, record)

    def _count(self, scope: Scope, hour: int, record: Cdr) -> None:
        counter = self._counters.get((scope, hour))
        if counter is None:
            counter = self._counters[(scope, hour)] = KpiCounter()
        counter.add_record(record)

    def of(self, scope: Scope) -> dict[int, KpiCounts]:
        return {h: c.counts() for (s, h), c in self._counters.items() if s == scope}


def chart_spec(
    episode: Episode,
    hours: Mapping[int, KpiCounts],
    levels: UsualLevels,
    weekday: int,
    now_hour: int,
) -> ChartSpec | None:
    """The episode's chart: today's hours of its KPI (those with enough calls and a
    band, up to now) against the usual band; None when no hour has both."""
    kpi = episode.kpi
    definition = USUAL_KPIS[kpi]
    scope = Scope("network" if episode.scope_kind == "network" else "campaign", episode.scope_key)
    labels: list[str] = []
    values: list[float] = []
    lows: list[float] = []
    highs: list[float] = []
    for hour in range(now_hour + 1):
        band = levels.band(scope, kpi, weekday, hour)
        counts = hours.get(hour)
        if band is None or counts is None or definition.denominator(counts) < MIN_HOUR_CALLS:
            continue
        value = definition.value(counts)
        if value is None:
            continue
        labels.append(f"{hour:02d}:00")
        values.append(round(value, 1))
        lows.append(round(band.low, 1))
        highs.append(round(band.high, 1))
    if not labels:
        return None
    name = kpi_label(kpi)
    unit = "%" if definition.unit == "percent" else _("seconds")
    return ChartSpec(
        kind="line",
        title=chart_title(episode),
        labels=tuple(labels),
        series=(Series(_("today"), tuple(values)),),
        band=Band(tuple(lows), tuple(highs), _("usual band")),
        x_title=_("hour"),
        y_title=f"{name} ({unit})",
        filename=f"anomaly-{episode.id}.png",
        additive=False,
        native_title=clip_plain(name, 50),
    )


def clip_plain(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters (plain text: a chart's title)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
