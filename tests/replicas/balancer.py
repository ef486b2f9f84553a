"""A round-robin load balancer on loopback, in front of several ``callops serve`` replicas.

Each request goes to the next replica in turn, its method, path, query, headers and body
forwarded unchanged (Slack's signature must still match the bytes) and the replica's
answer handed back unchanged (status, headers such as ``Location`` and ``Set-Cookie``,
body; redirects are the client's to follow). A replica that cannot be reached, or drops
the connection before answering (it was ``kill -9``'d), is skipped from then on and the
request is sent to the next one, as a load balancer's passive health check and
``proxy_next_upstream`` do; a request is tried on each replica at most once.

``served`` records who answered what, so a test can show that two requests it sent really
reached two different replicas. The Slack stand-in's request URL points here, so it still
sends one request per interaction to one URL, as Slack does.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import aiohttp
from aiohttp import web
from multidict import CIMultiDict

HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
    }
)
"""Headers that belong to one connection (or that aiohttp sets again), not to the request.
Bodies pass through as bytes, still encoded (``auto_decompress=False``), so
``Content-Encoding`` goes with them."""


@dataclass(frozen=True)
class Served:
    """One request as the balancer passed it on."""

    method: str
    path: str
    replica: int
    """Index in ``RoundRobin.replicas`` of the replica that answered (-1: none could)."""
    status: int
    signature: str
    """``X-Slack-Signature`` of a request from Slack (empty otherwise)."""
    failed_over: tuple[int, ...] = ()
    """Replicas tried first, unreachable."""


@dataclass
class RoundRobin:
    replicas: list[str] = field(default_factory=list)
    """Base URLs (``http://127.0.0.1:PORT``), in turn."""
    served: list[Served] = field(default_factory=list)
    down: set[int] = field(default_factory=set)
    url: str = ""
    _turn: itertools.count[int] = field(default_factory=itertools.count)
    _runner: web.AppRunner | None = None
    _session: aiohttp.ClientSession | None = None

    async def start(self, port: int = 0) -> str:
        """Listen on ``port`` of loopback (0: a free one); returns the base URL."""
        app = web.Application(client_max_size=16 * 1024 * 1024)
        app.router.add_route("*", "/{tail:.*}", self._forward)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        port = self._runner.addresses[0][1]
        self.url = f"http://127.0.0.1:{port}"
        connector = aiohttp.TCPConnector(limit=0)
        self._session = aiohttp.ClientSession(connector=connector, auto_decompress=False)
        return self.url

    async def stop(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def replica_of(self, signature: str) -> int:
        """The replica that answered the Slack request signed ``signature``."""
        found = [s.replica for s in self.served if s.signature == signature]
        assert len(found) == 1, f"{len(found)} requests signed {signature[:12]}…"
        return found[0]

    def by_path(self, path: str) -> list[Served]:
        return [s for s in self.served if s.path == path]

    def _order(self) -> list[int]:
        """Every live replica once, starting with the one whose turn it is."""
        count = len(self.replicas)
        first = next(self._turn) % count if count else 0
        ring = [(first + step) % count for step in range(count)]
        return [i for i in ring if i not in self.down]

    async def _forward(self, request: web.Request) -> web.StreamResponse:
        assert self._session is not None
        body = await request.read()
        headers = {k: v for k, v in request.headers.items() if k.lower() not in HOP_BY_HOP}
        signature = request.headers.get("X-Slack-Signature", "")
        tried: list[int] = []
        for index in self._order():
            target = self.replicas[index] + request.path_qs
            try:
                async with self._session.request(
                    request.method, target, data=body, headers=headers, allow_redirects=False
                ) as answer:
                    content = await answer.read()
                    status = answer.status
                    back = CIMultiDict(
                        (k, v) for k, v in answer.headers.items() if k.lower() not in HOP_BY_HOP
                    )
            except aiohttp.ClientConnectionError:
                self.down.add(index)  # passive health check: no answer, out of the pool
                tried.append(index)
                continue
            self.served.append(
                Served(request.method, request.path, index, status, signature, tuple(tried))
            )
            return web.Response(status=status, body=content, headers=back)
        self.served.append(Served(request.method, request.path, -1, 502, signature, tuple(tried)))
        return web.json_response({"ok": False, "error": "no_replica_answered"}, status=502)
