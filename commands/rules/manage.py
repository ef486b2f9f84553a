"""``rules``: a workspace's calling rules, shown to anyone, changed by admins.

    rules                                  the hours, the frequency, every outbound campaign
    rules hours 08:00-17:00 [campaign]     when advertising calls may be made (Vietnam time)
    rules advertising <campaign> ... on|off          classify campaigns
    rules advertising match=<text> on|off  classify the campaigns whose name has <text>
    rules frequency 1                      advertising calls to one number per 24 hours

The defaults are Decree 91/2020/ND-CP's (08:00-17:00, one call a day); they are
settings, not legal advice.  Every rule is read on Vietnam's clock whatever zone times
are shown in.  A setting looser than the decree is asked for twice: the reply says what
the decree allows and only its button sets it.  Every change is audited.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal
from zoneinfo import ZoneInfo

from pydantic import Field, StringConstraints
from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ConfirmObject,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)

from callcenter.models import Campaign
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError
from commands.kernel.i18n import _, ngettext
from commands.kernel.interactions import Click
from commands.kernel.matching import fold
from commands.kernel.reply import Outcome, Reply, context_line, error, notice, section
from commands.kernel.resolve import all_campaigns, campaign_queries, is_uuid, pick_campaign
from commands.kernel.text import (
    campaign_label,
    code,
    day_time,
    escape,
    mention,
    number,
    truncate,
    zone_name,
)
from commands.kernel.values import Token, Value, read
from commands.rules.guard import (
    DECREE_TZ,
    LOOSER,
    OUTBOUND_TYPES,
    by_type,
    decree,
    decree_allows,
    frequency_looser,
    hours_looser,
    is_advertising,
    looser_settings,
    window_words,
)
from commands.rules.lists import lists_field
from commands.rules.watch import settings_lines
from storage.calling_rules import CallingRules, SetBy
from storage.offload import off_loop

_WINDOW = re.compile(r"(\d{1,2})[:h.]?(\d{2})?\s*[-–]\s*(\d{1,2})[:h.]?(\d{2})?")
MAX_FREQUENCY = 100
MAX_MATCHED = 40
"""Campaigns one ``match=`` may classify at once (their ids fit a button's value)."""
SHOWN_CAMPAIGNS = 40
CONFIRM_LOOSER = "rules_looser_confirm"
CLASSIFY = "rules_classify_matched"
MAX_BRAND = 80
_BETWEEN = frozenset({"-", "–", "to", "den", "đến"})
"""Words people put between a window's two times."""


def parse_window(text: str) -> tuple[int, int]:
    """``08:00-17:00``, ``8-17``, ``8h-17h30``: minutes after midnight."""
    match = _WINDOW.fullmatch(text.strip())
    if match is None:
        raise UsageError(
            _("'{text}' is not a time window; write it as HH:MM-HH:MM, e.g. 08:00-17:00.").format(
                text=text[:40]
            ),
            usage_of("rules hours"),
        )
    start_h, start_m, end_h, end_m = (int(g or 0) for g in match.groups())
    if start_h > 23 or end_h > 24 or start_m > 59 or end_m > 59 or (end_h == 24 and end_m):
        raise UsageError(
            _("'{text}' is not a time of day.").format(text=text[:40]), usage_of("rules hours")
        )
    return start_h * 60 + start_m, (end_h * 60 + end_m) % 1440


class LooserValue(Value):
    """What the "set it anyway" button carries: the setting beyond the decree."""

    rule: Literal["hours", "frequency"]
    window: tuple[Annotated[int, Field(ge=0, le=1439)], Annotated[int, Field(ge=0, le=1439)]] = (
        0,
        0,
    )
    campaign_uuid: Annotated[str, StringConstraints(max_length=200, pattern=r"^[^\s|]*$")] = ""
    frequency: Annotated[int, Field(ge=1, le=MAX_FREQUENCY)] = 1


class ClassifyValue(Value):
    """What the "classify these" button of ``rules advertising match=`` carries."""

    campaigns: list[Token] = Field(min_length=1, max_length=MAX_MATCHED)
    on: bool


def set_by_words(set_by: SetBy | None, tz: ZoneInfo) -> str:
    """``set by @An, Sun 22 Nov 14:27`` (mrkdwn), or nothing when nobody set it."""
    if set_by is None or (set_by.user_id is None and set_by.at is None):
        return ""
    if set_by.at is None:
        return _("set by {who}").format(who=mention(set_by.user_id))
    return _("set by {who}, {when}").format(
        who=mention(set_by.user_id), when=day_time(set_by.at, tz)
    )


def looser_mark() -> str:
    return f":warning: _{_(LOOSER)}_"


def _class_line(campaign: Campaign, rules: CallingRules, tz: ZoneInfo) -> str:
    own = rules.of(campaign.campaign_uuid)
    advertising = is_advertising(campaign, rules)
    klass = _("advertising") if advertising else _("service")
    if own.advertising is None:
        why = (
            _("by default: OTP calls are service calls")
            if not by_type(campaign)
            else _("by default")
        )
    else:
        why = set_by_words(own.advertising_set, tz) or _("set by an admin")
    line = f"• *{campaign_label(campaign.campaign_name)}*: {klass} ({why})"
    if own.hours:
        line += _(", own hours {window}").format(window=window_words(own.hours))
        if advertising and hours_looser(own.hours):
            line += " " + looser_mark()
    return line


async def show(ctx: CommandContext, args: list[str]) -> Outcome:
    if args:
        raise UsageError(
            _(
                "'{word}' is not a part of the rules: hours, advertising, frequency or brand."
            ).format(word=args[0][:40]),
            usage_of("rules"),
        )
    storage = ctx.storage
    rules = await off_loop(storage.calling_rules.rules, ctx.team_id)
    dnc = await lists_field(storage, ctx.team_id)
    hours_text = _("*Advertising calls*\n{window}, Vietnam time").format(
        window=window_words(rules.hours)
    )
    if hours_looser(rules.hours):
        hours_text += "\n" + looser_mark()
    frequency_text = _("*To one number*\nat most {n} in 24 hours").format(n=number(rules.frequency))
    if frequency_looser(rules.frequency):
        frequency_text += "\n" + looser_mark()
    blocks: list[Block] = [
        HeaderBlock(text=_("Calling rules")),
        SectionBlock(
            fields=[
                MarkdownTextObject(text=hours_text),
                MarkdownTextObject(text=frequency_text),
                MarkdownTextObject(text=dnc),
                MarkdownTextObject(text=_("*Blacklist*\nthe service's own, always")),
                MarkdownTextObject(
                    text=_("*Brand name*\n{brand}").format(brand=escape(rules.brand))
                    if rules.brand
                    else _('*Brand name*\nnot set (`rules brand "&lt;name&gt;"`)')
                ),
            ]
        ),
        context_line(
            _(
                ":clock8: Every rule is read on Vietnam's clock ({zone}), the called "
                "person's, whatever zone times are shown in."
            ).format(zone=zone_name(DECREE_TZ))
        ),
    ]
    blocks.append(
        SectionBlock(
            fields=[MarkdownTextObject(text=t) for t in await settings_lines(storage, ctx.team_id)]
        )
    )
    looser = looser_settings(rules)
    if looser:
        lines = [looser_line(rule, value, set_by, ctx.tz) for rule, value, set_by in looser]
        title = _("*Looser than Decree 91*")
        blocks.append(section("\n".join([title, *lines])))
        blocks.append(context_line(decree_allows()))
    campaigns = [c for c in await all_campaigns(ctx.client()) if c.type in OUTBOUND_TYPES]
    lines = [_class_line(c, rules, ctx.tz) for c in campaigns]
    if lines:
        shown = lines[:SHOWN_CAMPAIGNS]
        if len(lines) > SHOWN_CAMPAIGNS:
            shown.append(_("…and {n} more.").format(n=number(len(lines) - SHOWN_CAMPAIGNS)))
        blocks.append(section(_("*Outbound campaigns*\n") + "\n".join(shown)))
    blocks.append(
        context_line(
            _(
                "Defaults follow Decree 91/2020/ND-CP (08:00–17:00, one advertising "
                "call a day, never to the do-not-call list); they are settings, not "
                "legal advice. callops guards only the calls placed through it."
            )
        )
    )
    return Reply(blocks=blocks, text=_("Calling rules"))


def looser_line(rule: str, value: str, set_by: SetBy | None, tz: ZoneInfo) -> str:
    """One setting beyond the decree, with who set it (mrkdwn)."""
    who = set_by_words(set_by, tz)
    if rule == "hours":
        what = _("• hours {window}").format(window=value)
    elif rule == "frequency":
        what = _("• {n} advertising calls to one number in 24 hours").format(n=value)
    else:
        what = _("• a campaign's own hours {window}").format(window=value)
    return f"{what} ({who})" if who else what


async def hours(ctx: CommandContext, args: list[str]) -> Outcome:
    if not args:
        raise UsageError(_("Give the hours, e.g. 08:00-17:00."), usage_of("rules hours"))
    if len(args) >= 3 and args[1].lower() in _BETWEEN:
        # ``08:00 - 17:00``, ``8h to 17h``: the window written in three words.
        args = [f"{args[0]}-{args[2]}", *args[3:]]
    window = parse_window(args[0])
    campaign_uuid = ""
    if len(args) > 1:
        campaign = pick_campaign(await all_campaigns(ctx.client()), " ".join(args[1:]))
        campaign_uuid = campaign.campaign_uuid
    if hours_looser(window):
        return ask_looser(
            _(
                "{window} reaches outside the hours {decree} allows for advertising calls "
                "(08:00–17:00, Vietnam time), unless each person called agreed otherwise."
            ).format(window=window_words(window), decree=decree()),
            LooserValue(rule="hours", window=window, campaign_uuid=campaign_uuid),
        )
    return await set_hours(ctx, window, campaign_uuid, looser=False)


async def set_hours(
    ctx: CommandContext, window: tuple[int, int], campaign_uuid: str, *, looser: bool
) -> Reply:
    storage = ctx.storage
    scope = _("every advertising campaign")
    if campaign_uuid:
        campaign = pick_campaign(await all_campaigns(ctx.client()), campaign_uuid)
        scope = f"*{campaign_label(campaign.campaign_name)}*"
    await off_loop(
        storage.calling_rules.set_hours,
        ctx.team_id,
        window,
        campaign_uuid=campaign_uuid,
        by=ctx.user_id,
    )
    await ctx.audit(
        "rules.hours",
        {
            "hours": window_words(window),
            "campaign_uuid": campaign_uuid or None,
            "looser_than_decree": looser,
        },
    )
    text = _("Advertising calls for {scope} are now allowed {window}, Vietnam time.").format(
        scope=scope, window=window_words(window)
    )
    if looser:
        text += " " + looser_mark()
    return notice(text, emoji=":clock8:")


def ask_looser(why: str, value: LooserValue) -> Reply:
    """The reply to a setting beyond the decree: what the decree allows, and the one
    button that sets it anyway (with Slack's confirm dialog)."""
    button = ButtonElement(
        text=_("Set it anyway"),
        action_id=CONFIRM_LOOSER,
        value=value.model_dump_json(),
        style="danger",
        confirm=ConfirmObject(
            title=_("Looser than Decree 91?"),
            text=truncate(decree_allows() + " " + _("Your name is kept with the setting."), 300),
            confirm=_("Set it anyway"),
            deny=_("Cancel"),
        ),
    )
    return Reply(
        blocks=[
            section(f":warning: {escape(why)}"),
            context_line(escape(decree_allows())),
            ActionsBlock(elements=[button]),
        ],
        text=_("Looser than Decree 91: confirm"),
    )


async def looser_confirmed(ctx: CommandContext, click: Click) -> Outcome:
    value = read(LooserValue, click.value)
    if value.rule == "hours":
        return await set_hours(ctx, value.window, value.campaign_uuid, looser=True)
    return await set_frequency(ctx, value.frequency, looser=True)


async def advertising(ctx: CommandContext, args: list[str]) -> Outcome:
    if len(args) < 2 or args[-1].lower() not in ("on", "off"):
        raise UsageError(
            _("Give the campaigns (or match=<text>), then on or off."),
            usage_of("rules advertising"),
        )
    on = args[-1].lower() == "on"
    words = args[:-1]
    campaigns = [c for c in await all_campaigns(ctx.client()) if c.type in OUTBOUND_TYPES]
    if words[0].lower().startswith("match="):
        text = " ".join([words[0][len("match=") :], *words[1:]]).strip()
        return matching_campaigns(text, campaigns, on)
    queries = words if all(is_uuid(w) for w in words) else campaign_queries(words, campaigns)
    chosen = list(
        {c.campaign_uuid: c for c in (pick_campaign(campaigns, q) for q in queries)}.values()
    )
    return await classify(ctx, chosen, on)


def matching_campaigns(text: str, campaigns: list[Campaign], on: bool) -> Reply:
    """The outbound campaigns whose name holds ``text`` (folded), and a button to
    classify them all: shown first, changed only when asked."""
    wanted = fold(text)
    if not wanted:
        raise UsageError(
            _("Give the text the campaigns' names hold: match=<text>."),
            usage_of("rules advertising"),
        )
    found = [c for c in campaigns if wanted in fold(c.campaign_name)]
    if not found:
        return error(
            _("No outbound campaign's name holds '{text}'. Nothing was changed.").format(
                text=text[:80]
            )
        )
    if len(found) > MAX_MATCHED:
        return error(
            _(
                "{n} campaigns match '{text}': more than {max} at once. Give a longer text. "
                "Nothing was changed."
            ).format(n=len(found), text=text[:80], max=MAX_MATCHED)
        )
    klass = _("advertising") if on else _("service")
    names = "\n".join(f"• *{campaign_label(c.campaign_name)}*" for c in found[:MAX_MATCHED])
    value = ClassifyValue(campaigns=[c.campaign_uuid for c in found], on=on)
    button = ButtonElement(
        text=ngettext("Classify {n} campaign", "Classify {n} campaigns", len(found)).format(
            n=len(found)
        ),
        action_id=CLASSIFY,
        value=value.model_dump_json(),
        style="primary",
    )
    return Reply(
        blocks=[
            section(
                ngettext(
                    "{n} campaign matches '{text}'; mark it {klass}?",
                    "{n} campaigns match '{text}'; mark them {klass}?",
                    len(found),
                ).format(n=number(len(found)), text=escape(text[:80]), klass=klass)
                + "\n"
                + names
            ),
            ActionsBlock(elements=[button]),
        ],
        text=_("Campaigns to classify"),
    )


async def classify_clicked(ctx: CommandContext, click: Click) -> Outcome:
    value = read(ClassifyValue, click.value)
    known = {c.campaign_uuid: c for c in await all_campaigns(ctx.client())}
    chosen = [known[uuid] for uuid in value.campaigns if uuid in known]
    if not chosen:
        return error(_("Those campaigns no longer exist. Nothing was changed."))
    return await classify(ctx, chosen, value.on)


async def classify(ctx: CommandContext, chosen: list[Campaign], on: bool) -> Reply:
    """Mark ``chosen`` advertising (``on``) or service, all in one write, audited."""
    storage = ctx.storage
    await off_loop(
        storage.calling_rules.set_advertising_many,
        ctx.team_id,
        [c.campaign_uuid for c in chosen],
        on,
        by=ctx.user_id,
    )
    await ctx.audit(
        "rules.advertising",
        {"campaign_uuids": [c.campaign_uuid for c in chosen], "advertising": on},
    )
    names = ", ".join(f"*{campaign_label(c.campaign_name)}*" for c in chosen[:MAX_MATCHED])
    if on:
        text = ngettext(
            "The calling rules now apply to {names}: advertising.",
            "The calling rules now apply to {names}: advertising.",
            len(chosen),
        )
    else:
        text = ngettext(
            "The calling rules no longer apply to {names}: it is a service campaign.",
            "The calling rules no longer apply to {names}: they are service campaigns.",
            len(chosen),
        )
    return notice(text.format(names=names), emoji=":scales:")


async def frequency(ctx: CommandContext, args: list[str]) -> Outcome:
    if len(args) != 1 or not args[0].isdigit() or not 0 < int(args[0]) <= MAX_FREQUENCY:
        raise UsageError(
            _(
                "Give how many advertising calls one number may get in 24 hours (1 to {max})."
            ).format(max=MAX_FREQUENCY),
            usage_of("rules frequency"),
        )
    count = int(args[0])
    if frequency_looser(count):
        return ask_looser(
            _(
                "{n} advertising calls to one number in 24 hours is more than {decree} "
                "allows (one), unless each person called agreed otherwise."
            ).format(n=count, decree=decree()),
            LooserValue(rule="frequency", frequency=count),
        )
    return await set_frequency(ctx, count, looser=False)


async def set_frequency(ctx: CommandContext, count: int, *, looser: bool) -> Reply:
    storage = ctx.storage
    await off_loop(storage.calling_rules.set_frequency, ctx.team_id, count, by=ctx.user_id)
    await ctx.audit("rules.frequency", {"frequency": count, "looser_than_decree": looser})
    text = _("One number may now get at most {n} advertising calls in 24 hours.").format(
        n=code(count)
    )
    if looser:
        text += " " + looser_mark()
    return notice(text, emoji=":scales:")


async def brand(ctx: CommandContext, args: list[str]) -> Outcome:
    """``rules brand "<registered brand name>"`` (``off`` clears it): the name the first
    sentence of an advertising autocall should say; a template without it is warned
    about on its preview and approval card, never refused."""
    name = " ".join(args).strip().strip('"“”').strip()
    if not name:
        raise UsageError(
            _('Give the brand name registered for advertising calls, e.g. rules brand "ACB".'),
            usage_of("rules brand"),
        )
    if len(name) > MAX_BRAND:
        raise UsageError(
            _("A brand name is at most {n} characters.").format(n=MAX_BRAND),
            usage_of("rules brand"),
        )
    storage = ctx.storage
    cleared = name.lower() == "off"
    await off_loop(
        storage.calling_rules.set_brand, ctx.team_id, None if cleared else name, by=ctx.user_id
    )
    await ctx.audit("rules.brand", {"brand": None if cleared else name})
    if cleared:
        return notice(_("Advertising autocalls are no longer checked for a brand name."))
    return notice(
        _(
            "Advertising autocalls whose first sentence does not say *{brand}* now carry a "
            "warning on their preview and approval card."
        ).format(brand=escape(name)),
        emoji=":label:",
    )
