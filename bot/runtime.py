"""Everything a listener needs, made once per process and handed to each listener module.

Listeners get the runtime through ``register(app, runtime)``, never through globals, so a
test can run two apps (two processes' worth of state) side by side.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from slack_sdk.web.async_client import AsyncWebClient

from bot.roles import RoleResolver
from bot.service_clients import ServiceClients
from bot.settings import Settings
from bot.slack_files import WebApiFiles
from bot.slack_lookup import WebApiLookup
from commands.kernel.context import CommandContext
from storage import Storage

if TYPE_CHECKING:
    from bot.call_feed import CallFeed
    from bot.digest_post import DigestPoster


@dataclass
class Runtime:
    settings: Settings
    storage: Storage
    clients: ServiceClients
    roles: RoleResolver
    background: set[object] = field(default_factory=set)
    call_feed: CallFeed | None = None
    """The poster of call-record cards, while the HTTP server (its receiver) runs."""
    digests: DigestPoster | None = None
    """Posts digests (``digest run``, the scheduler) and tells the scheduler of changes."""

    @classmethod
    def build(cls, settings: Settings, storage: Storage) -> Runtime:
        runtime = cls(
            settings=settings,
            storage=storage,
            clients=ServiceClients(storage, settings),
            roles=RoleResolver(storage, settings.admin_ids),
        )
        from bot.digest_post import DigestPoster  # it needs the runtime it belongs to

        runtime.digests = DigestPoster(runtime)
        return runtime

    def timezone(self, team_id: str) -> ZoneInfo:
        workspace = self.storage.workspaces.get(team_id)
        return ZoneInfo(workspace.timezone if workspace else self.settings.callops_timezone)

    async def context(
        self,
        client: AsyncWebClient,
        *,
        team_id: str,
        user_id: str,
        channel_id: str | None,
        offset: int = 0,
    ) -> CommandContext:
        """The command context of one request: role from Slack and storage, the team's
        service client, its time zone.  No call-center request is made here."""
        role = await self.roles.role(client, team_id, user_id)
        binding = self.clients.binding(team_id)
        return CommandContext(
            team_id=team_id,
            user_id=user_id,
            channel_id=channel_id,
            role=role,
            tz=self.timezone(team_id),
            cc=await self.clients.get(team_id),
            workspace=self.storage.workspaces.get(team_id),
            base_url=binding.base_url if binding else None,
            offset=offset,
            storage=self.storage,
            slack=WebApiLookup(client),
            public_url=self.settings.callops_public_url,
            files=WebApiFiles(client),
            digests=self.digests,
        )

    async def close(self) -> None:
        await self.clients.close()
        if self.digests is not None:
            await self.digests.close()
