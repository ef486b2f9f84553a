"""``campaigns [type]`` and ``campaign <name>``: the list and the campaign card.

The card shows the campaign's lead list (its documented ``default_list_uuid``, read with
``GET /v3/list/{uuid}``) so the list's UUID, totals and actions are where people look
for them.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ConfirmObject,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)

from callcenter import CallCenter, errors
from callcenter.models import AutodialerStats, Campaign, CampaignRow, LeadList, Schedule
from commands.kernel.call_words import status_words
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError, join_words, replace_run
from commands.kernel.i18n import N_, Language, _, current_language, ngettext
from commands.kernel.interactions import OPEN_CAMPAIGN, Click
from commands.kernel.matching import fold, suggest
from commands.kernel.paging import pager, showing
from commands.kernel.periods import WEEKDAY_SHORT, WEEKDAYS
from commands.kernel.reply import Outcome, Reply, Rerun, context_line, header, section
from commands.kernel.resolve import (
    AmbiguousCampaign,
    CampaignMatch,
    all_campaigns,
    find_campaign,
)
from commands.kernel.service_words import autocall_kind_words, campaign_type_words
from commands.kernel.tables import BUTTONS_PER_ROW, Column, RowButton, row_buttons, table
from commands.kernel.text import (
    clip,
    code,
    day_time,
    escape,
    mode_label,
    number,
    percent,
    status_label,
    status_word,
    truncate,
)
from commands.kernel.values import command_text, token
from commands.leads.lists import campaign_list_blocks
from commands.rules.card import rules_blocks
from storage import Role
from storage.offload import off_loop

CAMPAIGN_TYPES = ("autocall", "autodialer", "inbound", "manual")
PAGE_SIZE = 10
OPEN_ACTION = OPEN_CAMPAIGN
CHOOSE_ACTION = "campaign_choose"
REFRESH_ACTION = "campaign_refresh"

DAYS = WEEKDAYS
DAY_SHORT = WEEKDAY_SHORT
LIST_TITLES = {
    None: N_("Campaigns"),
    "autocall": N_("Autocall campaigns"),
    "autodialer": N_("Autodialer campaigns"),
    "inbound": N_("Inbound campaigns"),
    "manual": N_("Manual campaigns"),
}
NANOS_PER_MINUTE = 60 * 1_000_000_000


TABLE_COLUMNS = (
    Column(N_("Campaign")),
    Column(N_("Type")),
    Column(N_("Status")),
    Column(N_("Mode")),
    Column(N_("Concurrent"), "right"),
)
"""The listing's columns; their titles are translated when a table is made."""


def campaign_table(page: Sequence[CampaignRow]) -> list[Block]:
    """The page as a table, with its Open buttons under it (a cell holds no button)."""
    rows = [
        [
            c.campaign_name,
            campaign_type_words(c.type),
            status_word(c.status),
            mode_label(c.mode_call),
            number(c.concurrent_call),
        ]
        for c in page
    ]
    block = table(TABLE_COLUMNS, rows)
    if block is None:  # an empty page (a page always fits one table)
        return []
    opens: list[Block] = [
        row_buttons(
            f"open:{start}",
            [
                RowButton(
                    _("Open {name}").format(name=c.campaign_name),
                    f"{OPEN_ACTION}_{i}",
                    c.campaign_uuid,
                )
                for i, c in enumerate(page[start : start + BUTTONS_PER_ROW], start=start)
            ],
        )
        for start in range(0, len(page), BUTTONS_PER_ROW)
    ]
    return [block, *opens]


def campaigns_reply(
    campaigns: Sequence[CampaignRow], *, kind: str | None, offset: int, command: str
) -> Reply:
    total = len(campaigns)
    page = list(campaigns[offset : offset + PAGE_SIZE])
    title = _(LIST_TITLES.get(kind) or LIST_TITLES[None])
    counts = Counter(c.status for c in campaigns)
    summary = " · ".join(f"{status_label(s)} {n}" for s, n in sorted(counts.items()))
    blocks: list[Block] = [header(title)]
    if summary:
        blocks.append(context_line(summary))
    blocks.extend(campaign_table(page))
    blocks.append(showing(offset, len(page), total, one=N_("campaign"), many=N_("campaigns")))
    blocks.extend(pager(command, offset, PAGE_SIZE, total))
    return Reply(text=f"{title}: {total}", blocks=blocks)


