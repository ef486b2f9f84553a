"""How the call-center client's requests reach the service: reads over aiohttp's
connection pool, everything else over httpx's own.

Why two: httpcore's pool (httpx's default transport) looks at every connection it holds
twice per request, polling each idle socket and rebuilding anyio's attribute map for it,
and counts its idle connections once per idle connection.  With the ten or twenty
kept-alive connections a busy workspace's client holds, that bookkeeping was about a
third of the CPU of ``/callops campaigns`` (``benchmarks/ack.py``).  aiohttp (already
here for Bolt and ``response_url``) hands out a kept-alive connection without that walk,
through ``httpx-aiohttp``'s transport, the one openai-python offers for the same reason.

Only reads take that road.  aiohttp resends a PUT or DELETE once by itself when a
kept-alive connection turns out closed, and ``httpx-aiohttp`` reports a connection lost
mid-request as ``ConnectTimeout``, which the client's retry policy takes to mean "never
sent" (``callcenter.retry.NEVER_SENT``).  An effectful call must never be repeated on a
guess, so POST, PUT and DELETE keep httpcore, which never resends by itself and says
whether a request left this machine.  For reads, the errors are labelled again from
aiohttp's own exception, so a timeout, a refused connection and a dropped connection
are reported as what they are.
"""

from __future__ import annotations

import ssl

import aiohttp
import httpx
from httpx_aiohttp import AiohttpTransport

READS = frozenset({"GET", "HEAD"})


def service_transport(tls: ssl.SSLContext) -> ServiceTransport:
    return ServiceTransport(
        reads=AiohttpTransport(verify=tls),
        writes=httpx.AsyncHTTPTransport(verify=tls),
    )


class ServiceTransport(httpx.AsyncBaseTransport):
    """GET and HEAD through ``reads``, every other method through ``writes``."""

    def __init__(self, *, reads: httpx.AsyncBaseTransport, writes: httpx.AsyncBaseTransport):
        self._reads = reads
        self._writes = writes

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method not in READS:
            return await self._writes.handle_async_request(request)
        try:
            return await self._read(request)
        except httpx.TransportError as exc:
            if isinstance(exc.__cause__, aiohttp.ClientError):
                raise relabel(exc.__cause__, request) from exc.__cause__
            raise
        except aiohttp.ClientError as exc:
            raise relabel(exc, request) from exc

    async def _read(self, request: httpx.Request) -> httpx.Response:
        """The answer with its body read whole (a JSON document: the client reads every
        answer whole anyway), so that a failure while reading it is labelled here too,
        and the body is not passed on chunk by chunk through httpx's layers."""
        response = await self._reads.handle_async_request(request)
        try:
            await response.aread()
        except BaseException:
            await response.aclose()
            raise
        return response

    async def aclose(self) -> None:
        try:
            await self._reads.aclose()
        finally:
            await self._writes.aclose()


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
