"""Fixtures for the command tests: a real client to the emulator, a context maker and the
app's database on disk."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

import pytest
from cryptography.fernet import Fernet

from callcenter import CallCenter
from commands.kernel.context import CommandContext
from storage import Role, SecretBox, Storage
from tests.contexts import command_context

if TYPE_CHECKING:
    pass

TZ = ZoneInfo("Asia/Ho_Chi_Minh")

MakeContext = Callable[..., CommandContext]


@pytest.fixture
def storage(tmp_path: Path) -> Iterator[Storage]:
    with Storage.open(tmp_path / "db.sqlite", SecretBox([Fernet.generate_key().decode()])) as s:
        yield s


@pytest.fixture
def make_ctx(cc: CallCenter, storage: Storage) -> MakeContext:
    def make(offset: int = 0, role: Role = Role.VIEWER, **kw: Any) -> CommandContext:
        return command_context(storage, role=role, tz=TZ, cc=cc, offset=offset, **kw)

    return make


@pytest.fixture
def unconnected(storage: Storage) -> MakeContext:
    """Contexts of a workspace not connected to the service yet (help, rendering)."""

    def make(role: Role = Role.VIEWER, **kw: Any) -> CommandContext:
        return command_context(storage, role=role, tz=TZ, **kw)

    return make