async def list_campaigns(ctx: CommandContext, args: list[str]) -> Reply:
    kind: str | None = None
    if args:
        kind = fold(args[0])
        if kind not in CAMPAIGN_TYPES or len(args) > 1:
            near = suggest(args[0], CAMPAIGN_TYPES, limit=1)
            types = ", ".join(CAMPAIGN_TYPES)
            message = (
                _(
                    "'{typed}' is not a campaign type. Did you mean `campaigns {near}`? "
                    "Use one of {types}; for one campaign, `campaign <name>`."
                ).format(typed=args[0], near=near[0], types=types)
                if near
                else _(
                    "'{typed}' is not a campaign type. Use one of {types}; "
                    "for one campaign, `campaign <name>`."
                ).format(typed=args[0], types=types)
            )
            raise UsageError(message, "campaigns [autocall|autodialer|inbound|manual]")
    cc = ctx.client()
    campaigns = await cc.campaigns.list_all(type=kind)
    command = "campaigns" + (f" {kind}" if kind else "")
    return listing(campaigns, kind=kind, offset=ctx.offset, command=command)


def listing(
    campaigns: Sequence[CampaignRow], *, kind: str | None, offset: int, command: str
) -> Reply:
    """The listing of ``campaigns``, started ones first, then by name.  The service sends
    the same rows on every ``/callops campaigns`` until someone edits a campaign, so the
    reply is made once for the same rows (frozen, compared by value), page and language:
    sorting and writing sixty rows was most of the command's own work.  Each caller gets
    a reply of its own around the same blocks, which are never changed (``reply.once``)."""
    made = _listing(tuple(campaigns), kind, offset, command, current_language())
    return replace(made, blocks=list(made.blocks))


@lru_cache(maxsize=64)
def _listing(
    campaigns: tuple[CampaignRow, ...],
    kind: str | None,
    offset: int,
    command: str,
    language: Language,
) -> Reply:
    """``language`` is the reader's (the one ``_`` uses): part of the cache's key."""
    ordered = sorted(campaigns, key=lambda c: (c.status != "start", c.campaign_name.casefold()))
    return campaigns_reply(ordered, kind=kind, offset=offset, command=command)


def _window(schedule: Schedule) -> list[str]:
    """Group weekdays that share a dialing window: ``Mon–Fri 08:00–17:30``."""

    def hhmm(nanos: int) -> str:
        minutes = nanos // NANOS_PER_MINUTE
        return f"{minutes // 60:02d}:{minutes % 60:02d}"

    spans: list[tuple[list[str], str]] = []
    for day in DAYS:
        start = int(getattr(schedule, f"{day}_start_time"))
        end = int(getattr(schedule, f"{day}_end_time"))
        if start == 0 and end == 0:
            continue
        window = f"{hhmm(start)}–{hhmm(end)}"
        if spans and spans[-1][1] == window and DAYS.index(spans[-1][0][-1]) == DAYS.index(day) - 1:
            spans[-1][0].append(day)
        else:
            spans.append(([day], window))
    lines = []
    for days, window in spans:
        first, last = _(DAY_SHORT[days[0]]), _(DAY_SHORT[days[-1]])
        label = first if len(days) == 1 else f"{first}–{last}"
        lines.append(f"{label} {window}")
    return lines


def _hhmm(text: str) -> str:
    """``08:00:00`` as ``08:00`` (seconds only when they are not zero)."""
    value = text.strip()
    return escape(value[:-3] if len(value) == 8 and value.endswith(":00") else value)


def dialing_hours(c: Campaign) -> list[str]:
    """The campaign's two kinds of hours, each said for what it is.  The service keeps a
    daily window (``local_start_time``–``local_end_time``) and a weekly schedule
    (``schedules``); its interface does not say how the two combine, so the card names
    both and says that, rather than guess which one applies."""
    weekly = [w for s in (c.schedules or []) for w in _window(s)]
    daily = None
    if c.local_start_time.strip() or c.local_end_time.strip():
        daily = _("Every day {start}–{end} (the campaign's local start and end time)").format(
            start=_hhmm(c.local_start_time) or "–", end=_hhmm(c.local_end_time) or "–"
        )
    lines: list[str] = []
    if daily:
        lines.append(daily)
    if weekly:
        lines.append(_("Weekly schedule: {days}").format(days=" · ".join(weekly)))
    if daily and weekly:
        lines.append(
            _(
                "_The service keeps both; its interface does not say which one applies "
                "when they differ._"
            )
        )
    return lines


