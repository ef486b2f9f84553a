"""The digests family's answer to the scheduler and poster of ``bot/`` (``DIGESTS``, in
``Family.digests``): what a schedule means, what a post says, and when a workspace is
held up (``on_hold``)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from zoneinfo import ZoneInfo

from apscheduler.triggers.cron import CronTrigger

from callcenter import CallCenter
from commands.digests import on_hold
from commands.digests.content import DigestContent, DigestRequest, build_digest
from commands.digests.manage import request_for, run_request, with_rules_facts
from commands.digests.schedules import latest_fire, slot_key, trigger_for
from commands.kernel.scheduled import Digests
from commands.reports.chart_blocks import chart_mode
from storage import DigestSchedule, Storage, Workspace


def trigger(digest: DigestSchedule) -> CronTrigger:
    """When ``digest`` fires, in its zone."""
    return trigger_for(digest.schedule, ZoneInfo(digest.timezone))


def for_slot(digest: DigestSchedule, slot: datetime) -> DigestRequest:
    return request_for(digest, slot)


async def compose(
    cc: CallCenter,
    storage: Storage,
    workspace: Workspace | None,
    digest: DigestSchedule,
    request: object,
) -> DigestContent:
    """The digest ``request`` describes, with the calling rules' line and charts drawn
    as the workspace reads them."""
    if not isinstance(request, DigestRequest):
        raise TypeError(f"not a digest request: {type(request).__name__}")
    request = await with_rules_facts(storage, digest.team_id, request)
    request = replace(request, chart_mode=chart_mode(workspace))
    return await build_digest(cc, request)


DIGESTS = Digests(
    trigger=trigger,
    latest_slot=latest_fire,
    slot_key=slot_key,
    for_slot=for_slot,
    for_now=run_request,
    compose=compose,
    held_up=on_hold.workspace_failure,
    tell_failure=on_hold.tell_failure,
    tell_recovery=on_hold.tell_recovery,
)
