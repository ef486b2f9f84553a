"""Loopback helpers for the stand-in's tests: serve an aiohttp app on an ephemeral port,
and a minimal request URL that records what the driver sends."""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import web
from slack_sdk.signature import SignatureVerifier

from emulators.slack import SlackStandIn


@asynccontextmanager
async def serve(app: web.Application, path: str = "/slack/events") -> AsyncIterator[str]:
    """Serve ``app`` on 127.0.0.1 and an ephemeral port; yields the URL of ``path``."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)
    await runner.setup()
    await web.SockSite(runner, sock).start()
    try:
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        await runner.cleanup()


@dataclass
class Received:
    headers: dict[str, str]
    raw: str
    body: dict[str, Any]
    signature_valid: bool


class Receiver:
    def __init__(self, signing_secret: str) -> None:
        self.verifier = SignatureVerifier(signing_secret)
        self.requests: list[Received] = []
        self.answer: Callable[[dict[str, Any]], web.Response] | None = None

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_post("/slack/events", self.handle)
        return app

    async def handle(self, request: web.Request) -> web.Response:
        raw = await request.text()
        valid = self.verifier.is_valid(
            raw,
            request.headers.get("X-Slack-Request-Timestamp"),
            request.headers.get("X-Slack-Signature"),
        )
        if request.content_type == "application/json":
            body: dict[str, Any] = json.loads(raw)
        else:
            body = dict(parse_qsl(raw, keep_blank_values=True))
            if "payload" in body:
                body = json.loads(body["payload"])
        self.requests.append(Received(dict(request.headers), raw, body, valid))
        if not valid:
            return web.json_response({"error": "invalid request"}, status=401)
        if self.answer is not None:
            return self.answer(body)
        return web.Response(status=200)


@asynccontextmanager
async def connected_receiver(slack: SlackStandIn) -> AsyncIterator[Receiver]:
    """A bare request URL that checks signatures with slack_sdk and acks with 200, given
    to the stand-in as the app's: commands and clicks can be sent, response URLs handed
    out, with no app behind them."""
    recv = Receiver(slack.signing_secret)
    async with serve(recv.app()) as url:
        slack.connect_app(url)
        yield recv
