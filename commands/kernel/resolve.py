"""Finding a campaign from what a person typed: its UUID, its name, or a unique prefix.

The service has no search endpoint and no GET for one campaign, so the list is walked;
campaign lists are short (tens, not thousands), so one walk per command is cheap.
"""

from __future__ import annotations

import re

from callcenter import CallCenter
from callcenter.models import Campaign

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


class CampaignNotFound(Exception):
    def __init__(self, query: str) -> None:
        super().__init__(query)
        self.query = query


class AmbiguousCampaign(Exception):
    """Several campaigns start with what was typed; the reply offers them as buttons."""

    def __init__(self, query: str, candidates: list[Campaign]) -> None:
        super().__init__(query)
        self.query = query
        self.candidates = candidates

    def words(self) -> str:
        """The choice in plain words, where no buttons can be offered (a workflow step)."""
        names = ", ".join(c.campaign_name for c in self.candidates[:10])
        more = f" and {len(self.candidates) - 10} more" if len(self.candidates) > 10 else ""
        return (
            f"Several campaigns start with '{self.query}': {names}{more}. "
            "Give more of the name, or the campaign's UUID."
        )


def pick_campaign(campaigns: list[Campaign], query: str) -> Campaign:
    """UUID, then exact name (any case), then unique prefix (any case)."""
    wanted = query.strip()
    if _UUID.match(wanted):
        for campaign in campaigns:
            if campaign.campaign_uuid.lower() == wanted.lower():
                return campaign
        raise CampaignNotFound(query)
    folded = wanted.casefold()
    exact = [c for c in campaigns if c.campaign_name.casefold() == folded]
    if len(exact) == 1:
        return exact[0]
    prefixed = [c for c in campaigns if c.campaign_name.casefold().startswith(folded)]
    if len(prefixed) == 1:
        return prefixed[0]
    if prefixed:
        raise AmbiguousCampaign(query, prefixed)
    raise CampaignNotFound(query)


async def all_campaigns(cc: CallCenter) -> list[Campaign]:
    return [c async for c in cc.campaigns.iterate(page_size=100)]


async def resolve_campaign(cc: CallCenter, query: str) -> Campaign:
    return pick_campaign(await all_campaigns(cc), query)
