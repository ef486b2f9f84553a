"""Fixtures of the replica suite: several ``callops serve --no-scheduler`` processes on one
real PostgreSQL database, behind a round-robin load balancer that the Slack stand-in sends
to, with the session's call-center emulator.

* ``database``: a fresh PostgreSQL database of the session's throw-away server, migrated with
  ``callops db migrate`` as an operator would before starting the replicas;
* ``deployment``: the settings every process gets (``tests/faults/processes.py``), on that
  database, the workspace connected to the emulator;
* ``balancer``: the round-robin sender (``balancer.py``), listening, no replica yet;
* ``replicas``: three replicas started, behind the balancer, the balancer as Slack's request
  URL. A test that needs other settings (OAuth) changes ``deployment`` first and calls
  ``start_replicas`` itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from emulators.pbx.testing import EmulatorServer
from emulators.slack import SlackStandIn
from tests.faults.processes import AppProcess, Deployment
from tests.postgres import PostgresServer, postgres_server
from tests.replicas.balancer import RoundRobin

__all__ = ["postgres_server"]  # the session's PostgreSQL server, a fixture of this suite

REPLICAS = 3


@pytest.fixture
def database(postgres_server: PostgresServer) -> Iterator[str]:
    url = postgres_server.create_database()
    yield url
    postgres_server.drop_database(url)


@pytest.fixture
async def deployment(
    tmp_path: Path, slack: SlackStandIn, pbx: EmulatorServer, database: str
) -> Deployment:
    deployment = Deployment(tmp_path, slack, pbx, database=database, no_scheduler=True)
    said = await deployment.migrate()
    assert "migrated from schema version 0" in said, said
    deployment.connect_workspace()
    return deployment


@pytest.fixture
async def balancer() -> AsyncIterator[RoundRobin]:
    balancer = RoundRobin()
    await balancer.start()
    yield balancer
    await balancer.stop()


@asynccontextmanager
async def start_replicas(
    deployment: Deployment, balancer: RoundRobin, count: int = REPLICAS
) -> AsyncIterator[list[AppProcess]]:
    """``count`` replicas, started together, behind ``balancer``; Slack sends to the
    balancer. Stopped (SIGTERM, or already killed) at the end."""
    started = await asyncio.gather(
        *(deployment.start(connect_slack=False) for _ in range(count)), return_exceptions=True
    )
    processes = [p for p in started if isinstance(p, AppProcess)]
    try:
        failed = [p for p in started if not isinstance(p, AppProcess)]
        if failed:
            raise failed[0]
        balancer.replicas = [p.url for p in processes]
        deployment.slack.connect_app(balancer.url + "/slack/events")
        yield processes
    finally:
        await asyncio.gather(*(p.stop() for p in processes))


@pytest.fixture
async def replicas(deployment: Deployment, balancer: RoundRobin) -> AsyncIterator[list[AppProcess]]:
    async with start_replicas(deployment, balancer) as processes:
        yield processes