def _recall(c: Campaign) -> str:
    if not c.recall_times:
        return _("no redial")
    statuses = ", ".join(escape(status_words(s).lower()) for s in (c.recall_status or []))
    statuses = statuses or _("any status")
    wait = (
        _("after {minutes} min").format(minutes=c.schedule_recall_duration)
        if c.schedule_recall_duration
        else escape(c.schedule_recall or "")
    )
    return (
        _("{times}× on {statuses} {wait}")
        .format(times=c.recall_times, statuses=statuses, wait=wait)
        .strip()
    )


def _stats_fields(stats: AutodialerStats, minutes: int) -> list[MarkdownTextObject]:
    pairs = [
        (
            _("Leads"),
            _("{total} ({in_progress} in progress)").format(
                total=number(stats.total_leads), in_progress=number(stats.leads_in_progress)
            ),
        ),
        (
            ngettext("Calls (last {n} minute)", "Calls (last {n} minutes)", minutes).format(
                n=number(minutes)
            ),
            number(stats.total_calls),
        ),
        (_("Connection rate"), percent(stats.customer_connection_rate)),
        (_("Dropped rate"), percent(stats.dropped_call_rate)),
        (
            _("Agents"),
            _("{ready} ready · {paused} paused · {in_call} in call").format(
                ready=stats.agents_ready, paused=stats.agents_pause, in_call=stats.agents_in_call
            ),
        ),
        (_("Last call"), "–"),
    ]
    return [MarkdownTextObject(text=f"*{k}*\n{v}") for k, v in pairs]


def campaign_card(
    c: Campaign,
    stats: AutodialerStats | None,
    ctx: CommandContext,
    *,
    window_minutes: int,
    lead_list: LeadList | None = None,
    list_missing: str | None = None,
    calling_rules: list[Block] | None = None,
) -> Reply:
    template = escape(c.template_name) or "–"
    carrier = escape(c.carrier_name) or "–"
    concurrency = ngettext(
        "{n} call · ratio {ratio}", "{n} calls · ratio {ratio}", c.concurrent_call
    )
    fields = [
        (
            _("Type"),
            escape(campaign_type_words(c.type))
            + (f" ({escape(autocall_kind_words(c.type_autocall))})" if c.type_autocall else ""),
        ),
        (_("Status"), status_label(c.status)),
        (_("Mode"), mode_label(c.mode_call)),
        (_("Concurrency"), concurrency.format(n=number(c.concurrent_call), ratio=c.ratio)),
        (_("Template"), template),
        (_("Carrier"), carrier),
        (_("Redial"), _recall(c)),
        (
            _("Call timeout"),
            _("{seconds}s").format(seconds=c.call_timeout) if c.call_timeout else "–",
        ),
    ]
    blocks: list[Block] = [HeaderBlock(text=truncate(c.campaign_name, 150))]
    if c.description:
        blocks.append(section(escape(c.description)))
    blocks.append(
        SectionBlock(
            fields=[MarkdownTextObject(text=f"*{k}*\n{truncate(v, 1900)}") for k, v in fields]
        )
    )
    hours = dialing_hours(c)
    if hours:
        blocks.append(section("*" + _("Dialing hours") + "*\n" + truncate("\n".join(hours), 2900)))
    blocks.extend(calling_rules or [])
    if stats is not None:
        fields_stats = _stats_fields(stats, window_minutes)
        fields_stats[-1] = MarkdownTextObject(
            text="*" + _("Last call") + f"*\n{day_time(stats.last_call_time, ctx.tz)}"
        )
        blocks.append(DividerBlock())
        blocks.append(
            context_line(
                ngettext(
                    "Live statistics, last {n} minute",
                    "Live statistics, last {n} minutes",
                    window_minutes,
                ).format(n=number(window_minutes))
            )
        )
        blocks.append(SectionBlock(fields=fields_stats))
    blocks.append(DividerBlock())
    blocks.extend(campaign_list_blocks(c.campaign_uuid, lead_list, ctx.role, missing=list_missing))
    blocks.append(DividerBlock())
    blocks.append(control_buttons(c, ctx.role))
    blocks.append(
        context_line(
            _("Campaign last changed {time} · `{uuid}`").format(
                time=day_time(c.updated_at, ctx.tz), uuid=escape(c.campaign_uuid)
            )
        )
    )
    return Reply(
        text=_("Campaign {name}: {status}").format(
            name=escape(c.campaign_name), status=status_word(c.status)
        ),
        blocks=blocks,
    )


