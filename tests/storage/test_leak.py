"""A full run with DEBUG logging, then a scan of the database's files and every log line for
any API key, service token, Slack token or password in plain text. On SQLite the files are
the database and its write-ahead log; on PostgreSQL the database's table files and the
server's write-ahead log, after a checkpoint has flushed everything to them."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from cryptography.fernet import Fernet

from storage import InstallationRecord, SecretBox, Storage
from tests.postgres import PostgresServer
from tests.storage.conftest import Cli, decide, sqlite_path


def _database_bytes(cli: Cli, request: pytest.FixtureRequest) -> bytes:
    path = sqlite_path(cli.db)
    if path is not None:
        files = [Path(str(path) + suffix) for suffix in ("", "-wal", "-shm")]
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        files = server.database_files(cli.db)
    return b"".join(f.read_bytes() for f in files if f.exists())


def test_no_secret_reaches_the_database_files_or_the_logs(
    cli: Cli,
    emulator: Any,
    key: str,
    caplog: pytest.LogCaptureFixture,
    request: pytest.FixtureRequest,
) -> None:
    caplog.set_level(logging.DEBUG)
    logging.getLogger().setLevel(logging.DEBUG)
    outputs: list[str] = []

    def run(*argv: str) -> None:
        code, out, err = cli(*argv)
        assert code == 0, err
        outputs.extend([out, err])

    for team, api_key in (("T1", emulator.api_key), ("T2", emulator.api_key_2)):
        run(
            "workspace",
            "connect",
            "--team",
            team,
            "--base-url",
            emulator.base_url,
            "--api-key",
            api_key,
        )

    bot_token, user_token = "xoxb-123-456-leakcheckbot", "xoxp-123-456-leakcheckuser"
    refresh, webhook = "xoxe-1-leakcheckrefresh", "https://hooks.slack.com/services/LEAKCHECK"
    password = "Leak-Check-Password-77"
    with Storage.open(cli.db, SecretBox([key])) as store:
        service_token = store.workspaces.cached_token("T1")
        assert service_token is not None
        store.installations.save(
            InstallationRecord(
                user_id="U1",
                team_id="T1",
                bot_token=bot_token,
                bot_refresh_token=refresh,
                user_token=user_token,
                incoming_webhook_url=webhook,
            )
        )
        callback_token = store.callback_tokens.rotate("T1")
        approval = store.approvals.create(
            "T1",
            "user.update",
            {"username": "agent7", "password": password, "confirm_password": password},
            "U1",
        )
        decide(store, "T1", approval)
        claimed = store.approvals.claim_for_execution("T1", approval.id)
        assert claimed.params["password"] == password
        store.approvals.finish("T1", approval.id, ok=True, result={"updated": "agent7"})
        store.audit.append(
            "T1", "U2", "user.update", {**claimed.params, "api_key": emulator.api_key}
        )

    new_key = Fernet.generate_key().decode()
    cli.set_keys(new_key, key)
    run("secrets", "rotate")
    run("audit", "--format", "json")
    run("audit", "--format", "csv")
    run("workspace", "list")
    run("workspace", "disconnect", "--team", "T2")

    secrets = {
        "API key": emulator.api_key,
        "second API key": emulator.api_key_2,
        "service token": service_token.token,
        "bot token": bot_token,
        "user token": user_token,
        "refresh token": refresh,
        "webhook URL": webhook,
        "password": password,
        "callback token": callback_token,
        "old Fernet key": key,
        "new Fernet key": new_key,
    }
    raw = _database_bytes(cli, request)
    assert b"workspace.connect" in raw and b"agent7" in raw  # the scan reads real rows
    log_lines = [
        f"{r.name} {r.levelname} {r.getMessage()} {r.args!r} {r.exc_text or ''}"
        for r in caplog.records
    ]
    assert any("connected" in line for line in log_lines)  # logging really was captured
    text = "\n".join(log_lines + outputs)
    for what, secret in secrets.items():
        assert secret.encode() not in raw, f"{what} found in the database file"
        assert secret not in text, f"{what} found in the logs or CLI output"
