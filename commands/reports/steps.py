"""Workflow steps that read: a campaign's figures, and the latest call with a number.

Figures are the service's own autodialer statistics (spec 4.3) over a window, the same
numbers ``/callops monitor`` and the alerts show, named for a workflow to branch on or
post.  The call lookup reads the call records (spec 4.7) of the last 30 days.
"""

from __future__ import annotations

from commands.kernel.context import CommandContext
from commands.kernel.durations import parse_minutes
from commands.kernel.grammar import UsageError
from commands.kernel.i18n import _
from commands.kernel.interactions import StepParam, StepRun
from commands.kernel.periods import parse_period
from commands.kernel.phones import normalize_phone, show_phone
from commands.kernel.reply import Outcome, StepCompleted, StepFailed
from commands.kernel.resolve import all_campaigns, pick_campaign
from commands.kernel.service_words import campaign_type_words
from commands.kernel.text import parse_service_time
from commands.reports.cdr import parse_query
from commands.reports.stats import MAX_WINDOW_MINUTES, MONITOR_WINDOW_MINUTES

FIGURES_STEP = "campaign_figures"
CALL_LOOKUP_STEP = "call_lookup"
LOOKUP_PERIOD = "month"
"""How far back the call lookup reads: the last 30 days."""

FIGURE_INPUTS = (
    StepParam(
        "campaign",
        "string",
        "Campaign",
        "The autodialer campaign: its name, the start of its name, or its UUID.",
        required=True,
    ),
    StepParam(
        "window",
        "string",
        "Window",
        "How far back: minutes (90), hours (2h) or days (1d), up to 30 days. Default 1h.",
    ),
)
FIGURE_OUTPUTS = (
    StepParam(
        "calls", "integer", "Calls", "Calls the campaign placed in the window.", required=True
    ),
    StepParam(
        "answered", "integer", "Answered", "Calls a customer answered in the window.", required=True
    ),
    StepParam(
        "connection_rate",
        "number",
        "Connection rate (%)",
        "Answered calls as a percentage of calls, as the service counts it.",
        required=True,
    ),
    StepParam(
        "dropped_rate",
        "number",
        "Dropped rate (%)",
        "Dropped calls as a percentage of answered calls, as the service counts it.",
        required=True,
    ),
    StepParam(
        "agents_ready",
        "integer",
        "Agents ready",
        "Agents ready for a call right now.",
        required=True,
    ),
    StepParam(
        "window_minutes",
        "integer",
        "Window (minutes)",
        "The window the figures cover.",
        required=True,
    ),
)
LOOKUP_INPUTS = (
    StepParam(
        "phone",
        "string",
        "Phone number",
        "The number called or calling, e.g. 0912345678.",
        required=True,
    ),
)
LOOKUP_OUTPUTS = (
    StepParam(
        "status",
        "string",
        "Status",
        "How the call ended: answered, busy, no-answer…",
        required=True,
    ),
    StepParam(
        "duration", "integer", "Duration (s)", "Seconds from the start to the end.", required=True
    ),
    StepParam("time", "slack#/types/timestamp", "Time", "When the call started.", required=True),
    StepParam(
        "recording_url",
        "string",
        "Recording",
        "The recording's link; empty when none was made.",
        required=True,
    ),
)


async def figures(ctx: CommandContext, run: StepRun) -> Outcome:
    query = run.text("campaign")
    if not query:
        return StepFailed(_("Which campaign? Give the autodialer campaign's name or UUID."))
    window = run.text("window")
    try:
        minutes = (
            parse_minutes(window, longest_minutes=MAX_WINDOW_MINUTES, name=_("The window"))
            if window
            else MONITOR_WINDOW_MINUTES
        )
    except UsageError as exc:
        return StepFailed(exc.message)
    cc = ctx.client()
    campaign = pick_campaign(await all_campaigns(cc), query)
    if campaign.type != "autodialer":
        return StepFailed(
            _(
                "{name} is a {type} campaign; the service keeps these figures for autodialer "
                "campaigns."
            ).format(name=campaign.campaign_name, type=campaign_type_words(campaign.type))
        )
    found = [
        s
        async for s in cc.reports.iterate_autodialer(
            minutes, campaign_uuids=[campaign.campaign_uuid]
        )
        if s.campaign_uuid == campaign.campaign_uuid
    ]
    if not found:
        return StepFailed(
            _("The service has no figures for {name}.").format(name=campaign.campaign_name)
        )
    stats = found[0]
    return StepCompleted(
        {
            "calls": stats.total_calls,
            "answered": stats.total_connected_customers,
            "connection_rate": stats.customer_connection_rate,
            "dropped_rate": stats.dropped_call_rate,
            "agents_ready": stats.agents_ready,
            "window_minutes": minutes,
        }
    )


async def call_lookup(ctx: CommandContext, run: StepRun) -> Outcome:
    raw = run.text("phone")
    if not raw:
        return StepFailed(_("Give the phone number to look up."))
    phone = parse_query([f"phone={normalize_phone(raw)}"], ctx.tz).phone or ""
    period = parse_period(LOOKUP_PERIOD, ctx.tz)
    start, end = period.service_bounds()
    latest = None
    async for record in ctx.client().cdrs.iterate(start_date=start, end_date=end, phone=phone):
        if latest is None or record.time_started > latest.time_started:
            latest = record
    if latest is None:
        return StepFailed(
            _("No call with {phone} in {period}.").format(
                phone=show_phone(phone), period=period.label
            )
        )
    started = parse_service_time(latest.time_started)
    recording = latest.recording_url or latest.autocall_recording_url
    return StepCompleted(
        {
            "status": latest.status,
            "duration": latest.duration,
            "time": int(started.timestamp()) if started else 0,
            "recording_url": recording
            if recording.strip().lower().startswith(("http://", "https://"))
            else "",
        }
    )
