"""The ASGI layer in front of every API request: injected latency and failures, and
the journal.

A journal entry's ``status`` is what went on the wire; ``handler_status`` is what the
endpoint itself answered (None when an injected failure kept the request from it), so
a test can tell "refused before any effect" from "took effect, then failed".

Plain ASGI rather than Starlette's ``BaseHTTPMiddleware``: it adds no task or stream
per request (the client benchmark measures per-call overhead against this server),
and it can do what a fault needs, such as letting the request take effect and then
dropping the connection before an answer is sent.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from emulators.pbx.faults import ScriptedFault
from emulators.pbx.journal import parse_query, redact
from emulators.pbx.state import Emulator

UNJOURNALED_PREFIXES = ("/_emulator", "/openapi.json", "/docs", "/redoc")
MAX_JOURNALED_BODY = 256 * 1024


class EmulatorMiddleware:
    def __init__(self, app: ASGIApp, emulator: Emulator) -> None:
        self.app = app
        self.emu = emulator

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(UNJOURNALED_PREFIXES):
            await self.app(scope, receive, send)
            return
        emu = self.emu
        started = time.perf_counter()
        method: str = scope["method"]
        path: str = scope["path"]
        state: dict[str, Any] = scope.setdefault("state", {})
        chunks: list[bytes] = []
        size = 0

        async def capture() -> Message:
            nonlocal size
            message = await receive()
            if message["type"] == "http.request":
                body = message.get("body", b"")
                size += len(body)
                if size <= MAX_JOURNALED_BODY:
                    chunks.append(body)
            return message

        rule = emu.faults.take(method, path)
        delay = emu.faults.latency_ms + (rule.delay_ms if rule else 0)
        if delay:
            await asyncio.sleep(delay / 1000)
        fault: str | None = None
        handled: int | None = None
        if rule is not None and rule.replaces:
            await _drain(capture)
            status = await _answer(send, rule)
            fault = "scripted"
        elif emu.faults.roll():
            await _drain(capture)
            status = await _send_json(send, 500, {"error": "internal server error"}, None)
            fault = "random"
        else:
            seen = {"status": 0}
            silent = rule is not None
            held: list[Message] = []

            async def forward(message: Message) -> None:
                if message["type"] == "http.response.start":
                    seen["status"] = message["status"]
                if not silent:
                    await send(message)
                else:
                    held.append(message)

            await self.app(scope, capture, forward)
            status = handled = seen["status"]
            if rule is not None and rule.hold_ms and not (rule.after or rule.drop):
                # The effect happened; its own answer goes out only after the hold.
                await asyncio.sleep(rule.hold_ms / 1000)
                for message in held:
                    await send(message)
                fault = "held"
            elif rule is not None and rule.drop:
                # The effect happened; the client gets headers promising a body that never
                # comes, and the server closes the connection (a read error client-side).
                await send(
                    {
                        "type": "http.response.start",
                        "status": 200,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", b"1024"),
                        ],
                    }
                )
                status, fault = 200, "drop"
            elif rule is not None:
                status = await _answer(send, rule)
                fault = "after"
        emu.journal.record(
            {
                "kind": "request",
                "method": method,
                "path": path,
                "query": parse_query(scope.get("query_string", b"")),
                "query_string": scope.get("query_string", b"").decode("latin-1"),
                "body": _journal_body(scope, chunks, size, state),
                "status": status,
                "handler_status": handled,
                "domain": state.get("domain_name"),
                "fault": fault,
                "duration_ms": round((time.perf_counter() - started) * 1000, 3),
            },
            emu.now(),
        )


async def _drain(receive: Receive) -> None:
    while True:
        message = await receive()
        if message["type"] != "http.request" or not message.get("more_body", False):
            return


async def _answer(send: Send, rule: ScriptedFault) -> int:
    return await _send_json(send, rule.status, rule.response_body(), rule.retry_after)


async def _send_json(send: Send, status: int, body: Any, retry_after: float | None) -> int:
    payload = json.dumps(body).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(payload)).encode()),
    ]
    if retry_after is not None:
        value = int(retry_after) if float(retry_after).is_integer() else retry_after
        headers.append((b"retry-after", str(value).encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})
    return status


def _journal_body(scope: Scope, chunks: list[bytes], size: int, state: dict[str, Any]) -> Any:
    noted = state.get("journal_body")
    if noted is not None:
        return redact(noted)
    if not size:
        return None
    content_type = ""
    for name, value in scope.get("headers", []):
        if name == b"content-type":
            content_type = value.decode("latin-1")
    if size > MAX_JOURNALED_BODY:
        return {"content_type": content_type, "size": size}
    raw = b"".join(chunks)
    if "json" in content_type or raw[:1] in (b"{", b"["):
        try:
            return redact(json.loads(raw))
        except ValueError:
            return raw.decode("utf-8", "replace")
    return {"content_type": content_type, "size": size}
