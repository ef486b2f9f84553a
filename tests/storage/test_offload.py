"""``off_loop`` and the guard that keeps store calls off the event loop, and ``patience``.

The tests run with ``CALLOPS_LOOP_GUARD=strict`` (tests/conftest.py), so every other test
already fails if the app forgets ``off_loop``; these prove the guard itself: it raises for
a coroutine of the app that reaches a store on the loop (directly or through a plain
helper), lets the same call through ``off_loop``, only logs in ``warn`` mode, and leaves a
test's own set-up calls alone. The app's code is stood for by a small module loaded under
an app module's name, as Python names the frames of ``commands/...``.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType

import pytest

from storage import (
    BlockingOnLoopError,
    Role,
    SecretBox,
    Storage,
    off_loop,
    patience,
    set_loop_guard,
)
from storage.errors import StorageBusyError
from storage.offload import GuardMode
from tests.storage.test_engine import _write_lock_held

APP_CODE = """from storage import off_loop

def read_role(storage):
    return storage.roles.stored_role("T1", "U1")

async def role_on_the_loop(storage):
    return storage.roles.stored_role("T1", "U1")

async def role_through_a_helper(storage):
    return read_role(storage)

async def role_off_the_loop(storage):
    return await off_loop(storage.roles.stored_role, "T1", "U1")
"""


@pytest.fixture
def app_module(tmp_path: Path) -> Callable[..., ModuleType]:
    """``APP_CODE`` loaded as a module of the app called ``name`` (not kept in
    ``sys.modules``)."""

    def load(name: str = "commands.example") -> ModuleType:
        source = tmp_path / (name.replace(".", "_") + ".py")
        source.write_text(APP_CODE)
        spec = importlib.util.spec_from_file_location(name, source)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load


@pytest.fixture
def storage(tmp_path: Path, box: SecretBox) -> Iterator[Storage]:
    with Storage.open(tmp_path / "callops.db", box) as opened:
        opened.roles.set_role("T1", "U1", Role.OPERATOR, granted_by="U0")
        yield opened


@pytest.fixture
def guard() -> Iterator[Callable[[GuardMode], GuardMode]]:
    """Set the guard's mode for one test; the suite's mode (strict) comes back after."""
    before = set_loop_guard("strict")
    yield set_loop_guard
    set_loop_guard(before)


async def test_strict_guard_refuses_an_app_coroutine_that_reads_on_the_loop(
    storage: Storage, guard: Callable[[GuardMode], GuardMode], app_module: Callable[..., ModuleType]
) -> None:
    guard("strict")
    app = app_module()
    with pytest.raises(BlockingOnLoopError) as caught:
        await app.role_on_the_loop(storage)
    assert "commands.example:7" in str(caught.value)
    assert "off_loop" in str(caught.value)
    # A plain helper in between hides nothing: the coroutine that called it is the app's.
    with pytest.raises(BlockingOnLoopError, match=r"commands\.example:4"):
        await app.role_through_a_helper(storage)


async def test_the_same_call_through_off_loop_runs_on_a_database_thread(
    storage: Storage, guard: Callable[[GuardMode], GuardMode], app_module: Callable[..., ModuleType]
) -> None:
    guard("strict")
    loop_thread = threading.current_thread()
    seen: list[threading.Thread] = []

    def where() -> str:
        seen.append(threading.current_thread())
        role = storage.roles.stored_role("T1", "U1")
        return role.value if role else "none"

    assert await off_loop(where) == "operator"
    assert seen and seen[0] is not loop_thread
    assert seen[0].name.startswith("callops-db")
    assert (await app_module().role_off_the_loop(storage)).value == "operator"


async def test_warn_mode_logs_each_call_site_once_and_lets_it_run(
    storage: Storage,
    guard: Callable[[GuardMode], GuardMode],
    app_module: Callable[..., ModuleType],
    caplog: pytest.LogCaptureFixture,
) -> None:
    guard("warn")
    caplog.set_level(logging.WARNING, logger="storage.offload")
    app = app_module("bot.example_warned")
    for _ in range(3):
        assert (await app.role_on_the_loop(storage)).value == "operator"
    warnings = [r.getMessage() for r in caplog.records]
    assert warnings == [
        "storage called on the event loop from bot.example_warned:7; it blocks every request"
    ]


async def test_a_tests_own_calls_on_its_loop_are_exempt(
    storage: Storage, guard: Callable[[GuardMode], GuardMode], app_module: Callable[..., ModuleType]
) -> None:
    guard("strict")
    storage.workspaces.ensure("T1")  # the test's own set-up, on its own loop
    assert app_module().read_role(storage).value == "operator"  # an app helper, called here


def test_outside_a_loop_there_is_nothing_to_guard(
    storage: Storage, guard: Callable[[GuardMode], GuardMode], app_module: Callable[..., ModuleType]
) -> None:
    guard("strict")
    assert app_module().read_role(storage).value == "operator"


def test_patience_bounds_the_wait_for_a_lock_to_one_short_try(storage: Storage) -> None:
    storage.workspaces.ensure("T1")
    db_url = storage.db.where
    with _write_lock_held(db_url):
        started = time.monotonic()
        with pytest.raises(StorageBusyError), patience(0.2, tries=1):
            storage.workspaces.set_timezone("T1", "Asia/Tokyo")
        quick = time.monotonic() - started
        # The connection went back to the pool with the usual wait (2 s a try).
        assert storage.db.sqlite_pragma("PRAGMA busy_timeout") == [(2000,)]
        started = time.monotonic()
        with pytest.raises(StorageBusyError), patience(0.5, tries=2):
            storage.workspaces.set_timezone("T1", "Asia/Tokyo")
        two_tries = time.monotonic() - started
    # Bounds with room for a shared machine, each under the usual wait they replace
    # (2 s a try, three tries).
    assert quick < 1.5, quick
    assert 0.9 < two_tries < 3.5, two_tries
    assert storage.workspaces.set_timezone("T1", "Asia/Tokyo").timezone == "Asia/Tokyo"
