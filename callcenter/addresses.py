"""Where the call-center service may be: a public address, or a network an operator allows.

A workspace admin types the service's URL into ``/callops connect``, and callops then
sends requests (the API key among them) to it from the host it runs on.  Left open, that
lets anyone who can install the app read the host's own network: ``http://127.0.0.1``,
a cloud's metadata address, a database's admin page.  So every connection to the
service goes to an address that is public (``ipaddress``' ``is_global``), unless it lies
in ``CALLOPS_SERVICE_NETWORKS``, the networks an operator allows (the offline demo and the
tests allow loopback: ``LOOPBACK_NETWORKS``).

The address checked is the address connected to: ``ServiceAddresses.checked`` resolves a
host once, through the standard resolver (so the numeric forms ``0x7f000001``,
``2130706433`` and IPv4-mapped IPv6 are read as the socket would read them; an IPv6
address that carries an IPv4 one, for a translator or tunnel to deliver to, is judged by
the IPv4 address inside, and site-local ``fec0::/10`` is never public), and
``PinnedBackend`` connects to exactly the addresses it checked, keeping the host name for
the ``Host`` header and TLS.  A name that resolves elsewhere a moment later (DNS
rebinding) changes nothing: it is never resolved again for that connection.  The
resolver is given, so tests can give their own.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol
from urllib.parse import urlsplit

import httpcore
import httpx

LOOPBACK_NETWORKS = "127.0.0.0/8,::1/128"
"""What the offline demo and the tests allow: the service on this machine."""

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Reason = Literal["not_found", "not_public"]


class AddressRefused(Exception):
    """The service's host has no address, or one that is neither public nor allowed."""

    def __init__(self, host: str, reason: Reason) -> None:
        self.host = host
        self.reason: Reason = reason
        super().__init__(self.message)

    @property
    def message(self) -> str:
        if self.reason == "not_found":
            return f"{self.host} could not be found"
        return (
            f"{self.host} is on a private or reserved network, where callops does not "
            "send requests (an operator can allow it with CALLOPS_SERVICE_NETWORKS)"
        )


class Resolver(Protocol):
    async def resolve(self, host: str, port: int) -> list[str]:
        """Every address ``host`` stands for, as text (empty or ``OSError``: none)."""
        ...


class SystemResolver:
    """The standard resolver (``getaddrinfo``), off the event loop as asyncio runs it."""

    async def resolve(self, host: str, port: int) -> list[str]:
        loop = asyncio.get_running_loop()
        found = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        return list(dict.fromkeys(str(entry[4][0]) for entry in found))


@dataclass(frozen=True)
class ServiceNetworks:
    """The networks, besides public ones, where the service may be."""

    allowed: tuple[Network, ...] = ()

    @classmethod
    def parse(cls, text: str) -> ServiceNetworks:
        """``CALLOPS_SERVICE_NETWORKS``: comma-separated CIDRs (``ValueError`` for a bad one)."""
        return cls(
            tuple(ipaddress.ip_network(part.strip()) for part in text.split(",") if part.strip())
        )

    def permits(self, address: str) -> bool:
        try:
            ip = ipaddress.ip_address(address.split("%", 1)[0])  # an IPv6 scope id aside
        except ValueError:
            return False
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        if any(ip in network for network in self.allowed):
            return True
        if isinstance(ip, ipaddress.IPv6Address):
            if ip.is_site_local:  # fec0::/10: deprecated, routed as the site decides
                return False
            embedded = embedded_ipv4(ip)
            if embedded:
                # A translator or tunnel on the way delivers to the IPv4 address inside.
                return all(self.permits(str(v4)) for v4 in embedded)
        return ip.is_global and not ip.is_multicast


_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_IPV4_TRANSLATED = ipaddress.ip_network("::ffff:0:0:0/96")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
_SIXTOFOUR = ipaddress.ip_network("2002::/16")
_TEREDO = ipaddress.ip_network("2001::/32")


