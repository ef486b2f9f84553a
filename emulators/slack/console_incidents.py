"""The console's control of the call-center emulator's incidents: a network or campaign
that stops answering (``emulators/pbx/incidents.py``), set from the demo's page.

The page talks only to the stand-in; these routes pass its requests on to the emulator's
control surface (``/_emulator/incidents``) when the demo says where that is
(``ConsoleConfig.emulator_url``).  The stand-in imports nothing of the emulator: it is
one HTTP hop, as a person with ``curl`` would make it.

* ``GET /console/api/incidents``: the incidents in force (and whether there is an emulator);
* ``POST /console/api/incidents`` ``{"incident": "network=Viettel:answer=0.05:from=10:00"}``
  adds one, ``{"clear": true}`` ends them all.
"""

from __future__ import annotations

from typing import Any

import aiohttp
from aiohttp import web

from emulators.slack.model import JSON

TIMEOUT = aiohttp.ClientTimeout(total=10)


def add_incident_routes(app: web.Application, emulator_url: Any) -> None:
    """``emulator_url()`` says where the emulator is ("" when the console has none)."""

    async def relay(method: str, body: JSON | None = None) -> web.Response:
        base = str(emulator_url() or "").rstrip("/")
        if not base:
            return web.json_response({"ok": True, "emulator": False, "incidents": []})
        async with (
            aiohttp.ClientSession(timeout=TIMEOUT) as session,
            session.request(method, f"{base}/_emulator/incidents", json=body) as response,
        ):
            answer = await response.json(content_type=None)
        if response.status >= 400:
            error = answer.get("error") if isinstance(answer, dict) else None
            detail = _first_error(error) or f"HTTP {response.status}"
            return web.json_response({"ok": False, "error": detail}, status=400)
        return web.json_response({"ok": True, "emulator": True, "incidents": answer})

    async def listed(_request: web.Request) -> web.Response:
        return await relay("GET")

    async def changed(request: web.Request) -> web.Response:
        try:
            body = await request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            return web.json_response({"ok": False, "error": "send a JSON object"}, status=400)
        if body.get("clear"):
            return await relay("DELETE")
        incident = body.get("incident")
        if not isinstance(incident, str) or not incident.strip():
            return web.json_response(
                {"ok": False, "error": "write network=<name>:answer=<0..1>:from=HH:MM"},
                status=400,
            )
        return await relay("POST", {"incident": incident.strip()})

    app.router.add_get("/console/api/incidents", listed)
    app.router.add_post("/console/api/incidents", changed)


def _first_error(error: Any) -> str | None:
    """The emulator's field errors (``[{"incident": "why"}]``) or its string error."""
    if isinstance(error, str):
        return error
    if isinstance(error, list):
        for item in error:
            if isinstance(item, dict):
                for value in item.values():
                    return str(value)
    return None
