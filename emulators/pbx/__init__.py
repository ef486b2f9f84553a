"""Stateful emulator of the call-center service (spec: ``callcenter-service-interface.md``).

A real HTTP server (FastAPI on uvicorn) that answers every endpoint of spec section 4
from state kept in SQLite, enforces the rules of sections 7 and 8 with the very
functions the client uses (``callcenter.rules``), builds its bodies from the client's
wire models (``callcenter.models``), and simulates live calls on a clock tests can
steer.  ``testing.EmulatorServer`` runs it in a background thread for tests and
benchmarks; ``callops emulator`` serves it from the command line.
"""

from emulators.pbx.app import create_app
from emulators.pbx.config import EmulatorConfig

__all__ = ["EmulatorConfig", "create_app"]
