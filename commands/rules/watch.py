"""Watching what the service dials: ``rules channel``, calls placed against the rules, and
the warning when leads go into an advertising campaign dialing outside the hours.

callops guards the calls placed through it; the service's autodialer and autocall
campaigns dial on their own.  Their call records (by callback or by the listing) are
judged here against the calling rules of Decree 91/2020/ND-CP on Vietnam's clock: an
advertising call started outside the calling hours, to a number on the do-not-call list,
or beyond the calls one number may get in 24 hours, is a breach.  Each is posted once in
the rules channel (``commands/rules/watch_jobs.py`` reads the records and posts) and counted in
digests and by ``placed_against_rules`` (the compliance command's figure).

    rules channel #channel     where rule events go (``rules channel off``: nowhere)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import ActionsBlock, Block, ButtonElement

from callcenter import CallCenter
from callcenter.models import Campaign, Cdr
from commands.kernel.catalog import usage_of
from commands.kernel.channels import channel_for_posting
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError
from commands.kernel.i18n import N_, _, ngettext
from commands.kernel.interactions import Click
from commands.kernel.periods import SERVICE_TZ, to_service
from commands.kernel.phones import normalize_phone, show_phone
from commands.kernel.reply import Outcome, Reply, Rerun, context_line, notice, section
from commands.kernel.resolve import all_campaigns
from commands.kernel.text import campaign_label, escape, number, parse_service_time, truncate
from commands.kernel.values import token
from commands.rules.dialing_hours import hours_fix
from commands.rules.guard import Window, clock, is_advertising, minutes_of, window_words, within
from commands.rules.lists import refused_numbers
from storage import NotificationRoute, Storage
from storage.calling_rules import CallingRules
from storage.offload import off_loop
from storage.rule_watch import NotedRecord

VIETNAM = ZoneInfo("Asia/Ho_Chi_Minh")
"""The decree's clock: the called person's, whatever a workspace displays."""
DECREE = N_("Decree 91/2020/ND-CP")
HOURS, DNC, FREQUENCY = "hours", "dnc", "frequency"
RULE_ORDER = (HOURS, DNC, FREQUENCY)
"""The rules a call the service placed can break, as the audit log and counts name them."""
PAUSE_BUTTON = "rules_watch_pause"
"""Pause the campaign a rule event or a lead warning names; its value is the campaign."""
OFF_WORDS = frozenset({"off", "none", "tat"})


# --- `rules channel` -----------------------------------------------------------------


async def channel(ctx: CommandContext, args: list[str]) -> Outcome:
    """Name the channel rule events go to (or none)."""
    usage = usage_of("rules channel")
    if len(args) != 1:
        raise UsageError(_("Give one channel, e.g. #compliance, or off."), usage)
    storage = ctx.storage
    if args[0].lower() in OFF_WORDS:
        await off_loop(storage.rule_watch.set_channel, ctx.team_id, None, by=ctx.user_id)
        await ctx.audit("rules.channel", {"channel": None})
        return notice(
            _(
                "Rule events go to no channel now, and the service's calls are no longer "
                "watched. `rules enforce` still pauses and starts campaigns."
            ),
            emoji=":scales:",
        )
    found = await channel_for_posting(ctx, args[0], usage)
    await off_loop(storage.rule_watch.set_channel, ctx.team_id, found, by=ctx.user_id)
    await ctx.audit("rules.channel", {"channel": found})
    return notice(
        _(
            "Rule events now go to <#{channel}>: each call the service places against the "
            "calling rules ({decree}), within a minute and once, and every campaign "
            "`rules enforce` pauses or starts."
        ).format(channel=found, decree=_(DECREE)),
        emoji=":scales:",
    )


async def settings_lines(storage: Storage, team_id: str) -> list[str]:
    """What ``rules`` says of the watch: where events go, whether the hours are enforced."""
    settings = await off_loop(storage.rule_watch.settings, team_id)
    where = (
        _("*Rule events*\n<#{channel}>").format(channel=settings.channel)
        if settings.channel
        else _("*Rule events*\nno channel (`rules channel #channel`)")
    )
    enforce = (
        _("*Outside the hours*\ncallops pauses advertising campaigns (`rules enforce off`)")
        if settings.enforce
        else _("*Outside the hours*\ncampaigns are not paused (`rules enforce on`)")
    )
    return [where, enforce]


# --- call records ----------------------------------------------------------------------


def note_record(
    storage: Storage, team_id: str, routes: Sequence[NotificationRoute], record: Cdr
) -> int:
    """The rules family's look at a record called back (blocking, on the receiver's
    database thread): an outbound campaign call is noted for the watch to judge, once
    however often it is sent; how many were new."""
    fact = noted(record)
    return 0 if fact is None else storage.rule_watch.note(team_id, [fact])


def noted(record: Cdr) -> NotedRecord | None:
    """The facts of an outbound campaign call that the rules are judged on, or None for a
    record they do not concern (inbound, local, no campaign, no readable start)."""
    if record.direction.strip().lower() != "outbound" or not record.campaign_uuid.strip():
        return None
    started = parse_service_time(record.time_started, SERVICE_TZ)
    record_id = record.id.strip()
    if started is None or not record_id:
        return None
    phone = normalize_phone(record.to_number) or record.to_number.strip()
    return NotedRecord(record_id, record.campaign_uuid.strip(), phone, started.timestamp())


async def on_do_not_call(
    storage: Storage, team_id: str, phone: str, campaign_uuid: str = ""
) -> bool:
    """Whether ``phone`` may not get advertising calls by the do-not-call lists: the one
    look-up the watch makes, through the lists' own rules (the opt-out list always, the
    registry unless a consent covers the number and the campaign)."""
    refused = await refused_numbers(
        storage,
        team_id,
        [phone],
        campaign_uuids=(campaign_uuid,) if campaign_uuid else (),
        advertising=True,
    )
    return bool(refused)


async def earlier_advertising_calls(
    cc: CallCenter, record: NotedRecord, advertising: set[str]
) -> int:
    """Advertising calls to the record's number in the 24 hours before it started (the
    service's own records, this one left out)."""
    started = datetime.fromtimestamp(record.started_at, UTC)
    count = 0
    async for other in cc.cdrs.iterate(
        phone=record.phone,
        start_date=to_service(started - timedelta(days=1)),
        end_date=to_service(started),
        page_size=200,
    ):
        if other.id.strip() == record.record_id or other.campaign_uuid not in advertising:
            continue
        when = parse_service_time(other.time_started, SERVICE_TZ)
        if when is not None and started - timedelta(days=1) <= when <= started:
            count += 1
    return count


