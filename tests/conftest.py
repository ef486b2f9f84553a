"""Shared fixtures: one call-center emulator per test session, reset before each test.

``pbx`` is what tests use: the same running server every time (it starts once, in well
under a second), back in its seeded state with the clock, call mode, faults and journal
reset, so tests are isolated without paying for a server each.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from emulators.pbx.testing import EmulatorServer


@pytest.fixture(scope="session")
def emulator_server() -> Iterator[EmulatorServer]:
    with EmulatorServer(seed=1) as server:
        yield server


@pytest.fixture
def pbx(emulator_server: EmulatorServer) -> Iterator[EmulatorServer]:
    emulator_server.reset()
    yield emulator_server
