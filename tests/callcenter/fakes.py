"""A scripted stand-in for the service, for unit tests of the client.

``FakeService`` answers through ``httpx.MockTransport``: each route is a function of
the request, and every request is journaled, so tests can count token requests,
attempts of a write, and read the exact body that was sent.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from callcenter import CallCenter

API_KEY = "sk-live-SECRET-0123456789"
BASE_URL = "http://127.0.0.1:8900"

Route = Callable[[httpx.Request], httpx.Response | Awaitable[httpx.Response]]


class Sleeps:
    """Records the backoff the client asked for instead of waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


def json_response(status: int, body: Any, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, json=body, headers=headers)


def token_body(token: str = "tok-1", expired_in: int = 3600) -> dict[str, Any]:  # noqa: S107
    return {
        "client_id": "c",
        "domain_uuid": "d",
        "expired_in": expired_in,
        "refresh_token": "",
        "token": token,
        "token_type": "Bearer",
        "user_id": "u",
    }


def page(items: list[dict[str, Any]], limit: int, offset: int, total: int) -> dict[str, Any]:
    return {"data": items, "limit": limit, "offset": offset, "total": total}


def user(n: int) -> dict[str, Any]:
    return {"user_uuid": f"user-{n:04d}", "username": f"agent{n}"}


class FakeService:
    """Routes by (method, path); unknown routes answer 404 with a string error."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.routes: dict[tuple[str, str], Route] = {}
        self.token_seq = 0
        self.token_ttl = 3600
        self.valid_tokens: set[str] | None = None
        self.route("POST", "/v3/auth/token", self._issue_token)

    def route(self, method: str, path: str, handler: Route) -> None:
        self.routes[(method, path)] = handler

    def _issue_token(self, request: httpx.Request) -> httpx.Response:
        self.token_seq += 1
        return json_response(200, token_body(f"tok-{self.token_seq}", self.token_ttl))

    def calls(self, method: str, path: str) -> list[httpx.Request]:
        return [r for r in self.requests if r.method == method and r.url.path == path]

    @property
    def token_requests(self) -> int:
        return len(self.calls("POST", "/v3/auth/token"))

    async def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        handler = self.routes.get((request.method, request.url.path))
        if handler is None:
            return json_response(404, {"error": "route not found"})
        result = handler(request)
        if not isinstance(result, httpx.Response):
            result = await result
        return result

    def client(self, **kwargs: Any) -> CallCenter:
        kwargs.setdefault("sleep", Sleeps())
        return CallCenter(BASE_URL, API_KEY, transport=httpx.MockTransport(self.handle), **kwargs)


def sent_json(request: httpx.Request) -> Any:
    return json.loads(request.content)


def bearer(request: httpx.Request) -> str | None:
    value: str | None = request.headers.get("authorization")
    return value
