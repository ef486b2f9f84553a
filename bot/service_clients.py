"""One call-center client per Slack workspace, built from its stored connection.

Clients are kept between requests so each workspace reuses its HTTP connections and
its cached token; ``forget`` drops one when the workspace reconnects or disconnects.
In single-workspace mode (``CALLOPS_BASE_URL``/``CALLOPS_API_KEY``) every team without a
stored connection uses that binding.
"""

from __future__ import annotations

import functools
import ssl
from dataclasses import dataclass, field

import httpx

from bot import logs
from bot.metrics import Metrics
from bot.metrics_hooks import CountingTransport
from bot.service_transport import service_transport
from bot.settings import Settings
from bot.token_cache import WorkspaceTokenCache
from callcenter import CallCenter, TokenCache
from callcenter.addresses import ServiceAddresses
from storage import Storage, Workspace, off_loop


@dataclass(frozen=True)
class Binding:
    base_url: str
    api_key: str = field(repr=False)
    stored: bool
    """True when the connection comes from the database, False for the environment's."""


class ServiceClients:
    def __init__(
        self,
        storage: Storage,
        settings: Settings,
        *,
        timeout: float = 10.0,
        metrics: Metrics | None = None,
        addresses: ServiceAddresses | None = None,
    ) -> None:
        self._storage = storage
        self._settings = settings
        # Where the service may be: every client connects only there.
        self._addresses = addresses or ServiceAddresses(settings.service_networks)
        self._timeout = timeout
        self._metrics = metrics
        # Each team's client with the binding it was built for (the key is in the client
        # anyway), compared on every request.
        self._clients: dict[str, tuple[Binding, CallCenter]] = {}

    def binding(self, team_id: str) -> Binding | None:
        """The team's connection. Blocking (the database): off the event loop."""
        return self.binding_of(*self._storage.workspaces.get_with_key(team_id))

    def binding_of(self, workspace: Workspace | None, api_key: str | None) -> Binding | None:
        """The binding of a workspace row already read (``get_with_key``)."""
        if workspace is not None and workspace.connected and workspace.base_url and api_key:
            return Binding(workspace.base_url, api_key, stored=True)
        if self._settings.callops_base_url and self._settings.callops_api_key:
            return Binding(
                self._settings.callops_base_url,
                self._settings.callops_api_key.get_secret_value(),
                stored=False,
            )
        return None

    async def get(self, team_id: str) -> CallCenter | None:
        return await self.client_for(team_id, await off_loop(self.binding, team_id))

    async def client_for(self, team_id: str, binding: Binding | None) -> CallCenter | None:
        """The client of ``binding`` (read with ``binding``, off the event loop: it asks
        the database), kept for the next request while the binding stays the same."""
        if binding is None:
            return None
        cached = self._clients.get(team_id)
        if cached is not None and cached[0] == binding:
            return cached[1]
        cache: TokenCache | None = (
            WorkspaceTokenCache(self._storage.workspaces, team_id) if binding.stored else None
        )
        logs.remember_secret(binding.api_key)
        transport: httpx.AsyncBaseTransport = service_transport(tls_context(), self._addresses)
        if self._metrics is not None:
            transport = CountingTransport(transport, self._metrics)
        client = CallCenter(
            binding.base_url,
            binding.api_key,
            timeout=self._timeout,
            token_cache=cache,
            transport=transport,
        )
        self._clients[team_id] = (binding, client)
        if cached is not None:
            await cached[1].close()
        return client

    async def forget(self, team_id: str) -> None:
        cached = self._clients.pop(team_id, None)
        if cached is not None:
            await cached[1].close()

    async def close(self) -> None:
        clients = [c for _, c in self._clients.values()]
        self._clients.clear()
        for client in clients:
            await client.close()


@functools.cache
def tls_context() -> ssl.SSLContext:
    """One TLS context for every workspace's client: building one loads the CA bundle,
    which the scheduler, waking hundreds of workspaces in the same minute after a start,
    would otherwise do once per workspace on the event loop."""
    return httpx.create_ssl_context()