@dataclass(frozen=True)
class Breach:
    """A call the service placed against the rules: which rules, and what showed it."""

    record: NotedRecord
    campaign: Campaign
    rules: tuple[str, ...]
    window: Window
    earlier: int = 0
    limit: int = 0


async def judge(
    cc: CallCenter,
    storage: Storage,
    team_id: str,
    record: NotedRecord,
    campaigns: dict[str, Campaign],
    rules: CallingRules,
) -> Breach | None:
    """The rules the call broke, or None (within them, or not an advertising call)."""
    campaign = campaigns.get(record.campaign_uuid)
    if campaign is None or not is_advertising(campaign, rules):
        return None
    window = rules.hours_of(campaign.campaign_uuid)
    started = datetime.fromtimestamp(record.started_at, VIETNAM)
    broken: list[str] = []
    if not within(window, minutes_of(started)):
        broken.append(HOURS)
    earlier = 0
    if record.phone:
        if await on_do_not_call(storage, team_id, record.phone, record.campaign_uuid):
            broken.append(DNC)
        advertising = {uuid for uuid, c in campaigns.items() if is_advertising(c, rules)}
        earlier = await earlier_advertising_calls(cc, record, advertising)
        if earlier >= rules.frequency:
            broken.append(FREQUENCY)
    if not broken:
        return None
    return Breach(record, campaign, tuple(broken), window, earlier, rules.frequency)


def rule_words(breach: Breach) -> list[str]:
    """Each broken rule in a line, for the channel's readers."""
    started = datetime.fromtimestamp(breach.record.started_at, VIETNAM)
    phone = escape(show_phone(breach.record.phone))
    lines = []
    for rule in breach.rules:
        if rule == HOURS:
            lines.append(
                _(
                    "Calling hours: it started at {time} Vietnam time, outside {window} "
                    "when advertising calls are allowed."
                ).format(time=started.strftime("%H:%M"), window=window_words(breach.window))
            )
        elif rule == DNC:
            lines.append(_("Do-not-call list: {phone} is on it.").format(phone=phone))
        elif rule == FREQUENCY:
            lines.append(
                ngettext(
                    "Calls per number: {phone} had {n} advertising call in the 24 hours "
                    "before; the limit is {limit}.",
                    "Calls per number: {phone} had {n} advertising calls in the 24 hours "
                    "before; the limit is {limit}.",
                    breach.earlier,
                ).format(phone=phone, n=number(breach.earlier), limit=number(breach.limit))
            )
    return lines


