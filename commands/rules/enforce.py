"""``rules enforce on|off``: pause advertising campaigns while the calling hours are shut.

The service's campaigns dial within hours of their own, which may reach outside the
hours Decree 91/2020/ND-CP allows.  With enforcing on (off by default), each minute's
check (``commands/rules/watch_jobs.py``) pauses every running advertising campaign once the calling
hours of that campaign closed, on Vietnam's clock, and starts again, when they open, the
campaigns it paused itself (remembered in the database; one started or stopped by a
person meanwhile is left as it is).  Each pause and start is claimed first as a slot in
the database (the campaign, the action, the opening or closing it belongs to), so two
replicas never both act; each is audited with the rules as the requester and announced
in the rules channel.  The change is the service's documented campaign update
(``campaigns.set_status``, as ``pause`` and ``start`` make it).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from callcenter import CallCenter
from callcenter.errors import CallCenterError
from callcenter.models import Campaign
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError
from commands.kernel.i18n import _
from commands.kernel.reply import Outcome, Reply, notice, section
from commands.kernel.text import campaign_label
from commands.rules.guard import Window, clock, is_advertising, minutes_of, window_words, within
from commands.rules.watch import DECREE, VIETNAM
from storage import Storage
from storage.calling_rules import CallingRules
from storage.offload import off_loop

log = logging.getLogger(__name__)

RULES_REQUESTER = "callops:rules"
"""The audit log's requester of what the rules did by themselves."""
PAUSE, START = "pause", "start"
ON_WORDS = {"on": True, "bat": True, "off": False, "tat": False}


async def enforce(ctx: CommandContext, args: list[str]) -> Outcome:
    """Turn enforcing the calling hours on or off."""
    if len(args) != 1 or args[0].lower() not in ON_WORDS:
        raise UsageError(_("Say on or off."), usage_of("rules enforce"))
    on = ON_WORDS[args[0].lower()]
    storage = ctx.storage
    await off_loop(storage.rule_watch.set_enforce, ctx.team_id, on, by=ctx.user_id)
    await ctx.audit("rules.enforce", {"enforce": on})
    settings = await off_loop(storage.rule_watch.settings, ctx.team_id)
    if not on:
        paused = await off_loop(storage.rule_watch.paused, ctx.team_id)
        text = _("callops no longer pauses campaigns outside the calling hours.")
        if paused:
            names = ", ".join(f"*{campaign_label(p.campaign_name)}*" for p in paused.values())
            text += " " + _(
                "The campaigns it paused stay paused ({names}); start them with `/callops start`."
            ).format(names=names)
        return notice(text, emoji=":scales:")
    rules = await off_loop(storage.calling_rules.rules, ctx.team_id)
    text = _(
        "Within a minute, and from now on, callops pauses every running advertising campaign "
        "when its calling hours ({window}, Vietnam time, {decree}) end, and starts again, "
        "when they open, the campaigns it paused itself."
    ).format(window=window_words(rules.hours), decree=_(DECREE))
    if settings.channel:
        text += " " + _("Each pause and start is announced in <#{channel}>.").format(
            channel=settings.channel
        )
    else:
        text += " " + _(
            "Name a channel for the announcements with `/callops rules channel #channel`."
        )
    return notice(text, emoji=":scales:")


def boundary(window: Window, here: datetime) -> tuple[str, str] | None:
    """The latest opening (``start``) or closing (``pause``) of ``window`` at or before
    ``here`` (Vietnam's clock), with its key (``2026-11-28T17:00``); None for a window of
    the whole day, which never closes."""
    start, end = window
    if start == end:
        return None
    minutes = minutes_of(here)
    today, yesterday = here.date(), here.date() - timedelta(days=1)
    if within(window, minutes):
        day = today if minutes >= start else yesterday
        return START, f"{day.isoformat()}T{clock(start)}"
    day = today if minutes >= end else yesterday
    return PAUSE, f"{day.isoformat()}T{clock(end)}"


@dataclass(frozen=True)
class Switch:
    """A campaign the rules paused or started."""

    campaign: Campaign
    action: str
    window: Window
    at: datetime
    """When, on Vietnam's clock."""
    paused_at: datetime | None = None


