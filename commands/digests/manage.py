"""``digest add|list|remove|pause|resume|run|preview``: statistics that arrive on their own.

    digest add #channel <when> [campaign ...] [sections=totals,campaigns,agents,chart,insights]
    digest list | digest remove <id> | digest pause <id> | digest resume <id>
    digest run <id>          post it now, for its latest complete period (and offer
                             "Up to now": from that period's end until the click)
    digest preview [id]      show it to me only (yesterday's, when no id is given)

``<when>`` is read by ``commands.digests.schedules``.  A digest keeps the workspace's time zone of
the moment it was made, so "08:00" keeps meaning the 08:00 its author meant.  The bot must
be in the channel, which is checked when the digest is made, not at 08:00 the next day.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    HeaderBlock,
    SectionBlock,
)

from commands.digests.content import DEFAULT_SECTIONS, SECTIONS, DigestRequest, build_digest
from commands.digests.schedules import (
    DigestPeriod,
    ScheduleError,
    latest_fire,
    next_fire,
    parse_schedule,
    parse_when,
    period_for_slot,
    period_up_to,
    trigger_for,
)
from commands.kernel.audiences import LANGUAGE_OPTION, post_language, post_language_note
from commands.kernel.catalog import usage_of
from commands.kernel.channels import channel_for_posting
from commands.kernel.context import CommandContext, DigestPostError
from commands.kernel.grammar import UsageError, check_keys, split_options
from commands.kernel.i18n import N_, _, ngettext
from commands.kernel.interactions import Click
from commands.kernel.matching import did_you_mean
from commands.kernel.reply import Outcome, Reply, context_line, error, notice, section
from commands.kernel.resolve import (
    CampaignNotFound,
    all_campaigns,
    campaign_queries,
    pick_campaign,
)
from commands.kernel.text import clip, code, day_time, escape, number, zone_name
from commands.kernel.values import Token, Value, read_fields
from commands.reports.chart_blocks import chart_mode
from commands.reports.progress import shown_in_steps
from commands.reports.tally import Progress
from commands.rules.consent import ending_soon
from commands.rules.guard import looser_words, refused_between
from commands.rules.watch import against_rules_between
from storage import DigestSchedule, Storage
from storage import Outcome as Audit
from storage.offload import off_loop

UP_TO_NOW_ACTION = "digest_up_to_now"
_TITLES = {
    "daily": N_("Daily digest: {period}"),
    "weekdays": N_("Weekday digest: {period}"),
    "weekly": N_("Weekly digest: {period}"),
    "hourly": N_("Hourly digest: {period}"),
}
_CALL_DIGEST = N_("Call digest: {period}")
"""A digest's title by its schedule's kind (a cron schedule's is the last)."""


def parse_sections(text: str, usage: str) -> tuple[str, ...]:
    words = [w.strip().lower() for w in text.split(",") if w.strip()]
    unknown = [w for w in words if w not in SECTIONS]
    if unknown or not words:
        raise UsageError(
            _("sections= takes {sections} (comma-separated), not '{text}'.").format(
                sections=", ".join(SECTIONS), text=text
            )
            + (did_you_mean(unknown[0], SECTIONS) if unknown else ""),
            usage,
        )
    return tuple(s for s in SECTIONS if s in words)


def digest_title(schedule_text: str, period_label: str) -> str:
    kind = schedule_text.split()[0] if schedule_text else ""
    return _(_TITLES.get(kind, _CALL_DIGEST)).format(period=period_label)


def request_for(digest: DigestSchedule, slot: datetime, *, why: str = "") -> DigestRequest:
    """What to build for ``digest``'s post at ``slot`` (a fire time of its schedule)."""
    tz = ZoneInfo(digest.timezone)
    trigger = trigger_for(digest.schedule, tz)
    return _request(digest, period_for_slot(trigger, slot, tz), why=why)


def _request(digest: DigestSchedule, period: DigestPeriod, *, why: str) -> DigestRequest:
    """``digest``'s post for ``period``, saying ``why`` that period."""
    return DigestRequest(
        period=period,
        title=digest_title(digest.schedule, period.label()),
        campaigns=digest.campaigns,
        sections=digest.sections or DEFAULT_SECTIONS,
        digest_id=digest.id,
        schedule=f"{parse_schedule(digest.schedule).describe()} "
        f"({zone_name(ZoneInfo(digest.timezone))})",
        why=why,
    )


def last_complete_words(digest: DigestSchedule) -> str:
    """Why ``digest run`` shows the period it shows."""
    return _("the last complete period of this digest ({schedule})").format(
        schedule=parse_schedule(digest.schedule).describe()
    )


def run_request(
    digest: DigestSchedule,
    now: datetime,
    *,
    up_to_now: bool = False,
    asked_by: str | None = None,
) -> DigestRequest:
    """What ``digest run`` (and its Up to now button) posts as of ``now``: the latest
    complete period, or from its end up to ``now``; the request says which, and why."""
    if not up_to_now:
        why = escape(last_complete_words(digest))
        return request_for(digest, latest_slot(digest, now), why=why)
    tz = ZoneInfo(digest.timezone)
    period = period_up_to(trigger_for(digest.schedule, tz), now, tz)
    if asked_by:
        why = _("up to now, asked for by {user}").format(user=f"<@{escape(asked_by)}>")
    else:
        why = _("up to now")
    return _request(digest, period, why=why)


def latest_slot(digest: DigestSchedule, now: datetime | None = None) -> datetime:
    """The digest's most recent fire time: ``digest run`` and ``preview`` show that period."""
    tz = ZoneInfo(digest.timezone)
    moment = (now or datetime.now(UTC)).astimezone(tz)
    slot = latest_fire(trigger_for(digest.schedule, tz), moment)
    return slot or moment


async def _require(ctx: CommandContext, args: list[str], name: str) -> DigestSchedule:
    usage = usage_of(name)
    if len(args) != 1:
        raise UsageError(_("Give the digest's id (digest list shows them)."), usage)
    found = await off_loop(ctx.storage.digests.get, ctx.team_id, args[0].strip().lower())
    if found is None:
        raise UsageError(
            _("There is no digest '{id}' in this workspace.").format(id=args[0]), "digest list"
        )
    return found


async def _campaign_uuids(
    ctx: CommandContext, words: Sequence[str], usage: str, names: dict[str, str] | None = None
) -> list[str]:
    """The campaigns named after the schedule, quoted or not, separated by commas or not;
    several that fit (or a typo) are offered as buttons by the dispatcher.  ``names``
    gets each one's name, to say what was scheduled."""
    if not words:
        return []
    campaigns = await all_campaigns(ctx.client())
    uuids: list[str] = []
    for query in campaign_queries(words, campaigns):
        try:
            picked = pick_campaign(campaigns, query)
            uuids.append(picked.campaign_uuid)
            if names is not None:
                names[picked.campaign_uuid] = picked.campaign_name
        except CampaignNotFound as exc:
            raise UsageError(
                _("No campaign is named '{query}' or starts with it.").format(query=exc.query),
                usage,
            ) from exc
    return list(dict.fromkeys(uuids))


async def add(ctx: CommandContext, args: list[str]) -> Outcome:
    usage = usage_of("digest add")
    storage = ctx.storage
    positional, options = split_options(args)
    if not positional:
        raise UsageError(_("Name the channel the digest goes to, then when."), usage)
    check_keys(
        options, ("sections", LANGUAGE_OPTION), what=_("an option of digest add"), usage=usage
    )
    opts = {k.lower(): v for k, v in options.items()}
    language = post_language(opts, usage)
    sections = parse_sections(opts["sections"], usage) if "sections" in opts else DEFAULT_SECTIONS
    channel_token, words = positional[0], positional[1:]
    try:
        schedule, campaign_words = parse_when(words)
    except ScheduleError as exc:
        raise UsageError(str(exc), usage) from exc
    channel = await channel_for_posting(ctx, channel_token, usage)
    named: dict[str, str] = {}
    uuids = await _campaign_uuids(ctx, campaign_words, usage, named)
    digest = await off_loop(
        storage.digests.add,
        ctx.team_id,
        channel=channel,
        schedule=schedule.text,
        timezone=ctx.tz.key,
        created_by=ctx.user_id,
        campaigns=uuids,
        sections=sections,
        language=language,
    )
    await ctx.audit(
        "digest.add",
        {
            "digest": digest.id,
            "channel": channel,
            "schedule": schedule.text,
            "timezone": ctx.tz.key,
            "campaigns": uuids,
            "sections": list(sections),
            "language": language,
        },
    )
    upcoming = next_fire(trigger_for(digest.schedule, ctx.tz), datetime.now(UTC))
    when = day_time(upcoming) if upcoming else _("never")
    if uuids:
        scheduled = ngettext(
            "Digest {id} scheduled for {n} campaign ({names}): {schedule} ({zone}) in "
            "{channel}. First post: {when}.",
            "Digest {id} scheduled for {n} campaigns ({names}): {schedule} ({zone}) in "
            "{channel}. First post: {when}.",
            len(uuids),
        )
    else:
        scheduled = _(
            "Digest {id} scheduled for the whole call center: {schedule} ({zone}) in "
            "{channel}. First post: {when}."
        )
    text = scheduled.format(
        id=code(digest.id),
        n=number(len(uuids)),
        names=", ".join(f"*{clip(named.get(u, u), 80)}*" for u in uuids[:10]),
        schedule=escape(schedule.describe()),
        zone=escape(zone_name(ctx.tz)),
        channel=f"<#{channel}>" + post_language_note(language),
        when=escape(when),
    )
    if sections != DEFAULT_SECTIONS:
        text += " " + _("Sections: {sections}.").format(sections=", ".join(sections))
    return notice(text, emoji=":calendar:")


def _row(d: DigestSchedule, names: dict[str, str], now: datetime) -> SectionBlock:
    tz = ZoneInfo(d.timezone)
    described = parse_schedule(d.schedule).describe()
    upcoming = None if d.paused else next_fire(trigger_for(d.schedule, tz), now)
    state = _(":double_vertical_bar: paused") if d.paused else _(":large_green_circle: active")
    campaigns = (
        ", ".join(clip(names.get(u, u[:8]), 40) for u in d.campaigns)
        if d.campaigns
        else _("busiest autodialer campaigns")
    )
    sections = (
        _("all sections")
        if set(d.sections or DEFAULT_SECTIONS) == set(DEFAULT_SECTIONS)
        else ", ".join(d.sections)
    )
    where = _("{id} {state} · *{schedule}* ({zone}) in {channel}").format(
        id=code(d.id),
        state=state,
        schedule=escape(described),
        zone=escape(zone_name(ZoneInfo(d.timezone))),
        channel=f"<#{d.channel}>" + post_language_note(d.language),
    )
    text = f"{where}\n{campaigns} · {escape(sections)}"
    if upcoming:
        text += " · " + _("next {when}").format(when=day_time(upcoming))
    return section(text)


async def list_digests(ctx: CommandContext, args: list[str]) -> Outcome:
    if args:
        raise UsageError(_("digest list takes no arguments."), usage_of("digest list"))
    digests = await off_loop(ctx.storage.digests.list, ctx.team_id)
    if not digests:
        return notice(
            _("No digests yet. Schedule one with `/callops digest add #channel daily 08:00`."),
            emoji=":calendar:",
        )
    names: dict[str, str] = {}
    if any(d.campaigns for d in digests):
        names = {c.campaign_uuid: c.campaign_name for c in await all_campaigns(ctx.client())}
    now = datetime.now(UTC)
    blocks: list[Block] = [HeaderBlock(text=_("Digests ({n})").format(n=len(digests)))]
    blocks.extend(_row(d, names, now) for d in digests[:45])
    blocks.append(
        context_line(
            _("{run} posts one now · {others}").format(
                run=code("digest run <id>"), others=code("digest pause|resume|remove <id>")
            )
        )
    )
    count = ngettext("{n} digest", "{n} digests", len(digests)).format(n=number(len(digests)))
    return Reply(text=count, blocks=blocks)


async def _set_paused(ctx: CommandContext, args: list[str], *, paused: bool) -> Outcome:
    name = "digest pause" if paused else "digest resume"
    digest = await _require(ctx, args, name)
    storage = ctx.storage
    await off_loop(storage.digests.set_paused, ctx.team_id, digest.id, paused=paused)
    await ctx.audit(name.replace(" ", "."), {"digest": digest.id})
    if paused:
        return notice(
            _("Digest {id} is paused; `digest resume {raw_id}` starts it again.").format(
                id=code(digest.id), raw_id=escape(digest.id)
            ),
            emoji=":double_vertical_bar:",
        )
    upcoming = next_fire(trigger_for(digest.schedule, digest.timezone), datetime.now(UTC))
    when = day_time(upcoming) if upcoming else _("never")
    return notice(
        _("Digest {id} resumed; next post {when} ({zone}).").format(
            id=code(digest.id), when=escape(when), zone=escape(zone_name(ZoneInfo(digest.timezone)))
        ),
        emoji=":arrow_forward:",
    )


async def pause(ctx: CommandContext, args: list[str]) -> Outcome:
    return await _set_paused(ctx, args, paused=True)


async def resume(ctx: CommandContext, args: list[str]) -> Outcome:
    return await _set_paused(ctx, args, paused=False)


async def remove(ctx: CommandContext, args: list[str]) -> Outcome:
    digest = await _require(ctx, args, "digest remove")
    storage = ctx.storage
    await off_loop(storage.digests.remove, ctx.team_id, digest.id)
    await ctx.audit(
        "digest.remove",
        {"digest": digest.id, "channel": digest.channel, "schedule": digest.schedule},
    )
    return notice(_("Digest {id} removed.").format(id=code(digest.id)), emoji=":wastebasket:")


async def run(ctx: CommandContext, args: list[str]) -> Outcome:
    digest = await _require(ctx, args, "digest run")
    poster = ctx.app.digests
    now = datetime.now(UTC)
    try:
        channel = await poster.post_now(ctx.team_id, digest.id, at=now)
    except DigestPostError as exc:
        await ctx.audit("digest.run", {"digest": digest.id}, outcome=Audit.FAILED, detail=str(exc))
        raise UsageError(str(exc)) from exc
    await ctx.audit("digest.run", {"digest": digest.id})
    period = run_request(digest, now).period
    since = period.end.astimezone(ZoneInfo(digest.timezone))
    text = _(":mailbox: Digest {id} posted in {channel} for *{period}*: {why}.").format(
        id=code(digest.id),
        channel=f"<#{channel}>",
        period=escape(period.window().label()),
        why=escape(last_complete_words(digest)),
    )
    return Reply(
        text=_("Digest {id} posted in {channel}").format(id=digest.id, channel=f"<#{channel}>"),
        blocks=[
            section(text),
            ActionsBlock(
                elements=[
                    ButtonElement(
                        text=_("Up to now"),
                        action_id=UP_TO_NOW_ACTION,
                        value=f"{digest.id}|{int(now.timestamp())}",
                    )
                ]
            ),
            context_line(
                _(
                    "*Up to now* posts the same digest from {since} until the moment you click."
                ).format(since=escape(day_time(since)))
            ),
        ],
    )


class UpToNowValue(Value):
    """What an Up to now button carries: the digest, and when its answer was given."""

    digest_id: Token
    asked_at: Token


def read_up_to_now(value: str) -> tuple[str, str]:
    digest_id, _, asked_at = value.partition("|")
    found = read_fields(UpToNowValue, {"digest_id": digest_id, "asked_at": asked_at})
    return found.digest_id, found.asked_at


async def up_to_now_clicked(ctx: CommandContext, click: Click) -> Outcome:
    """Up to now, under a ``digest run`` answer: the digest from its latest slot until
    this click, posted once however often the button is clicked."""
    storage = ctx.storage
    digest_id, asked_at = read_up_to_now(click.value)
    digest = await off_loop(storage.digests.get, ctx.team_id, digest_id)
    if digest is None:
        return error(_("That digest was removed."))
    if not await off_loop(
        storage.dedup.mark_event, ctx.team_id, f"digest-up-to-now:{digest_id}:{asked_at}"
    ):
        return notice(_("That digest, up to now, is posted already."))
    now = datetime.now(UTC)
    try:
        channel = await ctx.app.digests.post_now(
            ctx.team_id, digest.id, at=now, up_to_now=True, asked_by=ctx.user_id
        )
    except DigestPostError as exc:
        await ctx.audit(
            "digest.run",
            {"digest": digest.id, "up_to_now": True},
            outcome=Audit.FAILED,
            detail=str(exc),
        )
        return error(str(exc))
    await ctx.audit("digest.run", {"digest": digest.id, "up_to_now": True})
    period = run_request(digest, now, up_to_now=True).period
    return notice(
        _("Digest {id} posted in {channel} for *{period}*: up to now.").format(
            id=code(digest.id), channel=f"<#{channel}>", period=escape(period.window().label())
        ),
        emoji=":mailbox:",
    )


async def with_rules_facts(storage: Storage, team_id: str, request: DigestRequest) -> DigestRequest:
    """``request`` with the calling rules' line for its period: calls refused, calls the
    service placed against the rules, rules looser than the decree, consents ending
    soon.  The one place both the posted digest and its preview read them (in the
    reader's language: call it inside their audience)."""
    start, end = request.period.start, request.period.end
    return replace(
        request,
        refused_calls=await refused_between(storage, team_id, start, end),
        against_rules=await against_rules_between(storage, team_id, start, end),
        looser_rules=await looser_words(storage, team_id),
        calling_hours=(await off_loop(storage.calling_rules.rules, team_id)).hours,
        consents_ending=await ending_soon(storage, team_id, datetime.now(UTC)),
    )


async def preview(ctx: CommandContext, args: list[str]) -> Outcome:
    usage = usage_of("digest preview")
    if len(args) > 1:
        raise UsageError(_("Give at most one digest id."), usage)
    if args:
        digest = await _require(ctx, args, "digest preview")
    else:
        digest = DigestSchedule(
            id="preview",
            team_id=ctx.team_id,
            channel=ctx.channel_id or "",
            schedule="daily 00:00",
            timezone=ctx.tz.key,
            campaigns=(),
            sections=DEFAULT_SECTIONS,
            paused=False,
            created_by=ctx.user_id,
            created_at=0.0,
            updated_at=0.0,
            last_slot=None,
        )
    if args:
        why = escape(last_complete_words(digest))
    else:
        why = _("yesterday, as a daily digest shows it")
    request = replace(
        request_for(digest, latest_slot(digest), why=why),
        chart_follows=False,
        chart_mode=chart_mode(ctx.workspace),
    )
    request = await with_rules_facts(ctx.storage, ctx.team_id, request)
    cc = ctx.client()

    async def shown(progress: Progress) -> Reply:
        content = await build_digest(cc, request, progress=progress)
        reply = content.reply
        reply.ephemeral = True
        reply.text = _("Preview: {digest}").format(digest=reply.text)
        if content.chart is not None and not content.chart.native:  # else in the preview
            note = _(
                "Preview, only you can see it; when posted, the digest is followed by its chart."
            )
        else:
            note = _("Preview, only you can see it.")
        reply.blocks.insert(1, context_line(note))
        return reply

    if ctx.response_url is None:
        return await shown(lambda done, total: None)
    # A preview counted from a busy week's records says so while it counts.
    return await shown_in_steps(ctx.messenger, ctx.response_url, shown)
