"""``create_app``: the emulator's FastAPI application.

Building the app seeds the database (a fraction of a second), so a server accepts
requests as soon as uvicorn has bound its socket.  The lifespan runs the simulation
ticker that moves timed calls along with the clock.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from emulators.pbx import openapi
from emulators.pbx.config import EmulatorConfig
from emulators.pbx.errors import (
    ApiError,
    api_error_handler,
    http_error_handler,
    query_error_handler,
    unexpected_error_handler,
)
from emulators.pbx.middleware import EmulatorMiddleware
from emulators.pbx.routes import (
    auth,
    calls,
    campaigns,
    catalog,
    control,
    groups,
    leads,
    records,
    users,
)
from emulators.pbx.routes import reports as report_routes
from emulators.pbx.state import Emulator

log = logging.getLogger("emulators.pbx")

DESCRIPTION = (
    "Stateful emulator of the call-center campaign and PBX service. Error bodies follow "
    "the service's three shapes; status codes: 400 validation, 401 authentication, "
    "404 unknown resource, 409 duplicate. `/_emulator/*` is the control surface for tests."
)


async def _ticker(emu: Emulator) -> None:
    while True:
        await asyncio.sleep(emu.config.tick_seconds)
        try:
            emu.tick()
        except Exception:  # a bad step must not stop the simulation for good
            log.exception("simulation step failed")


def create_app(config: EmulatorConfig | None = None) -> FastAPI:
    emu = Emulator(config or EmulatorConfig())

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        task = asyncio.create_task(_ticker(emu))
        try:
            yield
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await emu.callbacks.aclose()
            emu.store.close()

    app = FastAPI(
        title="Call-center service (emulator)",
        version="1.0",
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url="/docs",
        redoc_url=None,
    )
    app.state.emulator = emu
    for module in (auth, users, groups, campaigns, catalog, leads, calls, records, report_routes):
        app.include_router(module.router)
    app.include_router(control.router, include_in_schema=False)
    app.add_exception_handler(ApiError, api_error_handler)
    app.add_exception_handler(StarletteHTTPException, http_error_handler)
    app.add_exception_handler(RequestValidationError, query_error_handler)
    app.add_exception_handler(Exception, unexpected_error_handler)
    app.add_middleware(EmulatorMiddleware, emulator=emu)
    openapi.install(app)
    return app
