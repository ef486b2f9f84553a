"""One call-center client per Slack workspace, built from its stored connection, and
everything that client is built with: its transport, its token cache.

Clients are kept between requests so each workspace reuses its HTTP connections and
its cached token; ``forget`` drops one when the workspace reconnects or disconnects.
In single-workspace mode (``CALLOPS_BASE_URL``/``CALLOPS_API_KEY``) every team without a
stored connection uses that binding.

How the client's requests reach the service (``service_transport``): reads over
aiohttp's connection pool, everything else over httpx's own.  Why two: httpcore's pool
(httpx's default transport) looks at every connection it holds twice per request,
polling each idle socket and rebuilding anyio's attribute map for it, and counts its
idle connections once per idle connection.  With the kept-alive connections a busy
workspace's client holds, that bookkeeping is a large part of the CPU of
``/callops campaigns``, enough to decide how many commands a second one process holds
(``benchmarks/README.md``, "What decided each library choice").  aiohttp (already here
for Bolt and slack_sdk) hands out a kept-alive connection without that walk.
``AiohttpReads`` is the small adapter between the two: it sends httpx's request through
an aiohttp session and hands the answer back read whole (the client reads every answer
whole anyway), where ``httpx-aiohttp``, tried first, streamed a large page back in small
chunks through httpx's stream layers.

Only reads take that road.  aiohttp resends a PUT or DELETE once by itself when a
kept-alive connection turns out closed, and a connection lost mid-request must not be
mistaken for one never used, which the client's retry policy takes to mean "never sent"
(``callcenter.retry.NEVER_SENT``).  An effectful call must never be repeated on a guess,
so POST, PUT and DELETE keep httpcore, which never resends by itself and says whether a
request left this machine.  For reads, aiohttp's errors are named as httpcore would name
them, so a timeout, a refused connection and a dropped connection are reported as what
they are.

Both roads connect only where the service may be (``callcenter.addresses``): httpx's
through ``ServiceAddresses.transport``, which connects to the addresses it checked, and
aiohttp's through ``CheckedResolver``, whose checked addresses are the ones aiohttp
connects to (aiohttp reads an IP address in the URL without a resolver, so
``AiohttpReads`` checks one itself).  Neither follows a redirect.

The token the client fetches is kept in the workspace's row (``WorkspaceTokenCache``,
callcenter's ``TokenCache`` over ``storage``): ``storage`` knows nothing of callcenter,
so it keeps the token as plain encrypted data, and this adapter is the one place the two
meet; every process shares it through the database.
"""

from __future__ import annotations

import functools
import ipaddress
import socket
import ssl
from dataclasses import dataclass, field

import aiohttp
import httpx
from aiohttp.abc import AbstractResolver, ResolveResult

from bot import logs
from bot.metrics import CountingTransport, Metrics
from bot.settings import Settings
from callcenter import CallCenter, TokenCache
from callcenter.addresses import AddressRefused, ServiceAddresses
from callcenter.tokens import CachedToken
from storage import Storage, Workspace, WorkspaceStore, off_loop


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


READS = frozenset({"GET", "HEAD"})


def service_transport(tls: ssl.SSLContext, addresses: ServiceAddresses) -> ServiceTransport:
    return ServiceTransport(
        reads=AiohttpReads(tls, addresses),
        writes=addresses.transport(tls),
    )


class ServiceTransport(httpx.AsyncBaseTransport):
    """GET and HEAD through ``reads``, every other method through ``writes``."""

    def __init__(self, *, reads: httpx.AsyncBaseTransport, writes: httpx.AsyncBaseTransport):
        self._reads = reads
        self._writes = writes

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method in READS:
            return await self._reads.handle_async_request(request)
        return await self._writes.handle_async_request(request)

    async def aclose(self) -> None:
        try:
            await self._reads.aclose()
        finally:
            await self._writes.aclose()


KEEPALIVE_S = 5.0
"""How long an idle connection is kept, as httpx keeps one."""
MAX_CONNECTIONS = 100


