"""Who is an admin: Slack's own admins and owners, ``CALLOPS_ADMINS``, then stored roles.

``users.info`` is asked at most once per user every few minutes; if Slack cannot say,
the user is treated as not a workspace admin (fail closed) and keeps their stored role.
"""

from __future__ import annotations

import logging
import time

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from storage import Role, effective_role

log = logging.getLogger(__name__)

CACHE_SECONDS = 300.0


class RoleResolver:
    def __init__(self, env_admins: frozenset[str]) -> None:
        self._env_admins = env_admins
        self._admin_cache: dict[tuple[str, str], tuple[float, bool]] = {}

    async def is_workspace_admin(self, client: AsyncWebClient, team_id: str, user_id: str) -> bool:
        key = (team_id, user_id)
        cached = self._admin_cache.get(key)
        now = time.monotonic()
        if cached is not None and now - cached[0] < CACHE_SECONDS:
            return cached[1]
        try:
            response = await client.users_info(user=user_id)
            user = response.get("user") or {}
            answer = bool(user.get("is_admin") or user.get("is_owner"))
        except SlackApiError as exc:
            log.warning("users.info failed for %s: %s", user_id, exc.response.get("error"))
            answer = False
        self._admin_cache[key] = (now, answer)
        return answer

    async def role_given(
        self, client: AsyncWebClient, team_id: str, user_id: str, stored: Role | None
    ) -> Role:
        """The person's role, from the stored role the request already read
        (``RoleStore.stored_role``, in the same trip off the event loop as its other
        reads) and, unless that settles it, what Slack says of them."""
        if user_id in self._env_admins or stored is Role.ADMIN:
            return Role.ADMIN  # nothing Slack says can change it: no users.info call
        return effective_role(
            stored,
            is_workspace_admin=await self.is_workspace_admin(client, team_id, user_id),
            is_env_admin=False,
        )
