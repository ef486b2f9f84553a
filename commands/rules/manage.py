"""``rules``: a workspace's calling rules, shown to anyone, changed by admins.

    rules                                  the hours, the frequency, which campaigns count
    rules hours 08:00-17:00 [campaign]     when advertising calls may be made
    rules advertising <campaign> on|off    whether the rules apply to a campaign
    rules frequency 1                      advertising calls to one number per 24 hours

The defaults are Decree 91/2020/ND-CP's (08:00-17:00, one call a day); they are
settings, not legal advice.  Every change is audited.
"""

from __future__ import annotations

import re

from slack_sdk.models.blocks import (
    Block,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)

from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError
from commands.kernel.i18n import _
from commands.kernel.reply import Outcome, Reply, context_line, notice, section
from commands.kernel.resolve import all_campaigns, pick_campaign
from commands.kernel.text import campaign_label, code, number
from commands.rules.guard import by_type, is_advertising, window_words
from commands.rules.lists import lists_field
from commands.rules.watch import settings_lines
from storage.offload import off_loop

_WINDOW = re.compile(r"(\d{1,2})[:h.]?(\d{2})?\s*[-–]\s*(\d{1,2})[:h.]?(\d{2})?")
MAX_FREQUENCY = 100
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


async def show(ctx: CommandContext, args: list[str]) -> Outcome:
    if args:
        raise UsageError(
            _("'{word}' is not a part of the rules: hours, advertising or frequency.").format(
                word=args[0][:40]
            ),
            usage_of("rules"),
        )
    storage = ctx.db()
    rules = await off_loop(storage.calling_rules.rules, ctx.team_id)
    dnc = await lists_field(storage, ctx.team_id)
    blocks: list[Block] = [
        HeaderBlock(text=_("Calling rules")),
        SectionBlock(
            fields=[
                MarkdownTextObject(
                    text=_("*Advertising calls*\n{window} ({zone})").format(
                        window=window_words(rules.hours), zone=str(ctx.tz)
                    )
                ),
                MarkdownTextObject(
                    text=_("*To one number*\nat most {n} in 24 hours").format(
                        n=number(rules.frequency)
                    )
                ),
                MarkdownTextObject(text=dnc),
                MarkdownTextObject(text=_("*Blacklist*\nthe service's own, always")),
            ]
        ),
    ]
    blocks.append(
        SectionBlock(
            fields=[MarkdownTextObject(text=t) for t in await settings_lines(storage, ctx.team_id)]
        )
    )
    if ctx.cc is not None:
        campaigns = await all_campaigns(ctx.cc)
        lines = []
        for campaign in campaigns:
            if not (is_advertising(campaign, rules) or by_type(campaign)):
                continue
            own = rules.of(campaign.campaign_uuid)
            applies = is_advertising(campaign, rules)
            state = _("rules apply") if applies else _("rules do not apply")
            hours = (
                _(", own hours {window}").format(window=window_words(own.hours))
                if own.hours
                else ""
            )
            lines.append(f"• *{campaign_label(campaign.campaign_name)}*: {state}{hours}")
        if lines:
            blocks.append(section(_("*Outbound campaigns*\n") + "\n".join(lines[:40])))
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


async def hours(ctx: CommandContext, args: list[str]) -> Outcome:
    if not args:
        raise UsageError(_("Give the hours, e.g. 08:00-17:00."), usage_of("rules hours"))
    if len(args) >= 3 and args[1].lower() in _BETWEEN:
        # ``08:00 - 17:00``, ``8h to 17h``: the window written in three words.
        args = [f"{args[0]}-{args[2]}", *args[3:]]
    window = parse_window(args[0])
    storage = ctx.db()
    campaign_uuid = ""
    scope = _("every advertising campaign")
    if len(args) > 1:
        campaign = pick_campaign(await all_campaigns(ctx.client()), " ".join(args[1:]))
        campaign_uuid = campaign.campaign_uuid
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
        {"hours": window_words(window), "campaign_uuid": campaign_uuid or None},
    )
    return notice(
        _("Advertising calls for {scope} are now allowed {window} ({zone}).").format(
            scope=scope, window=window_words(window), zone=str(ctx.tz)
        ),
        emoji=":clock8:",
    )


async def advertising(ctx: CommandContext, args: list[str]) -> Outcome:
    if len(args) < 2 or args[-1].lower() not in ("on", "off"):
        raise UsageError(_("Give the campaign, then on or off."), usage_of("rules advertising"))
    on = args[-1].lower() == "on"
    campaign = pick_campaign(await all_campaigns(ctx.client()), " ".join(args[:-1]))
    storage = ctx.db()
    await off_loop(
        storage.calling_rules.set_advertising,
        ctx.team_id,
        campaign.campaign_uuid,
        on,
        by=ctx.user_id,
    )
    await ctx.audit(
        "rules.advertising", {"campaign_uuid": campaign.campaign_uuid, "advertising": on}
    )
    name = campaign_label(campaign.campaign_name)
    text = (
        _("The calling rules now apply to *{name}*.")
        if on
        else _("The calling rules no longer apply to *{name}*: it is not advertising.")
    )
    return notice(text.format(name=name), emoji=":scales:")


async def frequency(ctx: CommandContext, args: list[str]) -> Outcome:
    if len(args) != 1 or not args[0].isdigit() or not 0 < int(args[0]) <= MAX_FREQUENCY:
        raise UsageError(
            _(
                "Give how many advertising calls one number may get in 24 hours (1 to {max})."
            ).format(max=MAX_FREQUENCY),
            usage_of("rules frequency"),
        )
    count = int(args[0])
    storage = ctx.db()
    await off_loop(storage.calling_rules.set_frequency, ctx.team_id, count, by=ctx.user_id)
    await ctx.audit("rules.frequency", {"frequency": count})
    return notice(
        _("One number may now get at most {n} advertising calls in 24 hours.").format(
            n=code(count)
        ),
        emoji=":scales:",
    )
