"""A minimal HTTP/1.1 server on 127.0.0.1 that discards request bodies as they arrive.

It exists to show that the client streams uploads over a real socket: it reads the
body in small chunks, counts them, keeps only the first bytes (to check the form
parts), and answers a fixed JSON body per path.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

HEAD_KEEP = 4096


@dataclass
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body_bytes: int = 0
    head: bytes = b""


@dataclass
class LoopbackServer:
    answers: dict[str, Any]
    received: list[Received] = field(default_factory=list)
    base_url: str = ""

    async def _read_body(self, reader: asyncio.StreamReader, request: Received) -> None:
        def keep(chunk: bytes) -> None:
            request.body_bytes += len(chunk)
            if len(request.head) < HEAD_KEEP:
                request.head += chunk[: HEAD_KEEP - len(request.head)]

        if request.headers.get("transfer-encoding") == "chunked":
            while True:
                size = int((await reader.readline()).strip(), 16)
                if size == 0:
                    await reader.readline()
                    return
                remaining = size
                while remaining:
                    chunk = await reader.read(min(remaining, 65536))
                    remaining -= len(chunk)
                    keep(chunk)
                await reader.readline()
        remaining = int(request.headers.get("content-length", "0"))
        while remaining:
            chunk = await reader.read(min(remaining, 65536))
            if not chunk:
                return
            remaining -= len(chunk)
            keep(chunk)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request_line = (await reader.readline()).decode().split()
            headers: dict[str, str] = {}
            while (line := await reader.readline()) not in (b"\r\n", b""):
                name, _, value = line.decode().partition(":")
                headers[name.strip().lower()] = value.strip()
            request = Received(request_line[0], request_line[1].split("?")[0], headers)
            await self._read_body(reader, request)
            self.received.append(request)
            payload = json.dumps(self.answers.get(request.path, {"error": "no route"})).encode()
            status = "200 OK" if request.path in self.answers else "404 Not Found"
            writer.write(
                f"HTTP/1.1 {status}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(payload)}\r\nConnection: close\r\n\r\n".encode()
                + payload
            )
            await writer.drain()
        finally:
            writer.close()


@asynccontextmanager
async def loopback(answers: dict[str, Any]) -> AsyncIterator[LoopbackServer]:
    server = LoopbackServer(answers)
    listener = await asyncio.start_server(server._serve, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    server.base_url = f"http://127.0.0.1:{port}"
    try:
        yield server
    finally:
        listener.close()
        await listener.wait_closed()
