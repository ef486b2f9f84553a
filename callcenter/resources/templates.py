"""``cc.templates`` (spec 4.7)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from callcenter.models import Page, Template
from callcenter.paging import walk
from callcenter.resources._base import Resource, paging


class Templates(Resource):
    async def list(
        self, template_name: str | None = None, limit: int = 50, offset: int = 0
    ) -> Page[Template]:
        """GET /v3/template, optionally filtered by ``template_name``."""
        params = paging(limit, offset)
        if template_name is not None:
            params.insert(0, ("template_name", template_name))
        return await self._request(
            "GET", "/v3/template", Page[Template], idempotent=True, params=params
        )

    def iterate(
        self, template_name: str | None = None, page_size: int = 50
    ) -> AsyncIterator[Template]:
        """Every template, one page in memory at a time."""
        return walk(
            lambda limit, offset: self.list(template_name, limit=limit, offset=offset), page_size
        )
