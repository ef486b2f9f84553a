"""The reports family: call records, figures, the wallboard and their steps."""

from __future__ import annotations

from commands.kernel.catalog import CommandSpec
from commands.kernel.family import Family
from commands.kernel.i18n import N_
from commands.kernel.interactions import OnClick, OnShortcut, OnStep
from commands.reports import cdr, insights, stats, steps, wallboard
from storage import Role

FAMILY = Family(
    "reports",
    commands=(
        CommandSpec(
            "cdr",
            "ban-ghi",
            "cdr [id=] [phone=] [ext=] [status=] [direction=] [campaign=] [from=] [to=]",
            N_("Look up call records."),
            Role.VIEWER,
            ("cdr phone=0912345678", "cdr status=busy from=2026-11-01 to=2026-11-07"),
            handler=cdr.call_records,
        ),
        CommandSpec(
            "stats",
            "thong-ke",
            "stats [today|yesterday|week|month] [interval=hour|day|week|month]",
            N_("Call statistics for a period."),
            Role.VIEWER,
            ("stats", "stats week interval=day"),
            handler=stats.stats,
        ),
        CommandSpec(
            "monitor",
            "giam-sat",
            N_("monitor [campaign ...]"),
            N_("Autodialer statistics: leads, connection and dropped rates, agents."),
            Role.VIEWER,
            ("monitor", 'monitor "Telesale thẻ tín dụng HCM đợt 3"'),
            handler=stats.monitor,
        ),
        CommandSpec(
            "agents",
            "dtv",
            N_("agents [period]"),
            N_("Agent time: talk, wait, pause."),
            Role.VIEWER,
            ("agents", "agents week"),
            handler=stats.agents,
        ),
        CommandSpec(
            "extensions",
            "may-le",
            N_("extensions [period]"),
            N_("Calls per extension."),
            Role.VIEWER,
            ("extensions", "extensions yesterday"),
            handler=stats.extensions,
        ),
        CommandSpec(
            "insights",
            "phan-tich",
            N_("insights [campaign] [today|yesterday|YYYY-MM-DD]"),
            N_(
                "A day against its usual levels: KPIs now, best hours to call, networks "
                "below their usual, agents off the team's figures, agents needed."
            ),
            Role.VIEWER,
            ("insights", "insights Summer yesterday"),
            handler=insights.insights,
        ),
    ),
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
            N_("Campaign figures"),
            "A callops autodialer campaign's calls, answers, rates and ready agents.",
            steps.FIGURE_INPUTS,
            steps.FIGURE_OUTPUTS,
            role=Role.VIEWER,
        ),
        OnStep(
            steps.CALL_LOOKUP_STEP,
            steps.call_lookup,
            N_("Latest call with a number"),
            "The latest callops call record for a phone number: status, duration, time.",
            steps.LOOKUP_INPUTS,
            steps.LOOKUP_OUTPUTS,
            role=Role.VIEWER,
        ),
    ),
    home=wallboard.wallboard,
)
