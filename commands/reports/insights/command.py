"""``insights [campaign] [day]``: reads the words, finds the campaign and its allowed
hours, and answers with the page."""

from __future__ import annotations

from datetime import UTC, date, datetime

from callcenter.models import Campaign
from commands.campaigns.cards import guess_note
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError, split_options
from commands.kernel.i18n import _
from commands.kernel.matching import fold
from commands.kernel.periods import PeriodError, parse_moment
from commands.kernel.reply import Reply
from commands.kernel.resolve import CampaignMatch, CampaignNotFound, all_campaigns, find_campaign
from commands.reports.chart_blocks import chart_mode
from commands.reports.insights.chart import chart_blocks
from commands.reports.insights.gather import gather_insights
from commands.reports.insights.model import INSIGHTS_TZ
from commands.reports.insights.page import insights_reply
from storage.offload import off_loop


def _day(word: str, now: datetime) -> date | None:
    """``today``, ``yesterday`` (also in Vietnamese) or ``YYYY-MM-DD``; None if not a day."""
    try:
        return parse_moment(word, INSIGHTS_TZ, now=now).date()
    except PeriodError:
        return None


async def insights(ctx: CommandContext, args: list[str]) -> Reply:
    usage = usage_of("insights")
    positional, options = split_options(args)
    if options:
        raise UsageError(_("insights takes no options; give a campaign and a day."), usage)
    now = datetime.now(UTC)
    day = now.astimezone(INSIGHTS_TZ).date()
    if positional:
        last = positional[-1]
        if fold(last) in ("week", "month", "tuan", "thang"):
            raise UsageError(
                _(
                    "insights looks at one day: today, yesterday or YYYY-MM-DD, not '{word}'."
                ).format(word=last),
                usage,
            )
        found = _day(last, now)
        if found is not None:
            day = found
            positional = positional[:-1]
    if day > now.astimezone(INSIGHTS_TZ).date():
        raise UsageError(_("{day} has not come yet.").format(day=day.isoformat()), usage)
    cc = ctx.client()
    campaign: Campaign | None = None
    match: CampaignMatch | None = None
    if positional:
        query = " ".join(positional)
        try:
            # Read-only: a clear nearest name is taken for a typo, and said so.
            match = find_campaign(await all_campaigns(cc), query, take_guess=True)
            campaign = match.campaign
        except CampaignNotFound as exc:
            raise UsageError(
                _("No campaign is named '{query}' or starts with it.").format(query=exc.query),
                usage,
            ) from exc
    rules = await off_loop(ctx.storage.calling_rules.rules, ctx.team_id)
    allowed = rules.hours_of(campaign.campaign_uuid) if campaign else rules.hours
    found_insights = await gather_insights(cc, day, campaign=campaign, allowed=allowed, now=now)
    chart = await chart_blocks(found_insights, chart_mode(ctx.workspace))
    reply = insights_reply(found_insights, chart)
    note = guess_note([match]) if match is not None else None
    if note is not None:
        reply.blocks.insert(1, note)
    return reply