CONTROL_ACTION = "campaign_control"
"""Start/Pause/Stop buttons are ``campaign_control_<status>``; each asks for a confirm."""
CONTROL_ROLE = Role.OPERATOR
"""The least role whose card shows the switches (and whose click on one is run)."""


SWITCH_QUESTION = {
    "start": N_("Start {name}?"),
    "pause": N_("Pause {name}?"),
    "stop": N_("Stop {name}?"),
}
SWITCH_EFFECT = {
    "start": N_(
        "It starts dialing its leads. If your workspace asks for an approval, an approver "
        "decides first."
    ),
    "pause": N_("It stops placing new calls; calls in progress finish."),
    "stop": N_("It stops dialing; starting it again begins a new run."),
}


def _switch_confirm(c: Campaign, status: str, label: str) -> ConfirmObject:
    """Slack's dialog before a switch acts: confirming it is the requester's confirm."""
    return ConfirmObject(
        title=truncate(_(SWITCH_QUESTION[status]).format(name=c.campaign_name), 100),
        text=truncate(_(SWITCH_EFFECT[status]), 300),
        confirm=label,
        deny=_("Cancel"),
        style="danger" if status == "stop" else "primary",
    )


def control_buttons(c: Campaign, role: Role) -> ActionsBlock:
    """The switches that make sense from the campaign's state, for a person whose role
    may use them (a viewer's card has none: a button that can only refuse is noise),
    then Refresh (re-reads the card in place).  Each switch asks in Slack's confirm
    dialog; the click then acts and redraws the card (``commands.campaigns.switch``)."""
    running = c.status in ("start", "running")
    switches: list[tuple[str, str, str | None]] = []
    if not running:
        switches.append(("start", _("Start"), "primary"))
    if running:
        switches.append(("pause", _("Pause"), None))
    if c.status != "stop":
        switches.append(("stop", _("Stop"), "danger"))
    if not role.at_least(CONTROL_ROLE):
        switches = []
    elements = [
        ButtonElement(
            text=label,
            action_id=f"{CONTROL_ACTION}_{status}",
            value=c.campaign_uuid,
            style=style,
            confirm=_switch_confirm(c, status, label),
        )
        for status, label, style in switches
    ]
    refresh = ButtonElement(text=_("Refresh"), action_id=REFRESH_ACTION, value=c.campaign_uuid)
    return ActionsBlock(block_id=f"controls:{c.campaign_uuid}", elements=[*elements, refresh])


BUTTON_VALUE_LIMIT = 2000
"""Slack's limit on a button's value, which carries the command to re-run."""
CHOICES_SHOWN = 20


def ambiguous_reply(exc: AmbiguousCampaign, typed: Sequence[str]) -> Reply:
    """Offer the candidates as buttons; a click runs the command as it was typed
    (``typed``: its words, phone and values included) with the chosen campaign's UUID
    in place of the name.  When that cannot ride on a button (too long for Slack, or the
    name's words were not typed together) the names are listed instead."""
    shown = exc.candidates[:CHOICES_SHOWN]
    query = escape(exc.query)
    headline = (
        _("No campaign is called *{query}*. Did you mean one of these?")
        if exc.guessed
        else _("Several campaigns match *{query}*. Which one?")
    ).format(query=query)
    commands = [_with_campaign(typed, exc.query, c.campaign_uuid) for c in shown]
    if any(command is None or len(command) > BUTTON_VALUE_LIMIT for command in commands):
        names = "\n".join(f"• {clip(c.campaign_name, 150)}" for c in shown)
        cannot = _(
            "I cannot put this command on a button: type it again "
            "with the whole name (or the UUID)."
        )
        text = f"{headline}\n{names}\n{cannot}"
        return Reply(text=headline, blocks=[section(text)])
    blocks: list[Block] = [section(headline)]
    for start in range(0, len(shown), 5):
        blocks.append(
            ActionsBlock(
                elements=[
                    ButtonElement(
                        text=truncate(c.campaign_name, 75),
                        action_id=f"{CHOOSE_ACTION}_{i}",
                        value=str(commands[i]),
                    )
                    for i, c in enumerate(shown[start : start + 5], start=start)
                ]
            )
        )
    if len(exc.candidates) > len(shown):
        blocks.append(
            showing(0, len(shown), len(exc.candidates), one=N_("match"), many=N_("matches"))
        )
    return Reply(
        text=_("Which campaign did you mean by {query}?").format(query=query), blocks=blocks
    )


