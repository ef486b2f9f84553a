"""Socket Mode, server side: the WebSocket that apps.connections.open points to.

On connect it sends ``hello``; the driver then pushes envelopes
(``{"envelope_id", "type", "payload", "accepts_response_payload"}``) and waits for the app
to send back ``{"envelope_id": ...}`` (optionally with ``payload``). With several
connections open, envelopes go round-robin, as Slack spreads them.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
import uuid
from dataclasses import dataclass
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web

from emulators.slack.core import Core
from emulators.slack.model import JSON

TICKET_TTL = 30.0


@dataclass
class SocketAck:
    acked: bool
    payload: Any
    seconds: float
    envelope_id: str


class SocketHub:
    def __init__(self, core: Core) -> None:
        self._core = core
        self._connections: list[web.WebSocketResponse] = []
        self._pending: dict[str, asyncio.Future[JSON]] = {}
        self._turn = itertools.count()
        self.received: list[JSON] = []

    @property
    def connected(self) -> bool:
        return any(not ws.closed for ws in self._connections)

    @property
    def connection_count(self) -> int:
        return sum(1 for ws in self._connections if not ws.closed)

    async def handle(self, request: web.Request) -> web.StreamResponse:
        ticket = request.query.get("ticket", "")
        issued = self._core.socket_tickets.pop(ticket, None)
        if issued is None or self._core.clock.now() - issued > TICKET_TTL:
            return web.json_response({"ok": False, "error": "invalid_ticket"}, status=401)
        ws = web.WebSocketResponse(autoping=True)
        await ws.prepare(request)
        self._connections.append(ws)
        await ws.send_json(
            {
                "type": "hello",
                "num_connections": self.connection_count,
                "debug_info": {
                    "host": "applink-standin",
                    "build_number": 1,
                    "approximate_connection_time": 18060,
                },
                "connection_info": {"app_id": self._core.app_id},
            }
        )
        try:
            async for message in ws:
                if message.type == WSMsgType.TEXT:
                    self._on_text(message.data)
        finally:
            with contextlib.suppress(ValueError):
                self._connections.remove(ws)
        return ws

    def _on_text(self, data: str) -> None:
        try:
            body = json.loads(data)
        except json.JSONDecodeError:
            return
        if not isinstance(body, dict):
            return
        self.received.append(body)
        future = self._pending.get(str(body.get("envelope_id")))
        if future is not None and not future.done():
            future.set_result(body)

    async def send(
        self,
        envelope_type: str,
        payload: JSON,
        *,
        accepts_response_payload: bool,
        wait: float,
        retry_attempt: int = 0,
        retry_reason: str = "",
    ) -> SocketAck:
        open_connections = [ws for ws in self._connections if not ws.closed]
        if not open_connections:
            raise RuntimeError("no Socket Mode connection is open")
        ws = open_connections[next(self._turn) % len(open_connections)]
        envelope_id = str(uuid.uuid4())
        envelope: JSON = {
            "envelope_id": envelope_id,
            "type": envelope_type,
            "payload": payload,
            "accepts_response_payload": accepts_response_payload,
        }
        if envelope_type == "events_api":
            envelope["retry_attempt"] = retry_attempt
            envelope["retry_reason"] = retry_reason
        future: asyncio.Future[JSON] = asyncio.get_running_loop().create_future()
        self._pending[envelope_id] = future
        started = time.perf_counter()
        try:
            await ws.send_json(envelope)
            ack = await asyncio.wait_for(future, wait)
        except TimeoutError:
            return SocketAck(False, None, time.perf_counter() - started, envelope_id)
        finally:
            self._pending.pop(envelope_id, None)
        return SocketAck(True, ack.get("payload"), time.perf_counter() - started, envelope_id)

    async def disconnect_all(self, reason: str = "refresh_requested") -> None:
        """Ask every client to reconnect, as Slack does now and then, and close."""
        for ws in list(self._connections):
            if not ws.closed:
                with contextlib.suppress(ConnectionError):
                    await ws.send_json({"type": "disconnect", "reason": reason})
                await ws.close(code=WSCloseCode.GOING_AWAY)

    async def close_all(self) -> None:
        for ws in list(self._connections):
            if not ws.closed:
                await ws.close(code=WSCloseCode.GOING_AWAY)
