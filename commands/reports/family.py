"""The reports family: call records, figures, the wallboard and their steps."""

from __future__ import annotations

from commands.kernel.family import Family
from commands.kernel.interactions import OnClick, OnShortcut, OnStep
from commands.reports import cdr, stats, steps, wallboard
from storage import Role

FAMILY = Family(
    "reports",
    commands={
        "cdr": cdr.call_records,
        "stats": stats.stats,
        "monitor": stats.monitor,
        "agents": stats.agents,
        "extensions": stats.extensions,
    },
    clicks=(
        OnClick(wallboard.REFRESH_ACTION, wallboard.refresh_clicked),
        OnClick(wallboard.STATUS_REFRESH_ACTION, wallboard.status_refreshed),
    ),
    shortcuts=(
        OnShortcut(
            wallboard.STATUS_SHORTCUT,
            wallboard.status_shortcut,
            "global",
            "Call-center status",
            "The callops wallboard: campaigns, live calls, agents and today's totals.",
        ),
    ),
    steps=(
        OnStep(
            steps.FIGURES_STEP,
            steps.figures,
            "Campaign figures",
            "A callops autodialer campaign's calls, answers, rates and ready agents.",
            steps.FIGURE_INPUTS,
            steps.FIGURE_OUTPUTS,
            role=Role.VIEWER,
        ),
        OnStep(
            steps.CALL_LOOKUP_STEP,
            steps.call_lookup,
            "Latest call with a number",
            "The latest callops call record for a phone number: status, duration, time.",
            steps.LOOKUP_INPUTS,
            steps.LOOKUP_OUTPUTS,
            role=Role.VIEWER,
        ),
    ),
)
