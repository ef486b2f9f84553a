"""``cc.lists`` (spec 4.4)."""

from __future__ import annotations

from callcenter.models import LeadList
from callcenter.resources._base import Resource, segment


class Lists(Resource):
    async def get(self, list_uuid: str) -> LeadList:
        """GET /v3/list/{list_uuid}: the list with its upload counters."""
        return await self._request(
            "GET", f"/v3/list/{segment(list_uuid)}", LeadList, idempotent=True
        )
