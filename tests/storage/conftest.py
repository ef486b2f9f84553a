from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet

from storage import SecretBox, Storage


class FakeClock:
    """A clock the test moves by hand, so expiry is tested without waiting."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def key() -> str:
    return Fernet.generate_key().decode()


@pytest.fixture
def box(key: str) -> SecretBox:
    return SecretBox([key])


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "callops.db"


@pytest.fixture
def store(db_path: Path, box: SecretBox, clock: FakeClock) -> Iterator[Storage]:
    with Storage.open(db_path, box, clock=clock) as opened:
        yield opened


@pytest.fixture(scope="module")
def emulator() -> Iterator[Any]:
    """The call-center emulator on a loopback port, with its two API keys (two domains)."""
    from emulators.pbx.testing import EmulatorServer

    with EmulatorServer(seed=1) as server:
        yield server


@dataclass
class Cli:
    """Runs `callops ...` in-process, the way the console script would."""

    capsys: pytest.CaptureFixture[str]
    monkeypatch: pytest.MonkeyPatch
    db: Path

    def __call__(self, *argv: str, stdin: str | None = None) -> tuple[int, str, str]:
        # The admin family's own parser, registered exactly as bot.cli registers it, so
        # these tests do not depend on the other command families (test_cli checks that
        # the console script carries this family).
        import argparse

        from bot import cli_admin

        parser = argparse.ArgumentParser(prog="callops")
        cli_admin.register(parser.add_subparsers(dest="command", required=True))
        self.capsys.readouterr()
        if stdin is not None:
            self.monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        args = parser.parse_args(list(argv))
        code = int(args.func(args))
        out, err = self.capsys.readouterr()
        return code, out, err

    def set_keys(self, *keys: str) -> None:
        self.monkeypatch.setenv("CALLOPS_SECRET_KEY", ",".join(keys))


@pytest.fixture
def cli(
    tmp_path: Path, key: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Cli:
    """A clean environment: its own database and key, no .env, no single-workspace mode."""
    monkeypatch.chdir(tmp_path)
    for name in ("CALLOPS_BASE_URL", "CALLOPS_API_KEY", "CALLOPS_TIMEZONE", "CALLOPS_ADMINS"):
        monkeypatch.delenv(name, raising=False)
    db = tmp_path / "cli.db"
    monkeypatch.setenv("CALLOPS_DB", str(db))
    monkeypatch.setenv("CALLOPS_SECRET_KEY", key)
    return Cli(capsys, monkeypatch, db)
