"""`callops workspace|secrets|audit` against a real emulator on loopback."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from typing import Any

from cryptography.fernet import Fernet

from callcenter import CallCenter, errors
from storage import SecretBox, Storage
from storage.errors import SecretDecryptError
from tests.storage.conftest import Cli


def _service_refusal(base_url: str, api_key: str) -> str:
    async def verify() -> str:
        async with CallCenter(base_url, api_key) as cc:
            try:
                await cc.auth.verify()
            except errors.CallCenterError as exc:
                return exc.message
        raise AssertionError("the emulator accepted a wrong key")

    return asyncio.run(verify())


def _open(cli: Cli, *keys: str) -> Storage:
    import os

    return Storage.open(
        cli.db, SecretBox(list(keys or os.environ["CALLOPS_SECRET_KEY"].split(",")))
    )


def test_connect_verifies_stores_encrypted_and_caches_the_token(cli: Cli, emulator: Any) -> None:
    code, out, err = cli(
        "workspace",
        "connect",
        "--team",
        "T1",
        "--base-url",
        emulator.base_url,
        "--api-key",
        emulator.api_key,
        "--timezone",
        "Asia/Ho_Chi_Minh",
    )
    assert code == 0, err
    assert "workspace T1 connected" in out and emulator.api_key not in out + err

    with _open(cli) as store:
        assert store.workspaces.api_key("T1") == emulator.api_key
        assert store.workspaces.require("T1").timezone == "Asia/Ho_Chi_Minh"
        cached = store.workspaces.token_cache("T1").load()
        assert cached is not None and cached.token
        [entry] = store.audit.entries("T1")
        assert (entry.action, entry.outcome) == ("workspace.connect", "ok")


def test_a_wrong_key_is_refused_with_the_services_message_and_nothing_saved(
    cli: Cli, emulator: Any
) -> None:
    message = _service_refusal(emulator.base_url, "wrong-key")
    code, out, err = cli(
        "workspace",
        "connect",
        "--team",
        "T1",
        "--base-url",
        emulator.base_url,
        "--api-key",
        "wrong-key",
    )
    assert code != 0
    assert message in err and "nothing was saved" in err
    assert "wrong-key" not in out + err
    with _open(cli) as store:
        assert store.workspaces.get("T1") is None
        [entry] = store.audit.entries("T1")
        assert (entry.action, entry.outcome) == ("workspace.connect", "refused")


def test_an_unreachable_service_is_reported_and_nothing_saved(cli: Cli) -> None:
    code, _, err = cli(
        "workspace",
        "connect",
        "--team",
        "T1",
        "--base-url",
        "http://127.0.0.1:1",
        "--api-key",
        "k",
    )
    assert code == 1 and "could not reach" in err
    with _open(cli) as store:
        assert store.workspaces.get("T1") is None


def test_the_key_can_come_from_stdin_instead_of_the_command_line(cli: Cli, emulator: Any) -> None:
    code, _, err = cli(
        "workspace",
        "connect",
        "--team",
        "T1",
        "--base-url",
        emulator.base_url,
        stdin=emulator.api_key + "\n",
    )
    assert code == 0, err
    with _open(cli) as store:
        assert store.workspaces.api_key("T1") == emulator.api_key


def test_bad_input_is_refused_before_calling_the_service(cli: Cli, emulator: Any) -> None:
    code, _, err = cli(
        "workspace",
        "connect",
        "--team",
        "T1",
        "--base-url",
        emulator.base_url,
        "--api-key",
        emulator.api_key,
        "--timezone",
        "Mars/Base",
    )
    assert code == 2 and "unknown timezone" in err


def test_without_a_secret_key_the_cli_refuses_and_explains(cli: Cli, emulator: Any) -> None:
    cli.monkeypatch.delenv("CALLOPS_SECRET_KEY")
    code, _, err = cli(
        "workspace",
        "connect",
        "--team",
        "T1",
        "--base-url",
        emulator.base_url,
        "--api-key",
        emulator.api_key,
    )
    assert code == 2
    assert "CALLOPS_SECRET_KEY" in err and "Fernet.generate_key()" in err
    assert not cli.db.exists()


def test_list_shows_workspaces_but_never_keys(cli: Cli, emulator: Any) -> None:
    code, out, _ = cli("workspace", "list")
    assert code == 0 and "no workspaces yet" in out
    cli(
        "workspace",
        "connect",
        "--team",
        "T1",
        "--base-url",
        emulator.base_url,
        "--api-key",
        emulator.api_key,
    )
    cli(
        "workspace",
        "connect",
        "--team",
        "T2",
        "--base-url",
        emulator.base_url,
        "--api-key",
        emulator.api_key_2,
    )

    code, out, _ = cli("workspace", "list")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("TEAM") and len(lines) == 3
    assert "T1" in lines[1] and "yes" in lines[1] and emulator.base_url in lines[1]
    code, out, _ = cli("workspace", "list", "--format", "json")
    assert [w["team_id"] for w in json.loads(out)] == ["T1", "T2"]
    for text in (out,):
        assert emulator.api_key not in text and emulator.api_key_2 not in text


def test_disconnect_removes_key_and_tokens(cli: Cli, emulator: Any) -> None:
    cli(
        "workspace",
        "connect",
        "--team",
        "T1",
        "--base-url",
        emulator.base_url,
        "--api-key",
        emulator.api_key,
    )
    code, out, _ = cli("workspace", "disconnect", "--team", "T1")
    assert code == 0 and "disconnected" in out
    with _open(cli) as store:
        assert store.workspaces.api_key("T1") is None
        assert store.workspaces.token_cache("T1").load() is None
        actions = [(e.action, e.outcome) for e in store.audit.entries("T1")]
        assert actions == [("workspace.connect", "ok"), ("workspace.disconnect", "ok")]
    code, out, _ = cli("workspace", "list")
    assert "no" in out.splitlines()[1]

    code, _, err = cli("workspace", "disconnect", "--team", "T404")
    assert code == 1 and "no workspace T404" in err


def test_secrets_rotate_moves_everything_to_the_new_key(cli: Cli, emulator: Any, key: str) -> None:
    cli(
        "workspace",
        "connect",
        "--team",
        "T1",
        "--base-url",
        emulator.base_url,
        "--api-key",
        emulator.api_key,
    )
    new = Fernet.generate_key().decode()
    cli.set_keys(new, key)
    code, out, err = cli("secrets", "rotate")
    assert code == 0, err
    assert "re-encrypted 2 stored secrets" in out  # the API key and the cached token

    with _open(cli, new) as store:
        assert store.workspaces.api_key("T1") == emulator.api_key
    with _open(cli, key) as store:
        try:
            store.workspaces.api_key("T1")
        except SecretDecryptError:
            pass
        else:
            raise AssertionError("the old key still decrypts after rotation")
        assert store.audit.all_entries()[-1].action == "secrets.rotate"


def test_audit_exports_csv_and_json_filtered_by_team_and_date(cli: Cli, emulator: Any) -> None:
    cli(
        "workspace",
        "connect",
        "--team",
        "T1",
        "--base-url",
        emulator.base_url,
        "--api-key",
        emulator.api_key,
    )
    cli(
        "workspace",
        "connect",
        "--team",
        "T2",
        "--base-url",
        emulator.base_url,
        "--api-key",
        emulator.api_key_2,
    )

    code, out, _ = cli("audit", "--format", "json")
    assert code == 0
    assert [e["team_id"] for e in json.loads(out)] == ["T1", "T2"]

    code, out, _ = cli("audit", "--team", "T2")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["team_id"], r["action"], r["outcome"]) for r in rows] == [
        ("T2", "workspace.connect", "ok")
    ]
    assert emulator.api_key_2 not in out

    code, out, _ = cli("audit", "--since", "2999-01-01", "--format", "json")
    assert code == 0 and json.loads(out) == []
    code, out, _ = cli("audit", "--since", "2000-01-01T00:00:00+07:00", "--format", "json")
    assert len(json.loads(out)) == 2


def test_an_unusable_database_path_is_one_clear_line(cli: Cli) -> None:
    cli.monkeypatch.setenv("CALLOPS_DB", str(cli.db.parent / "no-such-dir" / "callops.db"))
    code, _, err = cli("workspace", "list")
    assert code == 1
    assert err.startswith("error: the database (CALLOPS_DB) cannot be used")
    assert "Traceback" not in err


def test_the_console_script_carries_the_admin_commands() -> None:
    from bot.cli import build_parser

    parser = build_parser()
    for argv in (
        ["workspace", "list"],
        ["workspace", "disconnect", "--team", "T1"],
        ["secrets", "rotate"],
        ["audit", "--format", "json"],
    ):
        assert callable(parser.parse_args(argv).func)
