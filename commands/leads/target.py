"""Which lead list ``lead`` and ``leads upload`` mean: a list UUID, or a campaign's list.

People know their campaigns by name; a list UUID appears only on the campaign card.  So
both commands take either.  A word that is a list's UUID is used as is; anything else is
a campaign (by UUID, name, unique start of the name, quoted or not,
``commands.kernel.resolve``), whose documented ``default_list_uuid`` (spec 2.5) names its
list.  A campaign without a default list (inbound campaigns have none) gets a plain
answer, never a guess; a name that fits several campaigns (or, mistyped, none) raises
``AmbiguousCampaign`` for the dispatcher to offer the candidates.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from callcenter import CallCenter, errors
from callcenter.models import Campaign, LeadList
from callcenter.rules import LIST_UUID_MIN_LENGTH, check_list_uuid
from commands.kernel.i18n import _
from commands.kernel.reply import Reply, notice
from commands.kernel.resolve import (
    CampaignNotFound,
    all_campaigns,
    leading_campaign,
    pick_campaign,
)
from commands.kernel.text import clip, code


@dataclass(frozen=True)
class ListTarget:
    lead_list: LeadList
    campaign: Campaign | None = None
    """The campaign it was named through, if it was."""


def could_be_list_uuid(word: str) -> bool:
    """Long enough for the service's rule (36 characters) and a single word."""
    return not check_list_uuid(word) and not any(ch.isspace() for ch in word)


async def default_list(cc: CallCenter, campaign: Campaign) -> LeadList | Reply:
    """The campaign's default lead list, or why there is none to use."""
    name = clip(campaign.campaign_name, 150)
    if not campaign.default_list_uuid:
        return notice(
            _(
                "*{campaign}* has no lead list (the service names no default list for it), so "
                "there is nowhere to put leads. Give a list UUID instead."
            ).format(campaign=name),
            emoji=":card_index_dividers:",
        )
    try:
        return await cc.lists.get(campaign.default_list_uuid)
    except errors.NotFoundError:
        return notice(
            _("The lead list of *{campaign}* ({uuid}) no longer exists.").format(
                campaign=name, uuid=code(campaign.default_list_uuid)
            ),
            emoji=":mag:",
        )


def _never(word: str) -> bool:
    return False


async def find_list(
    cc: CallCenter, words: Sequence[str], *, ends_at: Callable[[str], bool] = _never
) -> tuple[ListTarget | Reply, list[str]]:
    """The list the leading ``words`` name (or a reply saying why there is none) and the
    words after it.  A campaign's name runs up to the first word for which ``ends_at``
    holds (the phone number of ``lead``); by default it is all the words.

    Raises ``AmbiguousCampaign`` when several campaigns fit (or a typo fits none)."""
    if not words:
        return notice(_("Which list? Give a campaign or a list UUID."), emoji=":mag:"), []
    first = words[0].strip()
    if could_be_list_uuid(first):
        try:
            return ListTarget(await cc.lists.get(first)), list(words[1:])
        except errors.NotFoundError:
            pass  # perhaps a campaign's UUID
    campaigns = await all_campaigns(cc)
    name, rest = leading_campaign(words, campaigns, ends_at=ends_at)
    try:
        campaign = pick_campaign(campaigns, name)
    except CampaignNotFound:
        return _nothing_called(name), rest
    found = await default_list(cc, campaign)
    return (found if isinstance(found, Reply) else ListTarget(found, campaign)), rest


def _nothing_called(word: str) -> Reply:
    if could_be_list_uuid(word):
        return notice(
            _("No lead list and no campaign has the UUID {uuid}.").format(uuid=code(word)),
            emoji=":mag:",
        )
    if word and not any(ch.isspace() for ch in word) and "-" in word:
        text = _(
            "No campaign is called or starts with *{word}*, and it is not a lead list's UUID "
            "(a list UUID has {length} characters; this has {typed}). "
            "`/callops campaigns` lists the campaigns."
        ).format(word=clip(word, 100), length=LIST_UUID_MIN_LENGTH, typed=len(word))
    else:
        text = _(
            "No campaign is called or starts with *{word}*, and it is not a "
            "lead list's UUID. `/callops campaigns` lists the campaigns."
        ).format(word=clip(word, 100))
    return notice(text, emoji=":mag:")