def breach_message(breach: Breach) -> Reply:
    """The rule event posted in the rules channel (written for its readers)."""
    started = datetime.fromtimestamp(breach.record.started_at, VIETNAM)
    name = campaign_label(breach.campaign.campaign_name)
    head = _(
        ":rotating_light: *The service placed a call against the calling rules* ({decree})\n"
        "*{campaign}* called {phone} at {time} on {day} (Vietnam time)."
    ).format(
        decree=_(DECREE),
        campaign=name,
        phone=escape(show_phone(breach.record.phone)) or _("a number"),
        time=started.strftime("%H:%M"),
        day=started.strftime("%d/%m/%Y"),
    )
    body = head + "\n" + "\n".join(f"• {line}" for line in rule_words(breach))
    blocks: list[Block] = [section(body)]
    if breach.campaign.status == "start":
        blocks.append(pause_buttons(breach.campaign))
    blocks.append(
        context_line(
            _(
                "Seen in the service's call records: the service dialed it on its own, not "
                "through callops. Record {id}."
            ).format(id=f"`{escape(breach.record.record_id[:64])}`")
        )
    )
    text = _("A call against the calling rules: {campaign}").format(campaign=name)
    return Reply(text=text, blocks=blocks, ephemeral=False)


def breaches_summary(breaches: list[Breach]) -> Reply:
    """Many breaches of one pass in one message: how many, by campaign and by rule, with
    a Pause button for each campaign still running (a few)."""
    first = min(b.record.started_at for b in breaches)
    last = max(b.record.started_at for b in breaches)
    head = ngettext(
        ":rotating_light: *{n} more call the service placed against the calling rules* "
        "({decree}), started {first}–{last} Vietnam time:",
        ":rotating_light: *{n} more calls the service placed against the calling rules* "
        "({decree}), started {first}–{last} Vietnam time:",
        len(breaches),
    ).format(
        n=number(len(breaches)),
        decree=_(DECREE),
        first=datetime.fromtimestamp(first, VIETNAM).strftime("%H:%M"),
        last=datetime.fromtimestamp(last, VIETNAM).strftime("%H:%M"),
    )
    by_campaign: dict[str, list[Breach]] = {}
    for breach in breaches:
        by_campaign.setdefault(breach.campaign.campaign_uuid, []).append(breach)
    names = {HOURS: _("calling hours"), DNC: _("do-not-call"), FREQUENCY: _("calls per number")}
    lines = []
    for group in sorted(by_campaign.values(), key=len, reverse=True)[:10]:
        rules = Counter(rule for b in group for rule in b.rules)
        which = ", ".join(
            f"{names[rule]} {number(rules[rule])}" for rule in RULE_ORDER if rules[rule]
        )
        name = campaign_label(group[0].campaign.campaign_name)
        lines.append(f"• *{name}*: {number(len(group))} ({which})")
    blocks: list[Block] = [section(head + "\n" + "\n".join(lines))]
    running = [g[0].campaign for g in by_campaign.values() if g[0].campaign.status == "start"]
    blocks.extend(pause_buttons(campaign, named=True) for campaign in running[:3])
    text = _("Calls against the calling rules: {n}").format(n=number(len(breaches)))
    return Reply(text=text, blocks=blocks, ephemeral=False)


def pause_buttons(campaign: Campaign, *, named: bool = False) -> ActionsBlock:
    """The Pause button of one campaign (``named``: saying which, beside others)."""
    label = (
        _("Pause {campaign}").format(campaign=campaign.campaign_name or "")
        if named
        else _("Pause the campaign")
    )
    return ActionsBlock(
        elements=[
            ButtonElement(
                text=truncate(label, 75),
                action_id=PAUSE_BUTTON,
                value=campaign.campaign_uuid,
                style="danger",
            )
        ]
    )


