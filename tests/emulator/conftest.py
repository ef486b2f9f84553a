"""Raw-HTTP helpers for the emulator's own tests: no client library in between, so
what is asserted is exactly what the emulator puts on the wire."""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from emulators.pbx.testing import EmulatorServer


def fmt(epoch: float) -> str:
    """A Unix time as the service writes wall-clock times (``YYYY-MM-DD HH:MM:SS``), in
    UTC: the emulator's zone in these tests."""
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%d %H:%M:%S")


SPEC_ACTIVE_CALL = {
    "call_id",
    "context",
    "created_time",
    "destination",
    "direction",
    "ip",
    "source",
    "state",
}
"""Spec 2.13 lists these fields of an Active call and no others."""


class Api:
    """An httpx client holding a v3 token for one API key."""

    def __init__(self, base_url: str, api_key: str) -> None:
        self.http = httpx.Client(base_url=base_url, timeout=10.0, trust_env=False)
        self.api_key = api_key
        self.token = ""
        self.login()

    def login(self) -> None:
        response = self.http.post("/v3/auth/token", json={"api_key": self.api_key})
        response.raise_for_status()
        self.token = response.json()["token"]
        self.http.headers["Authorization"] = f"Bearer {self.token}"

    def request(self, method: str, path: str, **kw: Any) -> httpx.Response:
        """Send; after the clock was moved past the token's life, log in again once."""
        response = self.http.request(method, path, **kw)
        if response.status_code == 401 and response.json() == {"error": "token is expired"}:
            self.login()
            response = self.http.request(method, path, **kw)
        return response

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return self.request("GET", path, **kw)

    def post(self, path: str, **kw: Any) -> httpx.Response:
        return self.request("POST", path, **kw)

    def put(self, path: str, **kw: Any) -> httpx.Response:
        return self.request("PUT", path, **kw)

    def data(self, path: str, **params: Any) -> list[dict[str, Any]]:
        response = self.get(path, params=params)
        assert response.status_code == 200, response.text
        items: list[dict[str, Any]] = response.json()["data"]
        return items

    def campaigns(self, **params: Any) -> list[dict[str, Any]]:
        return self.data("/v3/campaign", limit=1000, offset=0, **params)

    def close(self) -> None:
        self.http.close()


@pytest.fixture
def api(pbx: EmulatorServer) -> Iterator[Api]:
    client = Api(pbx.base_url, pbx.api_key)
    yield client
    client.close()


@pytest.fixture
def api2(pbx: EmulatorServer) -> Iterator[Api]:
    client = Api(pbx.base_url, pbx.api_key_2)
    yield client
    client.close()


class Receiver:
    """A loopback HTTP server collecting the JSON bodies POSTed to it (callbacks)."""

    def __init__(self) -> None:
        self.received: queue.Queue[tuple[str, Any]] = queue.Queue()
        received = self.received

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                received.put((self.path, json.loads(self.rfile.read(length) or b"null")))
                self.send_response(204)
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def next(self, timeout: float = 10.0) -> tuple[str, Any]:
        return self.received.get(timeout=timeout)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    yield server
    server.close()
