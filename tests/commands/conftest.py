"""Fixtures for the command tests: a real client to the emulator, a context maker and the
app's database on disk."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import pytest
from cryptography.fernet import Fernet

from callcenter import CallCenter
from commands.kernel.context import CommandContext
from storage import Role, SecretBox, Storage

if TYPE_CHECKING:
    from emulators.pbx.testing import EmulatorServer

TZ = ZoneInfo("Asia/Ho_Chi_Minh")

MakeContext = Callable[..., CommandContext]


@pytest.fixture
async def cc(pbx: EmulatorServer) -> AsyncIterator[CallCenter]:
    async with CallCenter(pbx.base_url, pbx.api_key, max_retries=1) as client:
        yield client


@pytest.fixture
def storage(tmp_path: Path) -> Iterator[Storage]:
    with Storage.open(tmp_path / "db.sqlite", SecretBox([Fernet.generate_key().decode()])) as s:
        yield s


@pytest.fixture
def make_ctx(cc: CallCenter) -> MakeContext:
    def make(offset: int = 0, role: Role = Role.VIEWER, **kw: Any) -> CommandContext:
        return CommandContext(
            team_id="T1", user_id="U1", channel_id="C1", role=role, tz=TZ, cc=cc,
            offset=offset, **kw,
        )  # fmt: skip

    return make
