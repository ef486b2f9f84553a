"""``cc.carriers``, ``cc.gateways``, ``cc.blacklist``: read-only paged listings."""

from __future__ import annotations

from collections.abc import AsyncIterator

from callcenter.models import BlacklistEntry, Carrier, Gateway, Page
from callcenter.paging import walk
from callcenter.resources._base import Resource, paging


class Carriers(Resource):
    async def list(self, limit: int = 50, offset: int = 0) -> Page[Carrier]:
        """GET /v3/carrier."""
        return await self._request(
            "GET", "/v3/carrier", Page[Carrier], idempotent=True, params=paging(limit, offset)
        )

    def iterate(self, page_size: int = 50) -> AsyncIterator[Carrier]:
        return walk(lambda limit, offset: self.list(limit, offset), page_size)


class Gateways(Resource):
    async def list(self, limit: int = 50, offset: int = 0) -> Page[Gateway]:
        """GET /v3/gateway."""
        return await self._request(
            "GET", "/v3/gateway", Page[Gateway], idempotent=True, params=paging(limit, offset)
        )

    def iterate(self, page_size: int = 50) -> AsyncIterator[Gateway]:
        return walk(lambda limit, offset: self.list(limit, offset), page_size)


class Blacklist(Resource):
    async def list(self, limit: int = 50, offset: int = 0) -> Page[BlacklistEntry]:
        """GET /v1/blacklist (the example path; the request line in the spec differs)."""
        return await self._request(
            "GET",
            "/v1/blacklist",
            Page[BlacklistEntry],
            idempotent=True,
            params=paging(limit, offset),
        )

    def iterate(self, page_size: int = 50) -> AsyncIterator[BlacklistEntry]:
        return walk(lambda limit, offset: self.list(limit, offset), page_size)
