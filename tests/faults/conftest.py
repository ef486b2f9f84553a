"""Fixtures of the fault suite: the Slack stand-in, the emulator (the session's, from
``tests/conftest.py``) and a deployment of the app whose processes the tests start and
``kill -9``."""

from __future__ import annotations

from pathlib import Path

import pytest

from emulators.pbx.testing import EmulatorServer
from emulators.slack import SlackStandIn
from tests.faults.processes import Deployment


@pytest.fixture
def deployment(tmp_path: Path, slack: SlackStandIn, pbx: EmulatorServer) -> Deployment:
    deployment = Deployment(tmp_path, slack, pbx)
    deployment.connect_workspace()
    return deployment
