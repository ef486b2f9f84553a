"""`callops workspace connect` and `callops serve` keep a URL's password to themselves,
say what went wrong in callops' words only, and take no server for the service that
does not answer the service's documented listing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from storage import SecretBox, Storage
from tests.storage.conftest import Cli

PASSWORD = "hunter2-Secret-Pw"
THEIR_WORDS = "Teapot-Internal-Hint"
TOKEN = {"token": "a-token-from-anyone", "expired_in": 3600, "domain_uuid": "d"}


@contextmanager
def impostor(status: int, body: dict[str, Any]) -> Iterator[str]:
    """A loopback server that hands out a token for any key and answers its campaign
    listing with ``status`` and ``body``, its reason phrase in its own words."""

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, status: int, body: dict[str, Any]) -> None:
            data = json.dumps(body).encode()
            self.send_response(status, THEIR_WORDS)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self._answer(200, TOKEN)

        def do_GET(self) -> None:
            self._answer(status, body)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _stored(cli: Cli) -> tuple[bool, str]:
    with Storage.open(cli.db, SecretBox(os.environ["CALLOPS_SECRET_KEY"].split(","))) as store:
        audit = json.dumps([e.as_export() for e in store.audit.entries("T1")])
        return store.workspaces.get("T1") is not None, audit


def test_a_url_with_a_password_is_never_echoed(cli: Cli, emulator: Any) -> None:
    url = emulator.base_url.replace("http://", f"http://admin:{PASSWORD}@")
    code, out, err = cli.connect("T1", url, "--api-key", emulator.api_key)
    assert code == 2 and "must not carry a user name or password" in err
    assert PASSWORD not in out + err and "***@127.0.0.1" in err
    saved, audit = _stored(cli)
    assert not saved and PASSWORD not in audit


@pytest.mark.server
def test_a_server_that_only_hands_out_tokens_is_refused_in_our_words(cli: Cli) -> None:
    for status, body in [(200, {"hello": "world"}), (418, {"error": THEIR_WORDS})]:
        with impostor(status, body) as url:
            code, out, err = cli.connect("T1", url, "--api-key", "any-key")
        assert code != 0, (status, out, err)
        assert "does not look like the call-center service" in err or (
            "did not answer as the call-center service does" in err
        ), err
        assert "nothing was saved" in err
        assert THEIR_WORDS not in out + err
        saved, audit = _stored(cli)
        assert not saved and THEIR_WORDS not in audit


def test_a_base_url_with_a_password_stays_out_of_a_failed_start(tmp_path: Path) -> None:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "CALLOPS_DB": str(tmp_path / "callops.db"),
        "CALLOPS_BASE_URL": f"https://admin:{PASSWORD}@pbx.example.com/api",
        "CALLOPS_API_KEY": "k",
        "SLACK_BOT_TOKEN": "xoxb-1",
        "SLACK_SIGNING_SECRET": "s",
    }
    started = subprocess.run(
        [sys.executable, "-m", "bot.cli", "serve"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    said = started.stdout + started.stderr
    assert started.returncode != 0
    assert "must not carry a user name or password" in said, said[-2000:]
    assert PASSWORD not in said
