"""``cc.campaigns`` (spec 4.7): listing, updating, and safe single-field changes."""

from __future__ import annotations

import builtins
from collections.abc import AsyncIterator
from typing import Any, get_args

from callcenter.errors import NotFoundError
from callcenter.models import (
    Campaign,
    CampaignRow,
    CampaignStatus,
    CampaignType,
    CampaignUpdate,
    CampaignUpdated,
    Page,
    RowPage,
)
from callcenter.paging import collect, walk
from callcenter.resources._base import Resource, paging, segment

CAMPAIGN_TYPES: tuple[str, ...] = get_args(CampaignType)
CAMPAIGN_STATUSES: tuple[str, ...] = get_args(CampaignStatus)
_LOOKUP_PAGE_SIZE = 100
_ROW_PAGE = RowPage[CampaignRow]
"""Parametrized once: pydantic looks a parametrization up again at every subscript."""


def _list_params(
    type: str | None, limit: int, offset: int
) -> list[tuple[str, str | int | float | bool]]:
    """The query of ``GET /v3/campaign``: paging, and ``type`` when given (checked)."""
    params = paging(limit, offset)
    if type is not None:
        if type not in CAMPAIGN_TYPES:
            raise ValueError(f"type must be one of {', '.join(CAMPAIGN_TYPES)}, got {type!r}")
        params.insert(0, ("type", type))
    return params


class Campaigns(Resource):
    async def list(
        self, type: str | None = None, limit: int = 50, offset: int = 0
    ) -> Page[Campaign]:
        """GET /v3/campaign, optionally only one ``type``."""
        params = _list_params(type, limit, offset)
        return await self._request(
            "GET", "/v3/campaign", Page[Campaign], idempotent=True, params=params
        )

    async def list_all(
        self, type: str | None = None, page_size: int = 100
    ) -> builtins.list[CampaignRow]:
        """Every campaign (of ``type``) in one list, as a listing shows it."""

        async def page(limit: int, offset: int) -> RowPage[CampaignRow]:
            params = _list_params(type, limit, offset)
            return await self._request(
                "GET", "/v3/campaign", _ROW_PAGE, idempotent=True, params=params
            )

        return await collect(page, page_size)

    def iterate(self, type: str | None = None, page_size: int = 50) -> AsyncIterator[Campaign]:
        """Every campaign (of ``type``), one page in memory at a time."""
        return walk(
            lambda limit, offset: self.list(type=type, limit=limit, offset=offset), page_size
        )

    async def get(self, campaign_uuid: str) -> Campaign:
        """The campaign with this UUID.  The service has no GET for one campaign, so
        this walks the listing; raises ``NotFoundError`` when no campaign matches."""
        async for campaign in self.iterate(page_size=_LOOKUP_PAGE_SIZE):
            if campaign.campaign_uuid == campaign_uuid:
                return campaign
        raise NotFoundError(
            f"campaign {campaign_uuid} not found", method="GET", path="/v3/campaign"
        )

    async def update(self, campaign_uuid: str, body: CampaignUpdate) -> CampaignUpdated:
        """PUT /v3/campaign/{campaign_uuid} with the fields set on ``body``.

        The service resets what the body omits; to change one field without touching
        the rest use ``set_status`` or ``set_fields``.  A ``campaign_name`` used by
        another campaign raises ``ConflictError``.  Never retried: it has an effect.
        """
        wire = body.model_dump(mode="json", exclude_unset=True)
        return await self._put(campaign_uuid, wire)

    async def set_status(self, campaign_uuid: str, status: str) -> Campaign:
        """Start, pause or stop a campaign, changing nothing else; returns the campaign
        as sent.  See ``set_fields`` for how every other field is kept."""
        if status not in CAMPAIGN_STATUSES:
            raise ValueError(
                f"status must be one of {', '.join(CAMPAIGN_STATUSES)}, got {status!r}"
            )
        return await self.set_fields(campaign_uuid, status=status)

    async def set_fields(self, campaign_uuid: str, **changes: Any) -> Campaign:
        """Change some fields of a campaign (e.g. ``callback_url``) and keep the rest.

        PUT needs ``campaign_name`` and ``type`` and resets what it is not sent, and
        there is no GET for one campaign: so this reads the campaign from the listing
        and sends back every field it came with (unknown ones included, values as
        received) with ``changes`` applied.  Fields the listing did not carry are not
        invented.  Returns the campaign as sent.
        """
        if "campaign_uuid" in changes:
            raise ValueError("campaign_uuid identifies the campaign and cannot be changed")
        current = await self.get(campaign_uuid)
        body = current.model_dump(mode="json", exclude_unset=True)
        body.update(changes)
        sent = Campaign.model_validate(body)
        await self._put(campaign_uuid, sent.model_dump(mode="json", exclude_unset=True))
        return sent

    async def _put(self, campaign_uuid: str, wire: dict[str, Any]) -> CampaignUpdated:
        return await self._request(
            "PUT",
            f"/v3/campaign/{segment(campaign_uuid)}",
            CampaignUpdated,
            idempotent=False,
            json=wire,
        )