class AiohttpReads(httpx.AsyncBaseTransport):
    """httpx requests sent through one aiohttp session (made on first use, inside the
    event loop as aiohttp requires); each answer is read whole before it is returned, so
    a failure while reading it is named here too."""

    def __init__(self, tls: ssl.SSLContext, addresses: ServiceAddresses) -> None:
        self._tls = tls
        self._addresses = addresses
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(
                ssl=self._tls,
                limit=MAX_CONNECTIONS,
                keepalive_timeout=KEEPALIVE_S,
                resolver=CheckedResolver(self._addresses),
            )
            self._session = aiohttp.ClientSession(connector=connector)
        return self._session

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        host = request.url.host
        if _is_ip(host) and not self._addresses.networks.permits(host):
            raise httpx.ConnectError(AddressRefused(host, "not_public").message, request=request)
        encoding = request.headers.encoding  # as httpx decodes them for its own use
        sent = [(k.decode(encoding), v.decode(encoding)) for k, v in request.headers.raw]
        timeouts = request.extensions.get("timeout", {})
        timeout = aiohttp.ClientTimeout(
            sock_connect=timeouts.get("connect"),
            sock_read=timeouts.get("read"),
            connect=timeouts.get("pool"),
        )
        try:
            async with self._open().request(
                request.method,
                str(request.url),
                headers=sent,
                data=request.content or None,
                allow_redirects=False,
                auto_decompress=False,  # httpx decodes, as it would its own transport's
                timeout=timeout,
            ) as answer:
                body = await answer.read()
        except aiohttp.ClientError as exc:
            raise relabel(exc, request) from exc
        return httpx.Response(
            answer.status, headers=answer.raw_headers, content=body, request=request
        )

    async def aclose(self) -> None:
        if self._session is not None:
            await self._session.close()


class CheckedResolver(AbstractResolver):
    """aiohttp's resolver: the addresses ``ServiceAddresses.checked`` permits, which are
    the ones aiohttp then connects to; a refusal is a failed lookup (``OSError``), which
    aiohttp reports as a connection error."""

    def __init__(self, addresses: ServiceAddresses) -> None:
        self._addresses = addresses

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        try:
            found = await self._addresses.checked(host, port)
        except AddressRefused as exc:
            raise OSError(exc.message) from None
        return [
            {
                "hostname": host,
                "host": address,
                "port": port,
                "family": socket.AF_INET6 if ":" in address else socket.AF_INET,
                "proto": 0,
                "flags": socket.AI_NUMERICHOST,
            }
            for address in found
        ]

    async def close(self) -> None:
        return None


def _is_ip(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


def relabel(exc: aiohttp.ClientError, request: httpx.Request) -> httpx.TransportError:
    """The httpx error that says what happened to a read, as httpcore would have said it."""
    message = str(exc) or type(exc).__name__
    # Most specific first: aiohttp's timeouts are also connection errors.
    if isinstance(exc, aiohttp.ConnectionTimeoutError):
        return httpx.ConnectTimeout(message, request=request)
    if isinstance(exc, aiohttp.ServerTimeoutError):
        return httpx.ReadTimeout(message, request=request)
    if isinstance(exc, aiohttp.ClientConnectorError):
        return httpx.ConnectError(message, request=request)
    # Closed before the answer, an answer cut short, an answer that is not HTTP.
    broken = (
        aiohttp.ServerDisconnectedError,
        aiohttp.ClientPayloadError,
        aiohttp.ClientResponseError,
    )
    if isinstance(exc, broken):
        return httpx.RemoteProtocolError(message, request=request)
    return httpx.ReadError(message, request=request)


class WorkspaceTokenCache:
    """One workspace's cached service token, shared by every process through the database."""

    def __init__(self, workspaces: WorkspaceStore, team_id: str) -> None:
        self._workspaces = workspaces
        self._team_id = team_id

    @property
    def team_id(self) -> str:
        return self._team_id

    def load(self) -> CachedToken | None:
        stored = self._workspaces.cached_token(self._team_id)
        return None if stored is None else CachedToken(stored.token, stored.expires_at)

    def save(self, token: CachedToken) -> None:
        self._workspaces.save_cached_token(self._team_id, token.token, token.expires_at)

    def clear(self) -> None:
        self._workspaces.clear_cached_token(self._team_id)