def _with_campaign(typed: Sequence[str], query: str, uuid: str) -> str | None:
    """The typed command with the words that named the campaign replaced by ``uuid``;
    None when no run of typed words spells the name."""
    replaced = replace_run(typed, query, uuid)
    return None if replaced is None else join_words(replaced)


def guess_note(matches: Sequence[CampaignMatch]) -> ContextBlock | None:
    """Says which campaign a typo was taken for, so a wrong guess is seen at once."""
    guessed = [m for m in matches if m.guessed]
    if not guessed:
        return None
    said = "; ".join(
        _("“{typed}” matched “{name}”").format(
            typed=clip(m.query, 80), name=clip(m.campaign.campaign_name, 120)
        )
        for m in guessed
    )
    return context_line(truncate(f":mag: {said}", 3000))


AUTODIALER_WINDOW_MINUTES = 60


async def show_campaign(ctx: CommandContext, args: list[str]) -> Reply:
    if not args:
        raise UsageError(
            _("Which campaign? Give its name, the start of its name, or its UUID."),
            "campaign <name>",
        )
    cc = ctx.client()
    found = find_campaign(await all_campaigns(cc), " ".join(args), take_guess=True)
    campaign = found.campaign
    stats, (lead_list, missing) = await asyncio.gather(
        _stats(cc, campaign), _lead_list(cc, campaign)
    )
    rules = await off_loop(ctx.storage.calling_rules.rules, ctx.team_id)
    card = campaign_card(
        campaign,
        stats,
        ctx,
        window_minutes=AUTODIALER_WINDOW_MINUTES,
        lead_list=lead_list,
        list_missing=missing,
        calling_rules=rules_blocks(campaign, rules, ctx.role) if rules is not None else None,
    )
    note = guess_note([found])
    if note is not None:
        card.blocks.insert(1, note)
    return card


async def _stats(cc: CallCenter, campaign: Campaign) -> AutodialerStats | None:
    if campaign.type not in ("autodialer", "autocall"):
        return None
    page = await cc.reports.autodialer(
        interval=AUTODIALER_WINDOW_MINUTES, campaign_uuids=[campaign.campaign_uuid]
    )
    return next((s for s in page.data if s.campaign_uuid == campaign.campaign_uuid), None)


async def _lead_list(cc: CallCenter, campaign: Campaign) -> tuple[LeadList | None, str | None]:
    """The campaign's default list, or why the card shows none.  A list that cannot be
    read is said so on the card instead of failing the whole card."""
    uuid = campaign.default_list_uuid
    if not uuid:
        return None, _("None: the service names no default list for this campaign.")
    try:
        return await cc.lists.get(uuid), None
    except errors.NotFoundError:
        return None, _("Its list {uuid} no longer exists.").format(uuid=code(uuid))
    except errors.CallCenterError:
        return None, _(":warning: The list {uuid} could not be read just now.").format(
            uuid=code(uuid)
        )


async def open_clicked(ctx: CommandContext, click: Click) -> Outcome:
    """Open (a listing, a digest, an alert): the campaign's card, as a new message."""
    return Rerun(f"campaign {token(click.value)}", replace_original=False)


async def refresh_clicked(ctx: CommandContext, click: Click) -> Outcome:
    return Rerun(f"campaign {token(click.value)}")


async def choose_clicked(ctx: CommandContext, click: Click) -> Outcome:
    """One of "Which one?"'s buttons: the command it carries, now with one campaign."""
    return Rerun(command_text(click.value))
