"""Everything a listener needs, made once per process and handed to each listener module.

Listeners get the runtime through ``register(app, runtime)``, never through globals, so a
test can run two apps (two processes' worth of state) side by side.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from slack_sdk.web.async_client import AsyncWebClient

from bot.roles import RoleResolver
from bot.service_clients import ServiceClients
from bot.settings import Settings
from commands.context import CommandContext
from storage import Storage


@dataclass
class Runtime:
    settings: Settings
    storage: Storage
    clients: ServiceClients
    roles: RoleResolver
    background: set[object] = field(default_factory=set)

    @classmethod
    def build(cls, settings: Settings, storage: Storage) -> Runtime:
        return cls(
            settings=settings,
            storage=storage,
            clients=ServiceClients(storage, settings),
            roles=RoleResolver(storage, settings.admin_ids),
        )

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
            role=str(role),
            tz=self.timezone(team_id),
            cc=await self.clients.get(team_id),
            workspace=self.storage.workspaces.get(team_id),
            base_url=binding.base_url if binding else None,
            offset=offset,
        )

    async def close(self) -> None:
        await self.clients.close()
