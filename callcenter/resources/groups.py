"""``cc.groups`` (spec 4.6).  The service lists groups only inside users."""

from __future__ import annotations

from callcenter.models import GroupCreate, GroupCreated, GroupUpdate, GroupUpdated
from callcenter.resources._base import Resource, raise_field_errors, segment
from callcenter.rules import check_group_name


class Groups(Resource):
    async def create(self, body: GroupCreate) -> GroupCreated:
        """POST /v3/group.  A bad ``group_name`` fails here (spec 7.5); a name already
        used raises ``ConflictError`` from the service."""
        raise_field_errors(check_group_name(body.group_name), "POST", "/v3/group")
        return await self._request(
            "POST", "/v3/group", GroupCreated, idempotent=False, json=body.to_wire()
        )

    async def update(self, group_uuid: str, body: GroupUpdate) -> GroupUpdated:
        """PUT /v3/group/{group_uuid}.  An unknown group raises ``NotFoundError``."""
        path = f"/v3/group/{segment(group_uuid)}"
        raise_field_errors(check_group_name(body.group_name), "PUT", path)
        return await self._request("PUT", path, GroupUpdated, idempotent=False, json=body.to_wire())
