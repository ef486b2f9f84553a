"""The whole ``insights`` page: a header, the day's scope, the sections in the order a
manager reads them, and what call records cannot say."""

from __future__ import annotations

from collections.abc import Sequence

from slack_sdk.models.blocks import Block, HeaderBlock

from commands.kernel.i18n import N_, _
from commands.kernel.reply import Reply, context_line
from commands.kernel.text import clip, escape, number
from commands.reports.insights.model import Insights
from commands.reports.insights.sections import (
    agent_section,
    best_sections,
    network_section,
    now_section,
    staffing_section,
)
from commands.reports.insights.words import scope_words, weekday_word

CANNOT_KNOW = N_(
    "Hours are Vietnam time. Usual: median of the same weekday and hour over the four "
    "weeks before, band median ± 3 × 1.4826 × MAD (`help metrics`). Networks are read "
    "from number prefixes: a number moved to another network keeps its first one. Call "
    "records cannot say wrap-up time, shrinkage, or who is ready for one campaign's "
    "queue: Erlang C counts agents on the phones, against the agents free in the whole "
    "call center."
)


def insights_reply(ins: Insights, chart: Sequence[Block] = ()) -> Reply:
    title = _("Insights: {scope}, {day}").format(
        scope=ins.name or _("the whole call center"),
        day=f"{weekday_word(ins.weekday)} {ins.day:%d/%m/%Y}",
    )
    blocks: list[Block] = [
        HeaderBlock(text=clip(title, 150)),
        context_line(
            _(
                ":calendar: {scope} · {day} · {n} calls that day · "
                "usual levels from {m} call records"
            ).format(
                scope=scope_words(ins),
                day=f"{weekday_word(ins.weekday)} {ins.day:%d/%m/%Y}",
                n=number(ins.records),
                m=number(ins.learned_from),
            )
        ),
        now_section(ins),
        *chart,
    ]
    if not ins.inbound:
        blocks.extend(best_sections(ins))
    blocks.append(network_section(ins))
    blocks.append(agent_section(ins))
    if ins.inbound:
        blocks.append(staffing_section(ins))
    blocks.append(context_line(":information_source: " + _(CANNOT_KNOW)))
    return Reply(text=escape(title), blocks=blocks)
