"""Losing the app's tokens wipes the workspace's secrets: after ``app_uninstalled`` or
``tokens_revoked`` no usable API key is left anywhere in the database file, not even in
pages SQLite has freed or in its write-ahead log."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cryptography.fernet import InvalidToken

from bot.runtime import Runtime
from emulators.pbx.testing import EmulatorServer
from emulators.slack import TEAM, SlackStandIn
from storage import SecretBox

FERNET_TOKEN = re.compile(rb"gAAAAA[A-Za-z0-9_\-]{40,}={0,2}")


def secrets_in_files(db_path: str, box: SecretBox) -> set[str]:
    """Every secret that an attacker holding the key could read back from the raw files
    (the database and its WAL), whatever SQLite considers live."""
    found: set[str] = set()
    for path in (Path(db_path), Path(db_path + "-wal")):
        if not path.exists():
            continue
        for match in FERNET_TOKEN.finditer(path.read_bytes()):
            try:
                found.add(box.decrypt(match.group().decode()))
            except (InvalidToken, ValueError):
                continue  # a token cut short by a page boundary or an overwrite
    return found


@pytest.mark.parametrize("event", ["app_uninstalled", "tokens_revoked"])
async def test_losing_the_tokens_wipes_the_api_key(
    event: str, app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    db_path = app.settings.callops_db
    assert pbx.api_key in secrets_in_files(db_path, app.storage.box)  # the check can see it

    if event == "app_uninstalled":
        delivery = await slack.driver.app_uninstalled(TEAM)
    else:
        delivery = await slack.driver.tokens_revoked(TEAM)
    assert delivery.in_time

    def wiped() -> bool:
        return any(e.action == "workspace.wipe" for e in app.storage.audit.entries(TEAM))

    await slack.wait_for(wiped)
    assert app.storage.workspaces.api_key(TEAM) is None
    assert not app.storage.workspaces.require(TEAM).connected
    assert pbx.api_key not in secrets_in_files(db_path, app.storage.box)
    wipe = next(e for e in app.storage.audit.entries(TEAM) if e.action == "workspace.wipe")
    assert wipe.params == {"reason": event}
