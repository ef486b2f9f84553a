"""``start|pause|stop <campaign>`` and ``pause all``: the campaign's dialing switch.

Every change goes through ``cc.campaigns.set_status``, which sends the campaign back
whole (the service's PUT resets what it is not given).  ``pause all`` is the emergency
brake: any operator, one confirm, every campaign running at that moment paused at once,
and a report of what was paused and what was not.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Literal

from callcenter import CallCenter, errors
from callcenter.models import Campaign
from commands.approvals.cards import propose
from commands.kernel.actions import (
    ActionParams,
    ActionRefused,
    ActionResult,
    ExecutionEnv,
    Observation,
    Proposal,
)
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.failures import describe_failure
from commands.kernel.grammar import UsageError
from commands.kernel.i18n import N_, _, ngettext
from commands.kernel.reply import Reply, notice
from commands.kernel.resolve import all_campaigns, pick_campaign
from commands.kernel.text import escape, number, status_label, status_word, truncate
from commands.rules.dialing_hours import (
    HoursFix,
    asked_outside,
    describe_fix,
    hours_fix,
    outside_warning,
)
from commands.rules.guard import in_vietnam, is_advertising, window_words
from storage.offload import off_loop

START_KIND = "campaign.start"
PAUSE_KIND = "campaign.pause"
STOP_KIND = "campaign.stop"
PAUSE_ALL_KIND = "campaign.pause_all"
"""The kinds of action declared in this family's ``FAMILY``, with their requests."""

PAUSE_ALL_CONCURRENCY = 8
"""Campaigns paused at the same time by the emergency brake."""
LISTED_NAMES = 15

Status = Literal["start", "pause", "stop"]
"""The switch positions a command can ask for (``campaigns.set_status``)."""

KIND_OF: dict[Status, str] = {
    "start": START_KIND,
    "pause": PAUSE_KIND,
    "stop": STOP_KIND,
}
STATE_WORD = {"start": "running", "running": "running", "pause": "paused", "stop": "stopped"}
"""Which statuses are the same state (``start`` and the statistics' ``running``)."""
CONSEQUENCE: dict[Status, str] = {
    "start": N_("It starts dialing its leads."),
    "pause": N_("It stops placing new calls; calls in progress finish."),
    "stop": N_("It stops dialing; starting it again begins a new run."),
}
REQUEST: dict[Status, str] = {
    "start": N_("Start campaign {name}."),
    "pause": N_("Pause campaign {name}."),
    "stop": N_("Stop campaign {name}."),
}
REQUEST_WAS: dict[Status, str] = {
    "start": N_("Start campaign {name} ({was} when asked)."),
    "pause": N_("Pause campaign {name} ({was} when asked)."),
    "stop": N_("Stop campaign {name} ({was} when asked)."),
}
ALREADY_DONE: dict[Status, str] = {
    "start": N_("{name} was already running; nothing was changed."),
    "pause": N_("{name} was already paused; nothing was changed."),
    "stop": N_("{name} was already stopped; nothing was changed."),
}
ALREADY: dict[Status, str] = {
    "start": N_("{name} is already running."),
    "pause": N_("{name} is already paused."),
    "stop": N_("{name} is already stopped."),
}
SEEN_DONE: dict[Status, str] = {
    "start": N_("{name} is running: the service shows it was done."),
    "pause": N_("{name} is paused: the service shows it was done."),
    "stop": N_("{name} is stopped: the service shows it was done."),
}


def _is(campaign_status: str, status: str) -> bool:
    return STATE_WORD.get(campaign_status, campaign_status) == STATE_WORD[status]


def is_running(campaign_status: str) -> bool:
    """``start`` (or the statistics' ``running``): the campaign dials."""
    return _is(campaign_status, "start")


class ControlParams(ActionParams):
    """Start, pause or stop one campaign; ``was`` and ``concurrent_call`` are what the
    requester saw, for the card (``concurrent_call`` only for a start).  A start of an
    advertising campaign keeps the calling hours it was asked under, when it was asked
    outside them, and the dialing hours it starts with when its own reach outside."""

    OMIT_WHEN_NONE = frozenset({"concurrent_call", "calling_hours", "asked_at", "fit"})

    campaign_uuid: str
    campaign_name: str = ""
    status: Status
    was: str = ""
    concurrent_call: int | None = None
    calling_hours: tuple[int, int] | None = None
    asked_at: str | None = None
    fit: HoursFix | None = None


def _name(campaign_name: str) -> str:
    return f"*{escape(truncate(campaign_name, 150))}*"


