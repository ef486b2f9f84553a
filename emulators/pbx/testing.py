"""``EmulatorServer``: the emulator on a loopback port in a background thread.

Used by every test and benchmark of the project.  The server gets its own event loop
in its own thread and an ephemeral port bound before it starts (so ``base_url`` is
known at once); control helpers talk to ``/_emulator/*`` over HTTP, so a test drives
the emulator exactly as it would a separate process.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI

from emulators.pbx.app import create_app
from emulators.pbx.config import DEMO_API_KEYS, EmulatorConfig
from emulators.pbx.incidents import IncidentSpec
from emulators.pbx.state import Emulator
from emulators.pbx.volume import Volume

START_TIMEOUT = 15.0


class EmulatorServer:
    api_key: str = DEMO_API_KEYS[0]
    api_key_2: str = DEMO_API_KEYS[1]

    def __init__(
        self,
        *,
        seed: int = 1,
        token_ttl: int = 3600,
        latency_ms: int = 0,
        error_rate: float = 0.0,
        call_mode: str = "timed",
        db: str | None = None,
        timezone: str = "UTC",
        volume: Volume | None = None,
        incidents: tuple[IncidentSpec, ...] = (),
    ) -> None:
        self.config = EmulatorConfig(
            seed=seed,
            token_ttl=token_ttl,
            latency_ms=latency_ms,
            error_rate=error_rate,
            call_mode=call_mode,
            db=db,
            timezone=timezone,
            volume=volume,
            incidents=incidents,
        )
        self.base_url = ""
        self.port = 0
        self._server: uvicorn.Server | None = None
        self._app: FastAPI | None = None
        self._thread: threading.Thread | None = None
        self._http: httpx.Client | None = None

    # --- lifecycle ------------------------------------------------------------------------

    def start(self) -> EmulatorServer:
        if self._server is not None:
            return self
        app = create_app(self.config)
        self._app = app
        # IPPROTO_TCP explicitly: asyncio turns Nagle off only on sockets that say they
        # are TCP, and with Nagle on every small answer waits 40 ms for a delayed ACK.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(
            app, log_level="warning", access_log=False, lifespan="on", timeout_graceful_shutdown=2
        )
        server = uvicorn.Server(config)
        thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name="pbx-emulator", daemon=True
        )
        thread.start()
        deadline = time.monotonic() + START_TIMEOUT
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                sock.close()
                raise RuntimeError("the call-center emulator did not start")
            time.sleep(0.005)
        self._server, self._thread = server, thread
        self._http = httpx.Client(base_url=self.base_url, timeout=30.0, trust_env=False)
        return self

    def stop(self) -> None:
        if self._http is not None:
            self._http.close()
            self._http = None
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server = self._thread = None

    def __enter__(self) -> EmulatorServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # --- control helpers ------------------------------------------------------------------

    @property
    def emulator(self) -> Emulator:
        """The running emulator itself: for a test that counts over its records
        directly, with no interface in between."""
        if self._app is None:
            raise RuntimeError("the emulator is not running")
        emu = self._app.state.emulator
        assert isinstance(emu, Emulator)
        return emu

    def _control(
        self, verb: str, path: str, json: Any = None, params: dict[str, Any] | None = None
    ) -> Any:
        if self._http is None:
            raise RuntimeError("the emulator is not running; call start() first")
        query = {k: v for k, v in (params or {}).items() if v is not None}
        response = self._http.request(verb, f"/_emulator/{path}", json=json, params=query)
        if response.status_code >= 400:
            raise RuntimeError(f"emulator control {path} failed: {response.text}")
        return response.json()

    def reset(self) -> None:
        """Back to the seeded state: data, clock, call mode, faults, journal."""
        self._control("POST", "reset")

    def set_faults(self, **kw: Any) -> None:
        """``latency_ms``, ``error_rate``, ``next`` (scripted failures), ``clear``."""
        self._control("POST", "faults", json=kw)

    def clear_faults(self) -> None:
        self._control("DELETE", "faults")

    def fail_next(
        self,
        method: str,
        path: str,
        status: int,
        body: Any = None,
        times: int = 1,
        retry_after: float | None = None,
        *,
        after: bool = False,
        drop: bool = False,
        delay_ms: int = 0,
        hold_ms: int = 0,
    ) -> None:
        """The next ``times`` matching requests fail with ``status`` (``path`` may be a
        glob).  ``after``: the request takes effect, then the failure is answered;
        ``drop``: it takes effect and the connection closes with no answer; ``hold_ms``:
        it takes effect and its real answer waits that long (``status`` unused)."""
        rule = {
            "method": method,
            "path": path,
            "status": status,
            "body": body,
            "times": times,
            "retry_after": retry_after,
            "after": after,
            "drop": drop,
            "delay_ms": delay_ms,
            "hold_ms": hold_ms,
        }
        self._control("POST", "faults", json={"next": [rule]})

    def advance(self, seconds: float) -> None:
        """Move the emulator clock forward; the simulation catches up before returning."""
        self._control("POST", "clock/advance", json={"seconds": seconds})

    def freeze_clock(self, at: float | None = None) -> float:
        """Stop the emulator clock (it then moves only with ``advance``)."""
        return float(self._control("POST", "clock/freeze", json={"at": at})["now"])

    def unfreeze_clock(self) -> None:
        self._control("POST", "clock/unfreeze")

    def now(self) -> float:
        """The emulator clock, as a Unix time."""
        return float(self._control("GET", "clock")["now"])

    def clock(self) -> dict[str, Any]:
        result: dict[str, Any] = self._control("GET", "clock")
        return result

    def set_call_mode(self, mode: str) -> None:
        """``immediate``, ``timed`` or ``manual``."""
        self._control("POST", "call-mode", json={"mode": mode})

    def journal(
        self, method: str | None = None, path: str | None = None, kind: str | None = "request"
    ) -> list[dict[str, Any]]:
        """Requests the emulator answered (``kind="callback"``: callbacks it sent)."""
        entries: list[dict[str, Any]] = self._control(
            "GET", "journal", params={"method": method, "path": path, "kind": kind}
        )
        return entries

    def callbacks(self) -> list[dict[str, Any]]:
        return self.journal(kind="callback")

    def clear_journal(self) -> None:
        self._control("DELETE", "journal")

    def generate_cdrs(self, count: int, domain: str = "demo", days: int | None = None) -> None:
        """Add ``count`` call records spread over the last ``days`` days (default 30)."""
        body: dict[str, Any] = {"count": count, "domain": domain}
        if days is not None:
            body["days"] = days
        self._control("POST", "cdrs/generate", json=body)

    def fill_volume(
        self, calls_per_day: int, start: float, end: float, domain: str = "demo"
    ) -> int:
        """Add a call center's traffic over ``start``..``end`` (what has ended by the
        emulator clock); returns how many records were added."""
        body = {"calls_per_day": calls_per_day, "start": start, "end": end, "domain": domain}
        return int(self._control("POST", "cdrs/volume", json=body)["inserted"])

    def add_incident(self, incident: str, *, replace: bool = False) -> list[dict[str, Any]]:
        """``network=Viettel:answer=0.05:from=10:00``: in force from then, today."""
        found: list[dict[str, Any]] = self._control(
            "POST", "incidents", json={"incident": incident, "replace": replace}
        )
        return found

    def clear_incidents(self) -> None:
        self._control("DELETE", "incidents")

    def originate(self, **kw: Any) -> dict[str, Any]:
        """Place a live call (default: an inbound customer call in domain ``demo``);
        keywords: domain, direction, source, destination, extension, campaign_uuid,
        outcome, ring_seconds, talk_seconds."""
        call: dict[str, Any] = self._control("POST", "calls", json=kw)
        return call

    def live_calls(self, domain: str | None = None) -> list[dict[str, Any]]:
        calls: list[dict[str, Any]] = self._control("GET", "calls", params={"domain": domain})
        return calls

    def answer(self, call_id: str) -> dict[str, Any]:
        result: dict[str, Any] = self._control("POST", f"calls/{call_id}/answer")
        return result

    def hangup(self, call_id: str, status: str | None = None) -> dict[str, Any]:
        body = {"status": status} if status else {}
        result: dict[str, Any] = self._control("POST", f"calls/{call_id}/hangup", json=body)
        return result

    def state(self, table: str, domain: str = "demo") -> list[dict[str, Any]]:
        rows: list[dict[str, Any]] = self._control(
            "GET", f"state/{table}", params={"domain": domain}
        )
        return rows
