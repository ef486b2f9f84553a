"""The insights in a few lines: a digest's ``insights`` section and the Home tab's tile."""

from __future__ import annotations

from slack_sdk.models.blocks import Block, DividerBlock, MarkdownTextObject, SectionBlock

from commands.kernel.i18n import _
from commands.kernel.reply import context_line, labelled, section
from commands.kernel.text import escape, percent, truncate
from commands.reports.insights.model import Insights
from commands.reports.insights.words import (
    KPI_NAMES,
    band_words,
    best_words,
    hour_label,
    scope_words,
    show,
    staffing_words,
    weekday_word,
)
from commands.reports.usual import widths_outside

DAY_KPIS = ("answer_rate", "asr", "acd", "aht", "service_level", "abandonment", "asa")
"""The KPIs of the day a digest or the Home tab shows, when the day has them."""


def kpi_pairs(ins: Insights) -> list[tuple[str, str]]:
    """The day's KPIs (label, value) that have a value, in ``DAY_KPIS``' order."""
    days = {line.key: line.day_value for line in ins.lines}
    return [
        (_(KPI_NAMES[key]), show(key, days[key])) for key in DAY_KPIS if days.get(key) is not None
    ]


def summary_lines(ins: Insights) -> list[str]:
    """The same, in a few lines (mrkdwn), for a digest's section and the Home tab."""
    lines = []
    if not ins.usual_known:
        lines.append(
            _(
                ":hourglass: The usual levels are not learned yet today: `/callops insights` "
                "learns them from the four weeks before, then they show here."
            )
        )
    outside = [
        line
        for line in ins.lines
        if line.hour_band is not None
        and line.hour_value is not None
        and widths_outside(line.hour_band, line.hour_value) != 0
    ]
    if ins.hour is None:
        lines.append(_(":zzz: No calls that day yet."))
    elif outside:
        lines.append(
            _(":warning: Outside the usual at {hour}: {kpis}").format(
                hour=hour_label(ins.hour),
                kpis="; ".join(
                    f"{_(KPI_NAMES[line.key])} {show(line.key, line.hour_value)} "
                    f"({band_words(line.key, line.hour_band, None)})"
                    for line in outside
                ),
            )
        )
    else:
        lines.append(
            _(":white_check_mark: At {hour} every KPI with a usual level is within it.").format(
                hour=hour_label(ins.hour)
            )
        )
    best = best_words(ins)
    if best:
        lines.append(_(":alarm_clock: Best hours to call: {hours}").format(hours=best))
    if ins.networks:
        lines.append(
            _(":signal_strength: Below their usual answer rate: {networks}").format(
                networks=", ".join(
                    _("{name} {value} (usual {usual})").format(
                        name=escape(n.name), value=percent(n.value), usual=percent(n.band.value)
                    )
                    for n in ins.networks
                )
            )
        )
    if ins.staffing is not None:
        lines.append(":busts_in_silhouette: " + staffing_words(ins.staffing))
    return lines


def insights_blocks(ins: Insights | str | None) -> list[Block]:
    """The insights in a few lines: a digest's ``insights`` section and the Home tab's
    tile.  ``ins`` may be why they could not be read (escaped words)."""
    if ins is None:
        return []
    if isinstance(ins, str):
        return [
            DividerBlock(),
            section(_(":warning: *Insights unavailable*: {reason}.").format(reason=ins)),
        ]
    head = _("*Insights* · {scope}, {day}").format(
        scope=scope_words(ins), day=f"{weekday_word(ins.weekday)} {ins.day:%d/%m/%Y}"
    )
    body = "\n".join(summary_lines(ins))
    blocks: list[Block] = [DividerBlock()]
    pairs = kpi_pairs(ins)
    if pairs:
        blocks.append(
            SectionBlock(
                text=MarkdownTextObject(text=truncate(f"{head}\n{body}", 3000)),
                fields=labelled(pairs),
            )
        )
    else:
        blocks.append(section(truncate(f"{head}\n{body}", 3000)))
    blocks.append(
        context_line(
            _(
                ":information_source: Hours are Vietnam time; usual levels from the four "
                "weeks before; `/callops insights` shows the whole analysis."
            )
        )
    )
    return blocks
