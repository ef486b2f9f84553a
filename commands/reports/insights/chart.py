"""The day's answer rate per hour inside its usual band, drawn by Slack when the
workspace reads charts natively."""

from __future__ import annotations

from slack_sdk.models.blocks import Block

from commands.kernel.i18n import _
from commands.reports.chart_blocks import ChartMode, chart_parts
from commands.reports.chart_spec import Band, ChartSpec, Series
from commands.reports.insights.model import Insights
from commands.reports.insights.words import hour_label


def insights_chart(ins: Insights) -> ChartSpec | None:
    """The day's answer rate per hour inside its usual band (at least two hours)."""
    if len(ins.chart_points) < 2:
        return None
    return ChartSpec(
        kind="line",
        title=_("Answer rate by hour against the usual"),
        labels=tuple(hour_label(h) for h, _v, _l, _u in ins.chart_points),
        series=(Series(_("that day"), tuple(round(v, 1) for _h, v, _l, _u in ins.chart_points)),),
        band=Band(
            low=tuple(round(low, 1) for _h, _v, low, _u in ins.chart_points),
            high=tuple(round(high, 1) for _h, _v, _l, high in ins.chart_points),
            name=_("usual"),
        ),
        x_title=_("hour (Vietnam time)"),
        y_title="%",
        additive=False,
        filename=f"callops-insights-{ins.day:%Y%m%d}.png",
    )


async def chart_blocks(ins: Insights, mode: ChartMode) -> list[Block]:
    """The chart drawn by Slack beside its summary, when the workspace reads charts
    natively and it fits; nothing otherwise (an ephemeral reply cannot carry a file,
    and its text says the same figures)."""
    spec = insights_chart(ins)
    if spec is None or mode != "native":
        return []
    parts = await chart_parts(spec, mode)
    return parts.blocks if parts.native else []
