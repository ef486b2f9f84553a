"""Finding a campaign from what a person typed: its UUID, its name, a unique prefix, or
(for a typo) the nearest names.

Names are compared folded (``commands.kernel.matching.fold``): ``goi lai khach hang ct``
is "Gọi lại khách hàng CT".  A name that matches nothing is compared by similarity; the
nearest ones are offered as "Did you mean", and a read-only command may take a clear
winner directly (and says so).  Commands that change something never act on a guess:
they offer the guess as a button.

The service has no search endpoint and no GET for one campaign, so the list is walked;
campaign lists are short (tens, not thousands), so one walk per command is cheap.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from callcenter import CallCenter
from callcenter.models import Campaign, User
from commands.kernel.i18n import _
from commands.kernel.matching import clear_winner, closest_names, fold

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
_PHONE_LIKE = re.compile(r"^\+?[\d().\-]+$")


class CampaignNotFound(Exception):
    def __init__(self, query: str) -> None:
        super().__init__(query)
        self.query = query


class AmbiguousCampaign(Exception):
    """Several campaigns fit what was typed (or, with ``guessed``, none does but these
    are near); the dispatcher offers them as buttons that re-run the typed command."""

    def __init__(self, query: str, candidates: list[Campaign], *, guessed: bool = False) -> None:
        super().__init__(query)
        self.query = query
        self.candidates = candidates
        self.guessed = guessed

    def words(self) -> str:
        """The choice in plain words, where no buttons can be offered (a workflow step)."""
        names = ", ".join(c.campaign_name for c in self.candidates[:10])
        if len(self.candidates) > 10:
            several = _(
                "Several campaigns start with '{query}': {names} and {more} more. "
                "Give more of the name, or the campaign's UUID."
            )
        else:
            several = _(
                "Several campaigns start with '{query}': {names}. "
                "Give more of the name, or the campaign's UUID."
            )
        return several.format(query=self.query, names=names, more=len(self.candidates) - 10)


@dataclass(frozen=True)
class CampaignMatch:
    campaign: Campaign
    query: str
    guessed: bool = False
    """The name was not typed as it is: a clear nearest match was taken for a typo."""


def is_uuid(text: str) -> bool:
    return bool(_UUID.match(text.strip()))


def find_campaign(campaigns: Sequence[Campaign], query: str, *, take_guess: bool) -> CampaignMatch:
    """UUID, then exact name, then unique prefix (both folded), then the nearest names.

    A guess (the nearest name to a typo) is taken only with ``take_guess`` and when it is
    clearly ahead of the next; otherwise the near names are raised as
    ``AmbiguousCampaign(guessed=True)``, to be offered.
    """
    wanted = query.strip()
    if _UUID.match(wanted):
        for campaign in campaigns:
            if campaign.campaign_uuid.lower() == wanted.lower():
                return CampaignMatch(campaign, query)
        raise CampaignNotFound(query)
    folded = fold(wanted)
    if not folded:
        raise CampaignNotFound(query)
    names = [fold(c.campaign_name) for c in campaigns]
    exact = [c for c, name in zip(campaigns, names, strict=True) if name == folded]
    if len(exact) == 1:
        return CampaignMatch(exact[0], query)
    if exact:
        raise AmbiguousCampaign(query, exact)
    prefixed = [c for c, name in zip(campaigns, names, strict=True) if name.startswith(folded)]
    if len(prefixed) == 1:
        return CampaignMatch(prefixed[0], query)
    if prefixed:
        raise AmbiguousCampaign(query, prefixed)
    scored = closest_names(folded, names)
    winner = clear_winner(scored)
    if take_guess and winner is not None:
        return CampaignMatch(campaigns[winner], query, guessed=True)
    if scored:
        raise AmbiguousCampaign(query, [campaigns[i] for i, _score in scored], guessed=True)
    raise CampaignNotFound(query)


def pick_campaign(campaigns: Sequence[Campaign], query: str) -> Campaign:
    """The campaign ``query`` names; a typo is never taken, only offered (raised)."""
    return find_campaign(campaigns, query, take_guess=False).campaign


async def all_campaigns(cc: CallCenter) -> list[Campaign]:
    """Every campaign of the service, read 100 to a page."""
    return [c async for c in cc.campaigns.iterate(page_size=100)]


async def all_users(cc: CallCenter) -> list[User]:
    """Every user of the directory, read 100 to a page."""
    return [u async for u in cc.users.iterate(page_size=100)]


# --- where a campaign name ends among typed words ----------------------------------------


def is_phone_like(word: str) -> bool:
    """Digits as a phone number is written (``0912``, ``+84-912``), three at least, so the
    ``2`` of "nhóm 2" is still part of a name; a country code (``+84``) begins a number."""
    if not _PHONE_LIKE.match(word):
        return False
    digits = sum(ch.isdigit() for ch in word)
    return digits >= 3 or (word.startswith("+") and digits >= 1)


def _quoted(word: str) -> bool:
    """A word with a space in it was quoted: it is a whole name by itself."""
    return any(ch.isspace() for ch in word)


def _names_something(folded: str, names: Sequence[str]) -> bool:
    return any(name.startswith(folded) for name in names)


def leading_campaign(
    words: Sequence[str], campaigns: Sequence[Campaign], *, ends_at: Callable[[str], bool]
) -> tuple[str, list[str]]:
    """The campaign name at the front of ``words`` (quoted or not) and the words after it.

    A quoted name is one word.  Otherwise the longest run of words that is exactly a
    campaign's name wins (so "Khuyến mãi 2024" keeps its number); failing that, the
    name runs up to the first word for which ``ends_at`` holds (a phone number, an
    option) and the rest is left for the caller.
    """
    if not words:
        return "", []
    if _quoted(words[0]):
        return words[0], list(words[1:])
    names = {fold(c.campaign_name) for c in campaigns}
    for n in range(len(words), 0, -1):
        if fold(" ".join(words[:n])) in names:
            return " ".join(words[:n]), list(words[n:])
    n = next((i for i, w in enumerate(words) if i > 0 and ends_at(w)), len(words))
    return " ".join(words[:n]), list(words[n:])


def campaign_queries(words: Sequence[str], campaigns: Sequence[Campaign]) -> list[str]:
    """Several campaigns typed one after another, each quoted or not: ``Summer sale,
    Reminders`` (commas separate), ``"Summer sale" Reminders`` (quotes), or
    ``goi lai khach hang ct vay tieu dung`` (the longest runs of words that begin a
    name).  Words that fit no such split are one name, to be matched (or guessed) whole.
    """
    if not words:
        return []
    if any("," in w for w in words):
        return _comma_separated(words)
    if any(_quoted(w) for w in words):
        return _runs(words, [fold(c.campaign_name) for c in campaigns])[0]
    whole = " ".join(words)
    names = [fold(c.campaign_name) for c in campaigns]
    if _names_something(fold(whole), names):
        return [whole]
    runs, all_named = _runs(words, names)
    return runs if all_named else [whole]


def _runs(words: Sequence[str], names: Sequence[str]) -> tuple[list[str], bool]:
    """Greedy longest runs of unquoted words that begin some name; quoted words alone.
    The flag says whether every run begins a name."""
    queries: list[str] = []
    all_named = True
    i = 0
    while i < len(words):
        if _quoted(words[i]):
            queries.append(words[i])
            i += 1
            continue
        end = i + 1
        for j in range(i + 1, len(words) + 1):
            if _quoted(words[j - 1]):
                break
            if _names_something(fold(" ".join(words[i:j])), names):
                end = j
        all_named = all_named and _names_something(fold(" ".join(words[i:end])), names)
        queries.append(" ".join(words[i:end]))
        i = end
    return queries, all_named


def _comma_separated(words: Sequence[str]) -> list[str]:
    queries: list[str] = []
    current: list[str] = []
    for word in words:
        if _quoted(word):
            if current:
                queries.append(" ".join(current))
                current = []
            queries.append(word.strip().rstrip(",").strip())
            continue
        for k, part in enumerate(word.split(",")):
            if k > 0 and current:
                queries.append(" ".join(current))
                current = []
            if part.strip():
                current.append(part.strip())
    if current:
        queries.append(" ".join(current))
    return [q for q in queries if q]