async def pause_clicked(ctx: CommandContext, click: Click) -> Outcome:
    """Pause the campaign a rule event or a warning names: ``pause`` as if typed, so its
    role, confirm and audit are the command's own."""
    return Rerun(f"pause {token(click.value)}", replace_original=False)


async def placed_against_rules(
    storage: Storage, team_id: str, start: datetime, end: datetime
) -> Counter[str]:
    """Calls the service placed against the rules that started in ``[start, end)``:
    ``total`` counts the calls, ``hours``, ``dnc`` and ``frequency`` the calls that broke
    each (a call may break several).  For digests and the compliance command."""
    found = await off_loop(
        storage.rule_watch.breaches_between, team_id, start.timestamp(), end.timestamp()
    )
    counts: Counter[str] = Counter({rule: found[rule] for rule in RULE_ORDER})
    counts["total"] = found[""]
    return counts


async def against_rules_between(
    storage: Storage, team_id: str, start: datetime, end: datetime
) -> int:
    """How many calls the service placed against the rules in ``[start, end)``."""
    return (await placed_against_rules(storage, team_id, start, end))["total"]


# --- leads into a campaign dialing outside the hours -------------------------------------


async def list_warnings(
    cc: CallCenter, storage: Storage | None, team_id: str, list_uuid: str, now: datetime
) -> list[tuple[str, Campaign | None]]:
    """Warnings for leads going into ``list_uuid``: an advertising campaign dialing it is
    dialing outside the calling hours now, or dials by hours of its own that reach outside
    them.  Each comes with the campaign to offer pausing (None when it is not running)."""
    if storage is None:
        return []
    rules = await off_loop(storage.calling_rules.rules, team_id)
    dialers = [
        c
        for c in await all_campaigns(cc)
        if c.default_list_uuid == list_uuid and is_advertising(c, rules)
    ]
    here = now.astimezone(VIETNAM)
    found: list[tuple[str, Campaign | None]] = []
    for campaign in dialers[:5]:
        window = rules.hours_of(campaign.campaign_uuid)
        words = {"campaign": campaign_label(campaign.campaign_name), "decree": _(DECREE)}
        words["window"] = window_words(window)
        running = campaign.status == "start"
        if running and not within(window, minutes_of(here)):
            text = _(
                ":warning: *{campaign}* is dialing now, at {time} Vietnam time, outside the "
                "calling hours {window} ({decree}): these leads would be called at once. "
                "Pause it until {start}, when the hours open."
            ).format(time=here.strftime("%H:%M"), start=clock(window[0]), **words)
            found.append((text, campaign))
        elif hours_fix(campaign, window) is None:
            continue
        elif running:
            text = _(
                ":warning: *{campaign}* dials by hours of its own that reach outside the "
                "calling hours {window} ({decree}). Pause it, then start it again with "
                "`/callops start`: the start brings its hours inside."
            ).format(**words)
            found.append((text, campaign))
        else:
            text = _(
                ":warning: *{campaign}* dials by hours of its own that reach outside the "
                "calling hours {window} ({decree}). When you start it with `/callops start`, "
                "the start brings them inside."
            ).format(**words)
            found.append((text, None))
    return found


async def list_warning(
    cc: CallCenter, storage: Storage | None, team_id: str, list_uuid: str, now: datetime
) -> list[Block]:
    """The warnings as blocks, each with its Pause button where the campaign runs."""
    blocks: list[Block] = []
    for text, campaign in await list_warnings(cc, storage, team_id, list_uuid, now):
        blocks.append(section(text))
        if campaign is not None:
            blocks.append(pause_buttons(campaign))
    return blocks


async def list_warning_note(
    cc: CallCenter, storage: Storage | None, team_id: str, list_uuid: str, now: datetime
) -> str | None:
    """The warnings as one note for a prompt that carries no buttons of its own (a form's);
    ``pause <campaign>`` is the fix there."""
    found = await list_warnings(cc, storage, team_id, list_uuid, now)
    return "\n".join(text for text, _campaign in found) or None


def with_warning(outcome: Outcome, warning: list[Block]) -> Outcome:
    """``outcome`` with the lead warning after it, when it is a reply and there is one."""
    if warning and isinstance(outcome, Reply):
        outcome.blocks.extend(warning)
    return outcome
