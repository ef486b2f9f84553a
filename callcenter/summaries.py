"""Listings read only as far as a listing shows them, decoded with msgspec.

``GET /v3/campaign`` answers every campaign whole: schedules, recall rules, network
split, some 2 KB each, 118 KB for the emulator's 60 campaigns.  ``/callops campaigns``
shows six fields of each.  pydantic-core validating that page, even into a model of
those six fields, walked every other field as it went and was the largest single cost
of the command left (``benchmarks/ack.py``); msgspec skips what a struct does not name
without building it, in a third to a half of the time.  Everything else the client reads
stays a pydantic model (``callcenter.models``); a struct here is for a listing read on
every command, where that difference shows.

Decoding is lax in the way pydantic's is: a number sent as a string is still a number.
``callcenter._responses.read_response`` decodes a struct as it validates a model, and
an answer that does not fit is the same ``UnexpectedResponseError``.
"""

from __future__ import annotations

from typing import Any

import msgspec


class Summary(msgspec.Struct, frozen=True):
    """Base of the listing structs: immutable, compared by value."""

    def to_wire(self) -> dict[str, Any]:
        """The fields as they were read, by their wire names (an absent one left out)."""
        fields = msgspec.structs.asdict(self)
        return {name: value for name, value in fields.items() if value is not msgspec.UNSET}


class CampaignSummary(Summary, frozen=True):
    """A campaign as a listing shows it (the fields of ``models.Campaign`` with the
    same names and defaults; ``type``, ``status`` and ``mode_call`` are any text, as
    there, so a value the spec does not list still shows)."""

    campaign_uuid: str
    campaign_name: str
    type: str
    status: str = "stop"
    mode_call: str = "direct"
    concurrent_call: int = 0


class Envelope(Summary, frozen=True):
    """An answer's top level.  A top-level ``error`` makes any answer an error body, even
    on a 2xx (spec 7.9, ``_responses.classify``): it is kept raw, unread, only so that
    its presence is seen in the same pass, where searching a 118 KB page for the word
    costs half as much as decoding the page."""

    error: msgspec.Raw | msgspec.UnsetType = msgspec.UNSET


class CampaignSummaryPage(Envelope, frozen=True):
    """``GET /v3/campaign``'s paging envelope (spec section 2) around summaries."""

    data: list[CampaignSummary] = []
    limit: int = 0
    offset: int = 0
    total: int = 0


__all__ = ["CampaignSummary", "CampaignSummaryPage", "Envelope", "Summary"]
