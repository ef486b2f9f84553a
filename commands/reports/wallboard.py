"""App Home as a wallboard: the call center at a glance, for a supervisor's second screen.

The wallboard is republished on every ``app_home_opened`` and Refresh click, so it has to
be quick and it must never come up blank: the five service reads it needs (campaigns,
autodialer statistics, live calls, the user directory, today's counters) run
concurrently, each under its own deadline, and a read that fails turns only its own
section into an "unavailable" line that says why.  Every number is one of
``commands.reports.figures`` and each section names its scope and period, so the
wallboard agrees with ``stats``, the digests and the service's records.  Everything the
service sends is escaped before it reaches mrkdwn.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Awaitable, Sequence
from dataclasses import KW_ONLY, dataclass
from datetime import UTC, datetime
from typing import TypeVar
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)
from slack_sdk.models.views import View

from callcenter import CallCenter, errors
from callcenter.models import ActiveCall, ActiveCallList, Campaign, User
from commands.admin.connection import HOME_CONNECT_ACTION
from commands.calls.live import direction_label, state_label
from commands.kernel.catalog import role_allows
from commands.kernel.context import CommandContext
from commands.kernel.failures import describe_failure
from commands.kernel.i18n import _
from commands.kernel.interactions import Click, Shortcut
from commands.kernel.modals import modal
from commands.kernel.periods import Window, parse_period, zone_of
from commands.kernel.phones import show_parties
from commands.kernel.reply import (
    SECTION_TEXT_LIMIT,
    OpenModal,
    Outcome,
    PublishHome,
    UpdateModal,
    context_line,
    labelled,
    section,
)
from commands.kernel.resolve import all_campaigns, all_users
from commands.kernel.service_words import campaign_type_words
from commands.kernel.text import (
    campaign_label,
    caption,
    clip,
    duration,
    mode_label,
    number,
    parse_service_time,
    percent,
    status_label,
    truncate,
)
from commands.reports.figures import (
    ALL_DIALER,
    RUNNING,
    CallFigures,
    DialerFigures,
    Scope,
    agent_figures,
    call_figures,
    dialer_figures,
    live_figures,
)
from commands.reports.insights import INSIGHTS_TZ, Insights, gather_insights, insights_blocks
from commands.reports.stats import dialer_line
from storage import Role

REFRESH_ACTION = "home_refresh"
WINDOW_MINUTES = 60
"""The autodialer statistics window behind the connection and dropped-call rates."""
MAX_CAMPAIGN_ROWS = 20
MAX_CALL_ROWS = 8
SECTION_TIMEOUT = 20.0
"""Seconds one section may take (the client's own retries included) before it is shown
as unavailable, so one slow endpoint cannot hold back the whole wallboard."""
MAX_VIEW_BLOCKS = 100

_ACTIVE = (*RUNNING, "pause")
_STATUS_ORDER = ("start", "pause", "stop")

T = TypeVar("T")


@dataclass(frozen=True)
class Unavailable:
    """A section whose service read failed; ``reason`` is escaped mrkdwn, in words."""

    reason: str
    _: KW_ONLY
    refused: bool = False
    """The service refused the API key: the whole connection is in question."""


@dataclass(frozen=True)
class Snapshot:
    """What the service said, section by section, at one moment."""

    campaigns: list[Campaign] | Unavailable
    dialer: list[DialerFigures] | Unavailable
    calls: ActiveCallList | Unavailable
    users: list[User] | Unavailable
    """The directory: whose extension is on which live call."""
    today: CallFigures | Unavailable
    """Today in the workspace's zone: local midnight until ``now``."""
    now: datetime
    """On the workspace's clock."""
    insights: Insights | Unavailable | None = None
    """Today against the usual levels (the Home tab's insights tile); None: not read."""

    @property
    def moment(self) -> Window:
        """The live sections' window: this one moment."""
        return Window.instant(self.now, zone_of(self.now))


# --- reading ------------------------------------------------------------------------------


async def _guarded(work: Awaitable[T], seconds: float) -> T | Unavailable:
    try:
        async with asyncio.timeout(seconds):
            return await work
    except errors.CallCenterError as exc:
        words = describe_failure(exc)
        return Unavailable(words.inline, refused=words.key_refused)
    except TimeoutError:
        return Unavailable(
            _("the call-center service gave no answer within {seconds}s").format(
                seconds=f"{seconds:g}"
            )
        )


async def snapshot(
    ctx: CommandContext, *, now: datetime | None = None, section_seconds: float = SECTION_TIMEOUT
) -> Snapshot:
    """Read every section at once; a failed read becomes ``Unavailable``, never an error."""
    cc = ctx.client()
    moment = (now or datetime.now(UTC)).astimezone(ctx.tz).replace(microsecond=0)
    today = parse_period("today", ctx.tz, now=moment).window()
    campaigns, dialer, calls, users, counted, insight = await asyncio.gather(
        _guarded(all_campaigns(cc), section_seconds),
        _guarded(dialer_figures(cc, WINDOW_MINUTES, at=moment, tz=ctx.tz), section_seconds),
        _guarded(cc.calls.list(), section_seconds),
        _guarded(all_users(cc), section_seconds),
        _guarded(call_figures(cc, Scope(), today), section_seconds),
        _guarded(_insights(cc, moment), section_seconds),
    )
    return Snapshot(
        campaigns=campaigns,
        dialer=dialer,
        calls=calls,
        users=users,
        today=counted,
        now=moment,
        insights=insight,
    )


async def _insights(cc: CallCenter, moment: datetime) -> Insights:
    """Today (Vietnam's) of the whole call center against the usual levels learned
    already (by ``insights`` or a digest): the Home tab stays quick and never walks four
    weeks of records itself."""
    return await gather_insights(cc, moment.astimezone(INSIGHTS_TZ).date(), now=moment, learn=False)


# --- rendering ----------------------------------------------------------------------------


def _context(text: str) -> ContextBlock:
    return context_line(truncate(text, SECTION_TEXT_LIMIT))


def _unavailable(message: str, failure: Unavailable) -> SectionBlock:
    """A section that could not be read: ``message`` (translated) has ``{reason}``."""
    return section(message.format(reason=failure.reason))


def shown_url(url: str) -> str:
    """The service's address without anything secret a URL can carry (user info, query,
    fragment), escaped for mrkdwn."""
    parts = urlsplit(url.strip())
    if not parts.scheme or not parts.netloc:
        return clip(url.split("?", 1)[0].split("#", 1)[0].rpartition("@")[2], 200)
    host = parts.netloc.rpartition("@")[2]
    return clip(f"{parts.scheme}://{host}{parts.path}".rstrip("/"), 200)


def _connection(snap: Snapshot, base: str) -> SectionBlock:
    failures = [
        part
        for part in (snap.campaigns, snap.dialer, snap.calls, snap.users, snap.today)
        if isinstance(part, Unavailable)
    ]
    refused = next((f for f in failures if f.refused), None)
    if refused is not None:
        text = f":red_circle: *{base}*: {refused.reason}."
    elif len(failures) == 5:
        text = f":red_circle: *{base}*: {failures[0].reason}."
    elif failures:
        text = _(
            ":large_yellow_circle: Connected to *{base}*; some figures are unavailable below."
        ).format(base=base)
    else:
        text = _(":large_green_circle: Connected to *{base}*").format(base=base)
    return section(text)


def _status_counts(campaigns: Sequence[Campaign]) -> str:
    counts = Counter(c.status for c in campaigns)
    order = [*_STATUS_ORDER, *sorted(s for s in counts if s not in _STATUS_ORDER)]
    parts = [f"{status_label(s)} *{number(counts.get(s, 0))}*" for s in order]
    return " · ".join(parts)


def _campaign_row(
    c: Campaign, stats: DialerFigures | None, tz: ZoneInfo, *, dialer_down: bool
) -> SectionBlock:
    head = f"*{campaign_label(c.campaign_name)}* {clip(campaign_type_words(c.type), 30)} · " + (
        status_label(c.status)
    )
    if stats is not None:
        detail = dialer_line(stats, tz)
    elif c.type == "autodialer":
        detail = _("rates unavailable") if dialer_down else _("no dialer figures yet")
    else:
        mode = mode_label(c.mode_call)
        detail = _("{mode} · {n} concurrent").format(mode=mode, n=number(c.concurrent_call))
    return section(f"{head}\n{detail}")


def _campaign_blocks(snap: Snapshot, tz: ZoneInfo) -> list[Block]:
    if isinstance(snap.campaigns, Unavailable):
        return [_unavailable(_(":warning: *Campaigns unavailable*: {reason}."), snap.campaigns)]
    campaigns = snap.campaigns
    blocks: list[Block] = [section(_("*Campaigns*") + f"\n{_status_counts(campaigns)}")]
    if isinstance(snap.dialer, Unavailable):
        blocks.append(
            _context(
                _(":warning: Dialer rates unavailable: {reason}.").format(reason=snap.dialer.reason)
            )
        )
    else:
        window = Window.back_from(snap.now, WINDOW_MINUTES, tz)
        blocks.append(
            _context(
                _(
                    ":calendar: Dialer figures: {scope}; "
                    "leads in progress and agents at this moment"
                ).format(scope=caption(_(ALL_DIALER), window.label()))
            )
        )
    active = sorted(
        (c for c in campaigns if c.status in _ACTIVE),
        key=lambda c: (c.status not in RUNNING, c.campaign_name.casefold()),
    )
    if not active:
        blocks.append(_context(_(":zzz: No campaign is running or paused.")))
        return blocks
    down = isinstance(snap.dialer, Unavailable)
    dialer = [] if isinstance(snap.dialer, Unavailable) else snap.dialer
    stats = {s.campaign_uuid: s for s in dialer if s.campaign_uuid}
    shown = active[:MAX_CAMPAIGN_ROWS]
    blocks.extend(_campaign_row(c, stats.get(c.campaign_uuid), tz, dialer_down=down) for c in shown)
    if len(shown) < len(active):
        blocks.append(
            _context(
                _(
                    "Showing {shown} of {n} running and paused campaigns; "
                    "`/callops campaigns` lists them all."
                ).format(shown=len(shown), n=number(len(active)))
            )
        )
    return blocks


def _call_line(call: ActiveCall, now: datetime) -> str:
    started = parse_service_time(call.created_time)
    elapsed = duration((now - started).total_seconds()) if started else "–"
    shown = show_parties(call.source, call.destination, call.direction)
    source = clip(shown[0], 60) or _("unknown")
    destination = clip(shown[1], 60) or _("unknown")
    return (
        f"*{source}* → *{destination}* · {direction_label(call.direction)} · "
        f"{state_label(call.state)} · :stopwatch: {elapsed}"
    )


def _call_blocks(snap: Snapshot) -> list[Block]:
    if isinstance(snap.calls, Unavailable):
        return [_unavailable(_(":warning: *Live calls unavailable*: {reason}."), snap.calls)]
    live = live_figures(snap.calls, snap.moment)
    where = _context(f":calendar: {live.caption()}")
    if live.calls == 0:
        return [section(_("*Live calls*\n:telephone_receiver: No live calls right now.")), where]
    split = " · ".join(f"{direction_label(d)} {number(n)}" for d, n in live.by_direction)
    on_line = _("*Live calls* · *{n}* on the line").format(n=number(live.calls))
    blocks: list[Block] = [
        section(on_line + (f"\n{split}" if split else "")),
        where,
    ]
    calls = sorted(snap.calls.data, key=lambda c: c.created_time)
    shown = calls[:MAX_CALL_ROWS]
    if shown:
        blocks.append(section("\n".join(_call_line(c, snap.now) for c in shown)))
    if len(shown) < live.calls:
        blocks.append(
            _context(
                _(
                    "Showing the {shown} longest of {n} live calls; "
                    "`/callops calls` lists them all with Transfer buttons."
                ).format(shown=len(shown), n=number(live.calls))
            )
        )
    return blocks


def _agent_blocks(snap: Snapshot) -> list[Block]:
    unavailable = _(":warning: *Agents unavailable*: {reason}.")
    if isinstance(snap.users, Unavailable):
        return [_unavailable(unavailable, snap.users)]
    if isinstance(snap.calls, Unavailable):
        return [_unavailable(unavailable, snap.calls)]
    agents = agent_figures(snap.users, snap.calls.data, snap.moment)
    return [
        SectionBlock(
            text=MarkdownTextObject(text=_("*Agents*")),
            fields=labelled(
                [
                    (_(":large_green_circle: Logged in"), number(agents.logged_in)),
                    (_(":telephone_receiver: In call"), number(agents.in_call)),
                    (_(":white_circle: Free"), number(agents.free)),
                    (_(":busts_in_silhouette: With an extension"), number(agents.staffed)),
                ]
            ),
        ),
        _context(
            _(
                ":calendar: {scope} · each person counted once; ready and paused "
                "are per campaign, on the campaign rows"
            ).format(scope=agents.caption())
        ),
    ]


def _today_blocks(snap: Snapshot) -> list[Block]:
    if isinstance(snap.today, Unavailable):
        return [_unavailable(_(":warning: *Today's totals unavailable*: {reason}."), snap.today)]
    figures = snap.today
    t = figures.totals
    where = _context(f":calendar: {figures.caption()}")
    if t.calls == 0:
        return [section(_("*Today*\n:zzz: No calls yet today.")), where]
    pairs = [
        (_(":phone: Calls"), number(t.calls)),
        (_(":white_check_mark: Answered"), f"{number(t.answered)} ({percent(t.answer_rate)})"),
        (_(":no_entry: Busy"), number(t.busy)),
        (_(":no_entry_sign: Line busy"), number(t.line_busy)),
        (_(":hourglass: No answer"), number(t.no_answer)),
        (_(":speech_balloon: Talk time"), duration(t.talk_seconds)),
    ]
    today = MarkdownTextObject(text=_("*Today*"))
    return [SectionBlock(text=today, fields=labelled(pairs)), where]


def _insights_blocks(snap: Snapshot) -> list[Block]:
    if isinstance(snap.insights, Unavailable):
        return insights_blocks(snap.insights.reason)
    return insights_blocks(snap.insights)


def wallboard_view(snap: Snapshot, ctx: CommandContext) -> View:
    """The wallboard for one snapshot (no service calls: render and test it on its own)."""
    base = shown_url(ctx.base_url or (ctx.cc.base_url if ctx.cc else "") or "")
    blocks: list[Block] = [
        HeaderBlock(text=_(":telephone_receiver: Call center wallboard")),
        _connection(snap, base or _("the call-center service")),
        DividerBlock(),
        *_campaign_blocks(snap, ctx.tz),
        DividerBlock(),
        *_call_blocks(snap),
        DividerBlock(),
        *_agent_blocks(snap),
        DividerBlock(),
        *_today_blocks(snap),
        *_insights_blocks(snap),
        DividerBlock(),
    ]
    footer: list[Block] = [
        _context(_("Updated {moment}").format(moment=snap.moment.label().removeprefix("now, "))),
        ActionsBlock(
            block_id="home_controls",
            elements=[ButtonElement(text=_("Refresh"), action_id=REFRESH_ACTION, value="refresh")],
        ),
    ]
    # The rows above are capped well under the limit; this keeps the footer whatever happens.
    blocks = blocks[: MAX_VIEW_BLOCKS - len(footer)] + footer
    return View(type="home", callback_id="callops_home", blocks=blocks)


async def wallboard(
    ctx: CommandContext, *, now: datetime | None = None, section_seconds: float = SECTION_TIMEOUT
) -> View:
    """App Home for a connected workspace; an unconnected one gets the welcome instead."""
    if ctx.cc is None:
        return not_connected_home(ctx.role)
    return wallboard_view(await snapshot(ctx, now=now, section_seconds=section_seconds), ctx)


def not_connected_home(role: Role) -> View:
    """What a workspace sees before an admin connects it to a call-center service."""
    blocks: list[Block] = [
        HeaderBlock(text=_(":wave: Welcome to callops")),
        section(
            _(
                "callops runs your call center from Slack:\n"
                "• start, pause and stop campaigns, with approvals for the risky steps\n"
                "• see live calls and transfer them, look up call records and statistics\n"
                "• scheduled digests and alerts in your channels\n"
                "• this tab becomes a live wallboard of campaigns, calls and agents"
            )
        ),
        DividerBlock(),
    ]
    if role_allows(role, Role.ADMIN):
        blocks.append(
            section(
                _(
                    ":electric_plug: This workspace is not connected to a call-center "
                    "service yet. Connect it with the service's URL and an API key; the key "
                    "is checked before it is saved, stored encrypted and never shown again."
                )
            )
        )
        blocks.append(
            ActionsBlock(
                block_id="home_controls",
                elements=[
                    ButtonElement(
                        text=_("Connect"),
                        action_id=HOME_CONNECT_ACTION,
                        value="connect",
                        style="primary",
                    )
                ],
            )
        )
    else:
        blocks.append(
            section(
                _(
                    ":electric_plug: This workspace is not connected to a call-center service "
                    "yet. Ask a callops admin to connect it (`/callops connect`)."
                )
            )
        )
    blocks.append(_context(_("Type `/callops help` in any channel to see every command.")))
    return View(type="home", callback_id="callops_home", blocks=blocks)


async def refresh_clicked(ctx: CommandContext, click: Click) -> Outcome:
    return PublishHome(await wallboard(ctx))


# --- the "Call-center status" shortcut: the wallboard in a modal, from anywhere --------

STATUS_SHORTCUT = "callcenter_status"
STATUS_CALLBACK = "callcenter_status"
STATUS_REFRESH_ACTION = "status_refresh"


def _status_modal(blocks: list[Block]) -> View:
    return modal(STATUS_CALLBACK, _("Call-center status"), blocks, close=_("Close"))


async def status_modal(ctx: CommandContext) -> View:
    """The wallboard as a modal: the same blocks as App Home, with the modal's own Refresh
    (the Home tab's buttons act on the Home tab)."""
    home = await wallboard(ctx)
    blocks = [
        b
        for b in home.blocks
        if not (isinstance(b, ActionsBlock) and b.block_id == "home_controls")
    ]
    if ctx.cc is not None:
        blocks.append(
            ActionsBlock(
                block_id="status_controls",
                elements=[
                    ButtonElement(
                        text=_("Refresh"), action_id=STATUS_REFRESH_ACTION, value="refresh"
                    )
                ],
            )
        )
    return _status_modal(blocks[:MAX_VIEW_BLOCKS])


async def status_shortcut(ctx: CommandContext, shortcut: Shortcut) -> Outcome:
    """Gathering the wallboard takes longer than a trigger id lives: open, then fill."""

    async def fill() -> View:
        return await status_modal(ctx)

    loading = _status_modal([section(_(":hourglass_flowing_sand: Asking the call center…"))])
    return OpenModal(loading, fill=fill)


async def status_refreshed(ctx: CommandContext, click: Click) -> Outcome:
    return UpdateModal(await status_modal(ctx))
