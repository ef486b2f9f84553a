"""``cc.users`` (spec 4.6)."""

from __future__ import annotations

from collections.abc import AsyncIterator

from callcenter.models import Page, User, UserUpdate, UserUpdated
from callcenter.paging import walk
from callcenter.resources._base import Resource, paging, raise_field_errors, segment
from callcenter.rules import check_user_update


class Users(Resource):
    async def list(self, limit: int = 50, offset: int = 0) -> Page[User]:
        """GET /v3/user."""
        return await self._request(
            "GET", "/v3/user", Page[User], idempotent=True, params=paging(limit, offset)
        )

    def iterate(self, page_size: int = 50) -> AsyncIterator[User]:
        """Every user, one page in memory at a time."""
        return walk(lambda limit, offset: self.list(limit=limit, offset=offset), page_size)

    async def get(self, user_uuid: str) -> User:
        """GET /v3/user/{user_uuid}."""
        return await self._request("GET", f"/v3/user/{segment(user_uuid)}", User, idempotent=True)

    async def update(self, user_uuid: str, body: UserUpdate) -> UserUpdated:
        """PUT /v3/user/{user_uuid}.  Checks ``username`` and ``password`` first (spec
        7.6) and raises the service's ``FieldValidationError`` without sending."""
        path = f"/v3/user/{segment(user_uuid)}"
        wire = body.to_wire()
        raise_field_errors(check_user_update(wire), "PUT", path)
        return await self._request("PUT", path, UserUpdated, idempotent=False, json=wire)
