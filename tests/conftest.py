"""Shared fixtures and the test tiers.

``pbx`` is what tests use: the same running server every time (it starts once, in well
under a second), back in its seeded state with the clock, call mode, faults and journal
reset, so tests are isolated without paying for a server each.

Every test lands in exactly one tier, given here rather than by each file, so a new test
cannot fall out of one (``make check`` runs ``-m check``, ``make test`` runs them all):

* ``browser``: drives headless Chromium (it uses the ``browser`` fixture);
* ``server``: talks to servers on loopback (emulator, Slack stand-in, the app, PostgreSQL):
  it lives in a folder of end-to-end tests, or uses a fixture that starts one; or runs a
  program from a Debian package ``make test`` installs (``espeak_ng``), so ``make check``
  needs none;
* ``check``: everything else: pure code, SQLite on disk, in-process fakes.

A ``check`` test that opens a network connection or listens on a port anyway fails and
says how to move it, so ``make check`` stays fast and never needs a server.
"""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from callcenter import CallCenter
from callcenter.addresses import LOOPBACK_NETWORKS
from commands.registry import Registry
from commands.reports.figures import SHARED
from commands.reports.insights import forget_usual_levels
from emulators.pbx.testing import EmulatorServer
from emulators.slack import SlackStandIn
from emulators.slack.mrkdwn import AUDIT
from storage import set_loop_guard
from tests.registry import APP

# A store call made on the event loop fails the test that made it (storage.offload), in
# this process and in every process a test starts: a forgotten ``off_loop`` cannot hide.
os.environ["CALLOPS_LOOP_GUARD"] = "strict"
set_loop_guard("strict")
# The emulator and the Slack stand-in run on loopback, which callops otherwise refuses
# as the call-center service's address (callcenter.addresses); tests that check that
# refusal give their own settings.
os.environ["CALLOPS_SERVICE_NETWORKS"] = LOOPBACK_NETWORKS


@pytest.fixture(autouse=True)
def app_registry() -> Iterator[Registry]:
    with APP.using():
        yield APP


TESTS = Path(__file__).resolve().parent
TIERS = ("check", "server", "browser")
BROWSER_FIXTURES = frozenset({"browser"})
SERVER_DIRS = frozenset({"bot", "contract", "demo", "emulator", "replicas", "slack_standin"})
"""Folders of end-to-end tests: every test in them runs against loopback servers."""
SERVER_FIXTURES = frozenset(
    {"emulator_server", "emulator", "slack", "demo", "receiver", "espeak_ng"}
    | {"postgres_server", "postgres_template", "postgres_module_db"}
)
"""Fixtures, outside those folders, that start a server or run a Debian package's program."""
SERVER_PARAMS = {"engine": "postgresql"}
"""A parameter that puts a test on a server: the storage suite's run on PostgreSQL (its
server fixtures are asked for inside ``db_url``, so the test does not name them)."""
SERVER_MODULES = frozenset(
    {
        "callcenter/test_upload.py",  # streams an upload to an inline loopback server
        "commands/test_home.py",  # asks a closed loopback port, to show the outage notice
        "storage/test_cli.py",  # `workspace connect` checks the key with a real service
    }
)
"""Test files, outside those folders, whose tests open sockets without such a fixture."""


@pytest.fixture(scope="session")
def emulator_server() -> Iterator[EmulatorServer]:
    with EmulatorServer(seed=1) as server:
        yield server


@pytest.fixture
def espeak_ng() -> str:
    """The espeak-ng binary (Debian's ``espeak-ng``, installed by ``make test``): the
    autocall preview spoken with its Vietnamese voice, the Listen button."""
    binary = shutil.which("espeak-ng")
    assert binary is not None, "the test needs Debian's espeak-ng (make test installs it)"
    return binary


@pytest.fixture
def pbx(emulator_server: EmulatorServer) -> Iterator[EmulatorServer]:
    emulator_server.reset()
    yield emulator_server


@pytest.fixture
async def cc(pbx: EmulatorServer) -> AsyncIterator[CallCenter]:
    """A client of the emulator that retries once: a test sees a failure at once."""
    async with CallCenter(pbx.base_url, pbx.api_key, max_retries=1) as client:
        yield client


@pytest.fixture
async def slack() -> AsyncIterator[SlackStandIn]:
    """The Slack stand-in on loopback, fresh for each test (the end-to-end tests of
    ``tests/bot`` give theirs the app's manifest)."""
    async with SlackStandIn() as stand_in:
        yield stand_in


@pytest.fixture(autouse=True)
def _counts_start_afresh() -> None:
    """Figures are shared for a minute within a process (``commands.reports.shared``);
    each test starts without those of the test before; so do the usual levels."""
    SHARED.clear()
    forget_usual_levels()


def tier_of(item: pytest.Item) -> str:
    """The tier of one test: its own marker if it has one, else by fixtures and folder."""
    own = [name for name in TIERS if item.get_closest_marker(name)]
    if len(own) > 1:
        raise pytest.UsageError(f"{item.nodeid} is marked with several tiers: {own}")
    if own:
        return own[0]
    fixtures = set(getattr(item, "fixturenames", ()))
    if fixtures & BROWSER_FIXTURES:
        return "browser"
    where = Path(item.path).resolve().relative_to(TESTS)
    if where.parts[0] in SERVER_DIRS or where.as_posix() in SERVER_MODULES:
        return "server"
    if fixtures & SERVER_FIXTURES:
        return "server"
    params = getattr(getattr(item, "callspec", None), "params", {})
    if any(params.get(name) == value for name, value in SERVER_PARAMS.items()):
        return "server"
    return "check"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        tier = tier_of(item)
        if not item.get_closest_marker(tier):
            item.add_marker(tier)


class NetworkInCheckTier(BaseException):
    """Raised, not as an OSError, so code that handles connection errors cannot swallow it."""


@pytest.fixture(autouse=True)
def _check_tier_stays_offline(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    """In a ``check`` test, refuse to listen on or connect to a socket."""
    if request.node.get_closest_marker("check") is None:
        yield
        return
    attempts: list[str] = []

    def refuse(what: str) -> Any:
        def blocked(sock: socket.socket, *args: Any) -> Any:
            attempts.append(f"{what}{args!r}")
            raise NetworkInCheckTier(
                f"{request.node.nodeid} is in the check tier but tried to {what} a socket; "
                "use a server fixture, put it under a folder in SERVER_DIRS, or mark it "
                "@pytest.mark.server (tests/conftest.py)"
            )

        return blocked

    for method in ("connect", "connect_ex"):
        monkeypatch.setattr(socket.socket, method, refuse("connect"))
    monkeypatch.setattr(socket.socket, "listen", refuse("listen on"))
    yield
    if attempts:
        pytest.fail(f"check-tier test used the network: {attempts}", pytrace=False)


@pytest.fixture(autouse=True)
def _mrkdwn_says_what_was_meant(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every message, ephemeral, reply, modal and App Home view a test caused the Slack
    stand-in to receive is scanned (``emulators/slack/mrkdwn.py``); a ``<`` that starts
    none of Slack's control sequences fails the test that sent it (that every surface
    is scanned at all is ``tests/slack_standin/test_mrkdwn_markup.py``'s to show)."""
    mark = AUDIT.mark()
    yield
    if request.node.get_closest_marker("stray_markup"):
        return
    found = AUDIT.since(mark)
    if found:
        pytest.fail(
            "mrkdwn with a '<' Slack would read as a control sequence (write &lt;):\n"
            + "\n".join(found[:10]),
            pytrace=False,
        )
