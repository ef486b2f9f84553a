"""Which lead list ``lead`` and ``leads upload`` mean: a list UUID, or a campaign's list.

People know their campaigns by name; a list UUID appears only on the campaign card.  So
both commands take either.  A word that is a list's UUID is used as is; anything else is
a campaign (by UUID, name or unique start of the name, ``commands.kernel.resolve``),
whose documented ``default_list_uuid`` (spec 2.5) names its list.  A campaign without a
default list (inbound campaigns have none) gets a plain answer, never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass

from callcenter import CallCenter, errors
from callcenter.models import Campaign, LeadList
from callcenter.rules import LIST_UUID_MIN_LENGTH, check_list_uuid
from commands.kernel.reply import Reply, notice
from commands.kernel.resolve import CampaignNotFound, all_campaigns, pick_campaign
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
            f"*{name}* has no lead list (the service names no default list for it), so "
            "there is nowhere to put leads. Give a list UUID instead.",
            emoji=":card_index_dividers:",
        )
    try:
        return await cc.lists.get(campaign.default_list_uuid)
    except errors.NotFoundError:
        return notice(
            f"The lead list of *{name}* ({code(campaign.default_list_uuid)}) no longer exists.",
            emoji=":mag:",
        )


async def find_list(cc: CallCenter, target: str) -> ListTarget | Reply:
    """The list ``target`` names, or a reply saying why there is none.

    Raises ``AmbiguousCampaign`` when several campaigns start with ``target``: the caller
    offers them as buttons that finish its own command."""
    word = target.strip()
    if could_be_list_uuid(word):
        try:
            return ListTarget(await cc.lists.get(word))
        except errors.NotFoundError:
            pass  # perhaps a campaign's UUID
    try:
        campaign = pick_campaign(await all_campaigns(cc), word)
    except CampaignNotFound:
        if could_be_list_uuid(word):
            return notice(f"No lead list and no campaign has the UUID {code(word)}.", emoji=":mag:")
        length = (
            f" (a list UUID has {LIST_UUID_MIN_LENGTH} characters; this has {len(word)})"
            if word and not any(ch.isspace() for ch in word) and "-" in word
            else ""
        )
        return notice(
            f"No campaign is called or starts with *{clip(word, 100)}*, and it is not a "
            f"lead list's UUID{length}. `/callops campaigns` lists the campaigns.",
            emoji=":mag:",
        )
    found = await default_list(cc, campaign)
    return found if isinstance(found, Reply) else ListTarget(found, campaign)