def describe_control(params: ControlParams) -> str:
    """The request as asked, true before and after it is settled: the card keeps this
    above its result, so the campaign's status is the one it had when asked, said so."""
    status = params.status
    name = _name(params.campaign_name)
    asked = (
        _(REQUEST_WAS[status]).format(name=name, was=escape(status_word(params.was)))
        if params.was
        else _(REQUEST[status]).format(name=name)
    )
    text = f"{asked} {_(CONSEQUENCE[status])}"
    if status == "start" and params.concurrent_call:
        up_to = ngettext(
            "Up to {n} call at a time.", "Up to {n} calls at a time.", params.concurrent_call
        )
        text += "\n" + up_to.format(n=number(params.concurrent_call))
    if params.calling_hours is not None and params.asked_at:
        text += "\n" + outside_warning(params.calling_hours, params.asked_at)
    if params.fit is not None:
        text += "\n" + describe_fix(params.fit)
    text += f"\n`{escape(params.campaign_uuid)}`"
    return text


async def execute_control(params: ControlParams, env: ExecutionEnv) -> ActionResult:
    uuid, status, name = params.campaign_uuid, params.status, _name(params.campaign_name)
    try:
        current = await env.cc.campaigns.get(uuid)
    except errors.NotFoundError:
        raise ActionRefused(
            _("The campaign {name} no longer exists").format(name=params.campaign_name or uuid)
        ) from None
    if _is(current.status, status):
        return ActionResult(
            ok=True,
            text=_(ALREADY_DONE[status]).format(name=name),
            data={"campaign_uuid": uuid, "status": current.status},
        )
    if params.fit is not None:
        # One PUT: the campaign starts with its hours inside the calling hours.
        await env.cc.campaigns.set_fields(uuid, status=status, **params.fit.changes())
    else:
        await env.cc.campaigns.set_status(uuid, status)
    text = _("{name} is now {status} (was {was}).").format(
        name=name, status=status_label(status), was=status_label(current.status)
    )
    if params.fit is not None:
        text += " " + _("Its dialing hours are now inside {window}.").format(
            window=window_words(params.fit.window)
        )
    return ActionResult(ok=True, text=text, data={"campaign_uuid": uuid, "status": status})


async def proposal_for(ctx: CommandContext, campaign: Campaign, status: Status) -> Proposal | None:
    """The request to move ``campaign`` to ``status``, or None when it is there already.
    Typed, clicked and workflow-step requests are all made here; a start of an
    advertising campaign is held against the calling rules' hours."""
    if _is(campaign.status, status):
        return None
    calling_hours: tuple[int, int] | None = None
    asked_at: str | None = None
    fit: HoursFix | None = None
    if status == "start":
        rules = await off_loop(ctx.storage.calling_rules.rules, ctx.team_id)
        if is_advertising(campaign, rules):
            window = rules.hours_of(campaign.campaign_uuid)
            asked_at = asked_outside(window, in_vietnam(datetime.now(UTC)))
            fit = hours_fix(campaign, window)
            if asked_at is not None or fit is not None:
                calling_hours = window
    params = ControlParams(
        campaign_uuid=campaign.campaign_uuid,
        campaign_name=campaign.campaign_name,
        status=status,
        was=campaign.status,
        concurrent_call=campaign.concurrent_call if status == "start" else None,
        calling_hours=calling_hours,
        asked_at=asked_at,
        fit=fit,
    )
    return Proposal(KIND_OF[status], params)


async def observe_control(params: Mapping[str, Any], cc: CallCenter) -> Observation:
    """After a cut-off run: is the campaign in the state that was asked for?"""
    uuid = str(params["campaign_uuid"])
    status: Status = params["status"]
    name = _name(str(params.get("campaign_name") or ""))
    try:
        current = await cc.campaigns.get(uuid)
    except errors.NotFoundError:
        return Observation(
            False,
            _("{name} no longer exists; nothing more was sent.").format(name=name),
        )
    if _is(current.status, status):
        return Observation(
            True,
            _(SEEN_DONE[status]).format(name=name),
            data={"campaign_uuid": uuid, "status": current.status},
        )
    return Observation(
        False,
        _("{name} is still {status}: it was not done. Ask again if it is still wanted.").format(
            name=name, status=status_label(current.status)
        ),
        data={"campaign_uuid": uuid, "status": current.status},
    )


async def _control(ctx: CommandContext, args: list[str], status: Status) -> Reply:
    if not args:
        raise UsageError(
            _("Which campaign? Give its name, the start of its name, or its UUID."),
            usage_of(status),
        )
    # A typo is offered as "Did you mean" (by the dispatcher), never acted on.
    campaign = pick_campaign(await all_campaigns(ctx.client()), " ".join(args))
    proposal = await proposal_for(ctx, campaign, status)
    if proposal is None:
        return notice(
            _(ALREADY[status]).format(name=f"*{escape(campaign.campaign_name)}*"),
            emoji=":information_source:",
        )
    return await propose(ctx, proposal)


