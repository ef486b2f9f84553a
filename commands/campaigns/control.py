"""``start|pause|stop <campaign>`` and ``pause all``: the campaign's dialing switch.

Every change goes through ``cc.campaigns.set_status``, which sends the campaign back
whole (the service's PUT resets what it is not given).  ``pause all`` is the emergency
brake: any operator, one confirm, every campaign running at that moment paused at once,
and a report of what was paused and what was not.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from callcenter import CallCenter, errors
from callcenter.models import Campaign
from commands.approvals.actions import (
    ActionRefused,
    ActionResult,
    ActionSpec,
    ExecutionEnv,
    register,
)
from commands.approvals.observe import Observation, register_observer
from commands.approvals.workflow import propose, service_error_text
from commands.campaigns.cards import ambiguous_reply, status_label
from commands.kernel.catalog import find
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError
from commands.kernel.proposal import Proposal
from commands.kernel.reply import Reply, notice
from commands.kernel.resolve import AmbiguousCampaign, all_campaigns, pick_campaign
from commands.kernel.text import escape, number, truncate
from storage import ActionKind

PAUSE_ALL_CONCURRENCY = 8
"""Campaigns paused at the same time by the emergency brake."""
LISTED_NAMES = 15

KIND_OF = {
    "start": ActionKind.CAMPAIGN_START,
    "pause": ActionKind.CAMPAIGN_PAUSE,
    "stop": ActionKind.CAMPAIGN_STOP,
}
STATE_WORD = {"start": "running", "running": "running", "pause": "paused", "stop": "stopped"}
CONSEQUENCE = {
    "start": "It starts dialing its leads.",
    "pause": "It stops placing new calls; calls in progress finish.",
    "stop": "It stops dialing; starting it again begins a new run.",
}


def _usage(name: str) -> str:
    spec = find(name)
    return spec.usage if spec else f"{name} <campaign>"


def _is(campaign_status: str, status: str) -> bool:
    return STATE_WORD.get(campaign_status, campaign_status) == STATE_WORD[status]


def _name(params: Mapping[str, Any]) -> str:
    return f"*{escape(truncate(str(params.get('campaign_name', '')), 150))}*"


def describe_control(params: Mapping[str, Any]) -> str:
    status = str(params["status"])
    verb = status.capitalize()
    was = status_label(str(params.get("was", "")))
    text = f"{verb} campaign {_name(params)} (now {was}). {CONSEQUENCE.get(status, '')}"
    if status == "start" and params.get("concurrent_call"):
        text += f"\nUp to {number(int(params['concurrent_call']))} calls at a time."
    text += f"\n`{escape(params['campaign_uuid'])}`"
    return text


async def execute_control(params: Mapping[str, Any], env: ExecutionEnv) -> ActionResult:
    uuid = str(params["campaign_uuid"])
    status = str(params["status"])
    try:
        current = await env.cc.campaigns.get(uuid)
    except errors.NotFoundError:
        raise ActionRefused(
            f"The campaign {params.get('campaign_name', uuid)} no longer exists"
        ) from None
    if _is(current.status, status):
        return ActionResult(
            True,
            f"{_name(params)} was already {STATE_WORD[status]}; nothing was changed.",
            data={"campaign_uuid": uuid, "status": current.status},
        )
    await env.cc.campaigns.set_status(uuid, status)
    return ActionResult(
        True,
        f"{_name(params)} is now {status_label(status)} (was {status_label(current.status)}).",
        data={"campaign_uuid": uuid, "status": status},
    )


async def observe_control(params: Mapping[str, Any], cc: CallCenter) -> Observation:
    """After a cut-off run: is the campaign in the state that was asked for?"""
    uuid = str(params["campaign_uuid"])
    status = str(params["status"])
    try:
        current = await cc.campaigns.get(uuid)
    except errors.NotFoundError:
        return Observation(False, f"{_name(params)} no longer exists; nothing more was sent.")
    if _is(current.status, status):
        return Observation(
            True,
            f"{_name(params)} is {STATE_WORD[status]}: the service shows it was done.",
            data={"campaign_uuid": uuid, "status": current.status},
        )
    return Observation(
        False,
        f"{_name(params)} is still {status_label(current.status)}: it was not done. "
        "Ask again if it is still wanted.",
        data={"campaign_uuid": uuid, "status": current.status},
    )


async def _control(ctx: CommandContext, args: list[str], status: str) -> Reply:
    if not args:
        raise UsageError(
            "Which campaign? Give its name, the start of its name, or its UUID.", _usage(status)
        )
    try:
        campaign = pick_campaign(await all_campaigns(ctx.client()), " ".join(args))
    except AmbiguousCampaign as exc:
        return ambiguous_reply(exc, status)
    if _is(campaign.status, status):
        return notice(
            f"*{escape(campaign.campaign_name)}* is already {STATE_WORD[status]}.",
            emoji=":information_source:",
        )
    params: dict[str, Any] = {
        "campaign_uuid": campaign.campaign_uuid,
        "campaign_name": campaign.campaign_name,
        "status": status,
        "was": campaign.status,
    }
    if status == "start":
        params["concurrent_call"] = campaign.concurrent_call
    return await propose(ctx, Proposal(KIND_OF[status], params))


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
        shown += f" and {len(names) - LISTED_NAMES} more"
    return shown


def describe_pause_all(params: Mapping[str, Any]) -> str:
    names = [str(c.get("campaign_name", "")) for c in params.get("campaigns", [])]
    return (
        f"Pause *every running campaign* of this workspace at once ({number(len(names))} "
        f"running when asked: {_names(names)}). Campaigns started in the meantime are paused "
        "too; calls in progress finish."
    )


async def execute_pause_all(params: Mapping[str, Any], env: ExecutionEnv) -> ActionResult:
    running = _running(await all_campaigns(env.cc))
    gate = asyncio.Semaphore(PAUSE_ALL_CONCURRENCY)

    async def pause_one(campaign: Campaign) -> str | None:
        async with gate:
            try:
                await env.cc.campaigns.set_status(campaign.campaign_uuid, "pause")
            except errors.CallCenterError as exc:
                return service_error_text(exc)
        return None

    outcomes = await asyncio.gather(*(pause_one(c) for c in running))
    paused = [c.campaign_name for c, problem in zip(running, outcomes, strict=True) if not problem]
    failed = [(c.campaign_name, p) for c, p in zip(running, outcomes, strict=True) if p]
    if not running:
        text = "No campaign was running; nothing needed pausing."
    else:
        text = f"Paused {number(len(paused))} of {number(len(running))} running campaigns"
        text += f": {_names(paused)}." if paused else "."
    if failed:
        text += "\n:warning: Not paused: " + "; ".join(
            f"*{escape(truncate(name, 80))}* ({truncate(problem, 200)})"
            for name, problem in failed[:LISTED_NAMES]
        )
    return ActionResult(
        not failed,
        text,
        data={
            "paused": [c.campaign_uuid for c, p in zip(running, outcomes, strict=True) if not p],
            "failed": [c.campaign_uuid for c, p in zip(running, outcomes, strict=True) if p],
        },
        announce=f":rotating_light: *Emergency brake.* {text}",
    )


async def observe_pause_all(params: Mapping[str, Any], cc: CallCenter) -> Observation:
    """After a cut-off brake: is any campaign still running?"""
    running = _running(await all_campaigns(cc))
    if not running:
        return Observation(True, "No campaign is running: the service shows every one paused.")
    names = [c.campaign_name for c in running]
    return Observation(
        False,
        f"{number(len(running))} campaigns are still running: {_names(names)}. "
        "Pull the brake again if it is still needed.",
        data={"running": [c.campaign_uuid for c in running]},
    )


async def pause_all(ctx: CommandContext, args: list[str]) -> Reply:
    if args:
        raise UsageError("`pause all` takes nothing after it.", _usage("pause all"))
    running = _running(await all_campaigns(ctx.client()))
    if not running:
        return notice("No campaign is running right now; there is nothing to pause.")
    params = {
        "campaigns": [
            {"campaign_uuid": c.campaign_uuid, "campaign_name": c.campaign_name} for c in running
        ]
    }
    return await propose(ctx, Proposal(ActionKind.CAMPAIGN_PAUSE_ALL, params))


for _kind, _title, _label in (
    (ActionKind.CAMPAIGN_START, "Start campaign", "Start"),
    (ActionKind.CAMPAIGN_PAUSE, "Pause campaign", "Pause"),
    (ActionKind.CAMPAIGN_STOP, "Stop campaign", "Stop"),
):
    register(ActionSpec(_kind, _title, _label, describe_control, execute_control))
    register_observer(_kind, observe_control)
register(
    ActionSpec(
        ActionKind.CAMPAIGN_PAUSE_ALL,
        "Pause all campaigns",
        "Pause all",
        describe_pause_all,
        execute_pause_all,
    )
)
register_observer(ActionKind.CAMPAIGN_PAUSE_ALL, observe_pause_all)

HANDLERS = {"start": start, "pause": pause, "stop": stop, "pause all": pause_all}