async def enforce_hours(
    cc: CallCenter,
    storage: Storage,
    team_id: str,
    rules: CallingRules,
    campaigns: list[Campaign],
    now: datetime,
) -> list[Switch]:
    """Pause the running advertising campaigns whose hours closed, start those the
    rules paused whose hours opened; what was done (by this process alone)."""
    here = now.astimezone(VIETNAM)
    paused = await off_loop(storage.rule_watch.paused, team_id)
    done: list[Switch] = []
    for campaign in campaigns:
        uuid = campaign.campaign_uuid
        if uuid in paused or campaign.status != "start" or not is_advertising(campaign, rules):
            continue
        window = rules.hours_of(uuid)
        edge = boundary(window, here)
        if edge is None or edge[0] != PAUSE:
            continue
        if await _switch(cc, storage, team_id, campaign, PAUSE, edge[1], window):
            await off_loop(
                storage.rule_watch.remember_paused,
                team_id,
                uuid,
                campaign.campaign_name,
                edge[1],
            )
            done.append(Switch(campaign, PAUSE, window, here))
    by_uuid = {c.campaign_uuid: c for c in campaigns}
    for uuid, was in paused.items():
        found = by_uuid.get(uuid)
        if found is None or found.status != "pause":
            # Gone, or started or stopped by a person since: not the rules' to start.
            await off_loop(storage.rule_watch.forget_paused, team_id, uuid)
            continue
        window = rules.hours_of(uuid)
        edge = boundary(window, here)
        if is_advertising(found, rules) and edge is not None and edge[0] == PAUSE:
            continue  # still shut
        slot = f"{edge[1] if edge else 'always'} after {was.slot}"
        if await _switch(cc, storage, team_id, found, START, slot, window):
            await off_loop(storage.rule_watch.forget_paused, team_id, uuid)
            paused_at = datetime.fromtimestamp(was.paused_at, VIETNAM)
            done.append(Switch(found, START, window, here, paused_at))
    return done


async def _switch(
    cc: CallCenter,
    storage: Storage,
    team_id: str,
    campaign: Campaign,
    action: str,
    slot: str,
    window: Window,
) -> bool:
    """Claim the slot, change the campaign, audit it; whether this process did it."""
    uuid = campaign.campaign_uuid
    if not await off_loop(storage.rule_watch.claim_slot, team_id, uuid, action, slot):
        return False
    params = {
        "campaign_uuid": uuid,
        "campaign_name": campaign.campaign_name,
        "requested_by": "the rules",
        "hours": window_words(window),
        "slot": slot,
    }
    try:
        await cc.campaigns.set_status(uuid, action)
    except CallCenterError as exc:
        # Left for the next minute to try again (it reads the campaign's status first).
        await off_loop(storage.rule_watch.release_slot, team_id, uuid, action, slot)
        await off_loop(
            storage.audit.append,
            team_id,
            RULES_REQUESTER,
            f"campaign.{action}",
            params,
            outcome="failed",
            detail=type(exc).__name__,
        )
        log.warning("rules enforce: %s of a campaign failed (%s)", action, type(exc).__name__)
        return False
    await off_loop(storage.audit.append, team_id, RULES_REQUESTER, f"campaign.{action}", params)
    return True


def announcement(switch: Switch) -> Reply:
    """What the rules channel reads of a pause or a start (for its readers)."""
    name = campaign_label(switch.campaign.campaign_name)
    window = window_words(switch.window)
    if switch.action == PAUSE:
        text = _(
            ":double_vertical_bar: Paused *{campaign}*: advertising calls are allowed {window} "
            "Vietnam time ({decree}) and it was dialing at {time}. The rules start it again "
            "at {start}, when the hours open."
        ).format(
            campaign=name,
            window=window,
            decree=_(DECREE),
            time=switch.at.strftime("%H:%M"),
            start=clock(switch.window[0]),
        )
    else:
        since = switch.paused_at.strftime("%d/%m %H:%M") if switch.paused_at else "?"
        text = _(
            ":arrow_forward: Started *{campaign}* again: the calling hours {window} Vietnam "
            "time are open. The rules paused it at {since}."
        ).format(campaign=name, window=window, since=since)
    return Reply(text=text, blocks=[section(text)], ephemeral=False)