async def start(ctx: CommandContext, args: list[str]) -> Reply:
    return await _control(ctx, args, "start")


async def pause(ctx: CommandContext, args: list[str]) -> Reply:
    return await _control(ctx, args, "pause")


async def stop(ctx: CommandContext, args: list[str]) -> Reply:
    return await _control(ctx, args, "stop")


# --- pause all ------------------------------------------------------------------------


def _running(campaigns: list[Campaign]) -> list[Campaign]:
    return [c for c in campaigns if _is(c.status, "start")]


def _names(names: list[str]) -> str:
    shown = ", ".join(f"*{escape(truncate(n, 80))}*" for n in names[:LISTED_NAMES])
    if len(names) > LISTED_NAMES:
        return _("{names} and {n} more").format(names=shown, n=len(names) - LISTED_NAMES)
    return shown


class CampaignRef(ActionParams):
    campaign_uuid: str
    campaign_name: str = ""


class PauseAllParams(ActionParams):
    """The campaigns running when the brake was asked for, for the card: the execution
    pauses whatever runs at that moment."""

    campaigns: tuple[CampaignRef, ...] = ()


def describe_pause_all(params: PauseAllParams) -> str:
    names = [c.campaign_name for c in params.campaigns]
    return _(
        "Pause *every running campaign* of this workspace at once ({n} "
        "running when asked: {names}). Campaigns started in the meantime are paused "
        "too; calls in progress finish."
    ).format(n=number(len(names)), names=_names(names))


async def execute_pause_all(params: PauseAllParams, env: ExecutionEnv) -> ActionResult:
    running = _running(await all_campaigns(env.cc))
    gate = asyncio.Semaphore(PAUSE_ALL_CONCURRENCY)

    async def pause_one(campaign: Campaign) -> str | None:
        async with gate:
            try:
                await env.cc.campaigns.set_status(campaign.campaign_uuid, "pause")
            except errors.CallCenterError as exc:
                return describe_failure(exc, effect=_("it may or may not be paused")).text
        return None

    outcomes = await asyncio.gather(*(pause_one(c) for c in running))
    paused = [c.campaign_name for c, problem in zip(running, outcomes, strict=True) if not problem]
    failed = [(c.campaign_name, p) for c, p in zip(running, outcomes, strict=True) if p]
    if not running:
        text = _("No campaign was running; nothing needed pausing.")
    elif paused:
        text = ngettext(
            "Paused {paused} of {n} running campaign: {names}.",
            "Paused {paused} of {n} running campaigns: {names}.",
            len(running),
        ).format(paused=number(len(paused)), n=number(len(running)), names=_names(paused))
    else:
        text = ngettext(
            "Paused {paused} of {n} running campaign.",
            "Paused {paused} of {n} running campaigns.",
            len(running),
        ).format(paused=number(len(paused)), n=number(len(running)))
    if failed:
        not_paused = "; ".join(
            f"*{escape(truncate(name, 80))}* ({truncate(problem, 200)})"
            for name, problem in failed[:LISTED_NAMES]
        )
        text += "\n" + _(":warning: Not paused: {campaigns}").format(campaigns=not_paused)
    return ActionResult(
        ok=not failed,
        text=text,
        data={
            "paused": [c.campaign_uuid for c, p in zip(running, outcomes, strict=True) if not p],
            "failed": [c.campaign_uuid for c, p in zip(running, outcomes, strict=True) if p],
        },
        announce=_(":rotating_light: *Emergency brake.* {report}").format(report=text),
    )


async def observe_pause_all(params: Mapping[str, Any], cc: CallCenter) -> Observation:
    """After a cut-off brake: is any campaign still running?"""
    running = _running(await all_campaigns(cc))
    if not running:
        return Observation(True, _("No campaign is running: the service shows every one paused."))
    names = [c.campaign_name for c in running]
    return Observation(
        False,
        ngettext(
            "{n} campaign is still running: {names}. Pull the brake again if it is still needed.",
            "{n} campaigns are still running: {names}. Pull the brake again if it is still needed.",
            len(running),
        ).format(n=number(len(running)), names=_names(names)),
        data={"running": [c.campaign_uuid for c in running]},
    )


async def pause_all(ctx: CommandContext, args: list[str]) -> Reply:
    if args:
        raise UsageError(_("`pause all` takes nothing after it."), usage_of("pause all"))
    running = _running(await all_campaigns(ctx.client()))
    if not running:
        return notice(_("No campaign is running right now; there is nothing to pause."))
    params = PauseAllParams(
        campaigns=tuple(
            CampaignRef(campaign_uuid=c.campaign_uuid, campaign_name=c.campaign_name)
            for c in running
        )
    )
    return await propose(ctx, Proposal(PAUSE_ALL_KIND, params))
