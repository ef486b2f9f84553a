"""The look-ups a request's context is built from besides the database's row: who is an
admin, what Slack says of the person, and the team's time zone.

Who is an admin: Slack's own admins and owners, ``CALLOPS_ADMINS``, then stored roles;
and, from the same ``users.info`` answer, the person's Slack locale and time zone
(``RoleResolver``).  ``users.info`` is asked at most once per user every few minutes
(with ``include_locale``, so the one call says both); if Slack cannot say, the user is
treated as not a workspace admin (fail closed) and keeps their stored role.

Each team's time zone (``TeamZones``): the one its workspace was given, else
``CALLOPS_TIMEZONE``.  Digests, alerts, call cards and approval cards show times in it
too; they take it as a plain ``Callable[[str], ZoneInfo]`` so none of them needs the
runtime to ask.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from storage import Role, Storage, Workspace, effective_role

log = logging.getLogger(__name__)

CACHE_SECONDS = 300.0


@dataclass(frozen=True)
class SlackPerson:
    """What ``users.info`` said of someone: admin or owner, their locale and zone."""

    is_admin: bool
    locale: str | None = None
    tz: str | None = None


_UNKNOWN = SlackPerson(is_admin=False)
"""Slack could not say: not an admin (fail closed), locale and zone unknown."""


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


class RoleResolver:
    def __init__(self, env_admins: frozenset[str]) -> None:
        self._env_admins = env_admins
        self._cache: dict[tuple[str, str], tuple[float, SlackPerson]] = {}

    async def slack_person(self, client: AsyncWebClient, team_id: str, user_id: str) -> SlackPerson:
        """What Slack says of the person (remembered for a few minutes)."""
        key = (team_id, user_id)
        cached = self._cache.get(key)
        now = time.monotonic()
        if cached is not None and now - cached[0] < CACHE_SECONDS:
            return cached[1]
        try:
            response = await client.users_info(user=user_id, include_locale=True)
            user = response.get("user") or {}
            answer = SlackPerson(
                is_admin=bool(user.get("is_admin") or user.get("is_owner")),
                locale=_text(user.get("locale")),
                tz=_text(user.get("tz")),
            )
        except SlackApiError as exc:
            log.warning("users.info failed for %s: %s", user_id, exc.response.get("error"))
            answer = _UNKNOWN
        self._cache[key] = (now, answer)
        return answer

    async def is_workspace_admin(self, client: AsyncWebClient, team_id: str, user_id: str) -> bool:
        return (await self.slack_person(client, team_id, user_id)).is_admin

    async def role_given(
        self, client: AsyncWebClient, team_id: str, user_id: str, stored: Role | None
    ) -> tuple[Role, SlackPerson | None]:
        """The person's role, from the stored role the request already read
        (``RoleStore.stored_role``, in the same trip off the event loop as its other
        reads) and, unless that settles it, what Slack says of them; with that answer
        (None when Slack was not asked), which also says their locale and zone."""
        if user_id in self._env_admins or stored is Role.ADMIN:
            return Role.ADMIN, None  # nothing Slack says can change it: no users.info call
        said = await self.slack_person(client, team_id, user_id)
        return effective_role(stored, is_workspace_admin=said.is_admin, is_env_admin=False), said


class TeamZones:
    def __init__(self, storage: Storage, default: str) -> None:
        self._storage = storage
        self._default = default

    def __call__(self, team_id: str) -> ZoneInfo:
        return self.of(self._storage.workspaces.get(team_id))

    def of(self, workspace: Workspace | None) -> ZoneInfo:
        """The zone of a workspace row already read."""
        return ZoneInfo(workspace.timezone if workspace else self._default)