def embedded_ipv4(ip: ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address, ...]:
    """The IPv4 addresses an IPv6 address carries, where some network may deliver to
    them: IPv4-compatible (``::a.b.c.d``) and -translated (``::ffff:0:a.b.c.d``), NAT64's
    well-known prefix (``64:ff9b::/96``) and local-use prefix (``64:ff9b:1::/48``, the
    address in RFC 6052's /48 layout), 6to4 (``2002::/16``) and Teredo (``2001::/32``,
    its server and its client).  IPv4-mapped addresses are read before this."""
    value = int(ip)
    low32 = ipaddress.IPv4Address(value & 0xFFFFFFFF)
    if ip in _IPV4_COMPATIBLE:
        return () if value <= 1 else (low32,)  # :: and ::1 are IPv6's own
    if ip in _IPV4_TRANSLATED or ip in _NAT64:
        return (low32,)
    if ip in _NAT64_LOCAL:
        # RFC 6052, a /48 prefix: bits 48-63 hold the first half, 72-87 the second.
        first = (value >> 64) & 0xFFFF
        second = (value >> 40) & 0xFFFF
        return (ipaddress.IPv4Address((first << 16) | second),)
    if ip in _SIXTOFOUR and ip.sixtofour is not None:
        return (ip.sixtofour,)
    if ip in _TEREDO and ip.teredo is not None:
        return ip.teredo
    return ()


@dataclass
class ServiceAddresses:
    """The one rule for where the service may be, with the resolver it reads names with."""

    networks: ServiceNetworks = field(default_factory=ServiceNetworks)
    resolver: Resolver = field(default_factory=SystemResolver)

    async def checked(self, host: str, port: int) -> list[str]:
        """``host``'s addresses, resolved once, when every one of them is permitted."""
        try:
            found = await self.resolver.resolve(host, port)
        except (OSError, UnicodeError):
            found = []
        if not found:
            raise AddressRefused(host, "not_found")
        if not all(self.networks.permits(address) for address in found):
            raise AddressRefused(host, "not_public")
        return found

    async def transport_for(self, base_url: str, tls: ssl.SSLContext) -> httpx.AsyncHTTPTransport:
        """A transport for ``base_url``'s host, resolved and checked now, and pinned to
        the addresses checked (``AddressRefused`` when they are not permitted)."""
        parts = urlsplit(base_url)
        host = parts.hostname or ""
        port = parts.port or (443 if parts.scheme == "https" else 80)
        found = await self.checked(host, port)
        return self.transport(tls, pinned={host: found})

    def transport(
        self, tls: ssl.SSLContext, *, pinned: Mapping[str, Sequence[str]] | None = None
    ) -> httpx.AsyncHTTPTransport:
        """An httpx transport that connects only to permitted addresses; ``pinned`` maps a
        host already checked to its addresses, which are used without resolving again."""
        return PinnedTransport(PinnedBackend(self, pinned or {}), tls)


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend, connecting to the checked addresses of each host."""

    def __init__(self, addresses: ServiceAddresses, pinned: Mapping[str, Sequence[str]]) -> None:
        self._addresses = addresses
        self._pinned = pinned
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore.AsyncNetworkBackend's signature
        local_address: str | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        found = self._pinned.get(host)
        if found is None:
            try:
                found = await self._addresses.checked(host, port)
            except AddressRefused as exc:
                raise httpcore.ConnectError(exc.message) from None
        failure: Exception = httpcore.ConnectError(f"{host} could not be reached")
        for address in found:
            try:
                return await self._inner.connect_tcp(
                    address,
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc
        raise failure

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 - httpcore.AsyncNetworkBackend's signature
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("the call-center service is reached over TCP only")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class PinnedTransport(httpx.AsyncHTTPTransport):
    """httpx's own transport on a pool whose connections go through ``PinnedBackend``:
    httpx takes no network backend itself, its pool (httpcore's) does."""

    def __init__(self, backend: PinnedBackend, tls: ssl.SSLContext) -> None:
        super().__init__(verify=tls)
        limits = httpx.Limits(max_connections=100, max_keepalive_connections=20)
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=tls,
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=backend,
        )
