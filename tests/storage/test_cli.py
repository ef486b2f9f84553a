"""`callops workspace|secrets|audit|db` against a real emulator on loopback, on both engines."""

from __future__ import annotations

import asyncio
import csv
import io
import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from cryptography.fernet import Fernet
from sqlalchemy import insert, inspect

from callcenter import CallCenter, errors
from storage import (
    LATEST_VERSION,
    ApprovalState,
    Database,
    InstallationRecord,
    KindPolicy,
    Mode,
    OpenFold,
    PushedMessage,
    Role,
    SecretBox,
    Storage,
    connect,
)
from storage.errors import SecretDecryptError
from storage.migrations import revision_id
from storage.rule_watch import NotedRecord
from storage.schema import DATA_TABLES, registry_staging
from tests.postgres import PostgresServer
from tests.storage.conftest import Cli, raw, sqlite_path
from tests.storage.legacy import make_legacy_database


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
    code, out, err = cli.connect(
        "T1", emulator.base_url, "--api-key", emulator.api_key, "--timezone", "Asia/Ho_Chi_Minh"
    )
    assert code == 0, err
    assert "workspace T1 connected" in out and emulator.api_key not in out + err

    with _open(cli) as store:
        assert store.workspaces.api_key("T1") == emulator.api_key
        assert store.workspaces.require("T1").timezone == "Asia/Ho_Chi_Minh"
        cached = store.workspaces.cached_token("T1")
        assert cached is not None and cached.token
        [entry] = store.audit.entries("T1")
        assert (entry.action, entry.outcome) == ("workspace.connect", "ok")


def test_a_wrong_key_is_refused_in_our_words_and_nothing_saved(cli: Cli, emulator: Any) -> None:
    message = _service_refusal(emulator.base_url, "wrong-key")
    code, out, err = cli.connect("T1", emulator.base_url, "--api-key", "wrong-key")
    assert code != 0
    assert "the call-center service refused the API key; nothing was saved" in err
    assert message not in err  # what the other side said is never repeated
    assert "wrong-key" not in out + err
    with _open(cli) as store:
        assert store.workspaces.get("T1") is None
        [entry] = store.audit.entries("T1")
        assert (entry.action, entry.outcome) == ("workspace.connect", "refused")


def test_an_unreachable_service_is_reported_and_nothing_saved(cli: Cli) -> None:
    code, _, err = cli.connect("T1", "http://127.0.0.1:1", "--api-key", "k")
    assert code == 1 and "could not reach" in err
    with _open(cli) as store:
        assert store.workspaces.get("T1") is None


def test_the_key_can_come_from_stdin_instead_of_the_command_line(cli: Cli, emulator: Any) -> None:
    code, _, err = cli.connect("T1", emulator.base_url, stdin=emulator.api_key + "\n")
    assert code == 0, err
    with _open(cli) as store:
        assert store.workspaces.api_key("T1") == emulator.api_key


def test_bad_input_is_refused_before_calling_the_service(cli: Cli, emulator: Any) -> None:
    code, _, err = cli.connect(
        "T1", emulator.base_url, "--api-key", emulator.api_key, "--timezone", "Mars/Base"
    )
    assert code == 2 and "unknown timezone" in err


def test_without_a_secret_key_the_cli_refuses_and_explains(cli: Cli, emulator: Any) -> None:
    cli.monkeypatch.delenv("CALLOPS_SECRET_KEY")
    code, _, err = cli.connect("T1", emulator.base_url, "--api-key", emulator.api_key)
    assert code == 2
    assert "CALLOPS_SECRET_KEY" in err and "Fernet.generate_key()" in err
    path = sqlite_path(cli.db)
    if path is not None:
        assert not path.exists()
    else:
        untouched = connect(cli.db)
        try:
            assert raw(untouched, "SELECT COUNT(*) FROM workspaces") == [(0,)]
            assert raw(untouched, "SELECT COUNT(*) FROM audit_log") == [(0,)]
        finally:
            untouched.close()


def test_list_shows_workspaces_but_never_keys(cli: Cli, emulator: Any) -> None:
    code, out, _ = cli("workspace", "list")
    assert code == 0 and "no workspaces yet" in out
    cli.connect("T1", emulator.base_url, "--api-key", emulator.api_key)
    cli.connect("T2", emulator.base_url, "--api-key", emulator.api_key_2)

    code, out, _ = cli("workspace", "list")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("TEAM") and len(lines) == 3
    assert "T1" in lines[1] and "yes" in lines[1] and emulator.base_url in lines[1]
    code, out, _ = cli("workspace", "list", "--format", "json")
    assert [w["team_id"] for w in json.loads(out)] == ["T1", "T2"]
    for text in (out,):
        assert emulator.api_key not in text and emulator.api_key_2 not in text


def test_connect_follows_the_one_rule_for_where_the_service_may_be(cli: Cli, emulator: Any) -> None:
    """The same rule as the connect form's: with no network allowed, the emulator on
    loopback is refused before the key is sent; a URL with credentials never gets that far."""
    cli.monkeypatch.setenv("CALLOPS_SERVICE_NETWORKS", "")
    port = urlsplit(emulator.base_url).port
    for url, words in (
        (emulator.base_url, "private or reserved network"),
        (f"http://0x7f000001:{port}", "private or reserved network"),
        (f"http://u:pw@127.0.0.1:{port}", "user name or password"),
    ):
        code, _, err = cli(
            "workspace", "connect", "--team", "T1", "--base-url", url, "--api-key", "k"
        )
        assert code != 0 and words in err, (url, err)
        assert "nothing was saved" in err or "base URL" in err
    with _open(cli) as store:
        assert store.workspaces.api_key("T1") is None


def test_disconnect_removes_key_and_tokens(cli: Cli, emulator: Any) -> None:
    cli.connect("T1", emulator.base_url, "--api-key", emulator.api_key)
    code, out, _ = cli("workspace", "disconnect", "--team", "T1")
    assert code == 0 and "disconnected" in out
    with _open(cli) as store:
        assert store.workspaces.api_key("T1") is None
        assert store.workspaces.cached_token("T1") is None
        actions = [(e.action, e.outcome) for e in store.audit.entries("T1")]
        assert actions == [("workspace.connect", "ok"), ("workspace.disconnect", "ok")]
    code, out, _ = cli("workspace", "list")
    assert "no" in out.splitlines()[1]

    code, _, err = cli("workspace", "disconnect", "--team", "T404")
    assert code == 1 and "no workspace T404" in err


def test_secrets_rotate_moves_everything_to_the_new_key(cli: Cli, emulator: Any, key: str) -> None:
    cli.connect("T1", emulator.base_url, "--api-key", emulator.api_key)
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
    cli.connect("T1", emulator.base_url, "--api-key", emulator.api_key)
    cli.connect("T2", emulator.base_url, "--api-key", emulator.api_key_2)

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


def test_an_unusable_database_is_one_clear_line(cli: Cli, tmp_path: Path) -> None:
    if sqlite_path(cli.db) is not None:
        unusable, reason = str(tmp_path / "no-such-dir" / "callops.db"), "unable to open"
    else:
        unusable, reason = cli.db.rsplit("/", 1)[0] + "/no_such_database", "does not exist"
    cli.monkeypatch.setenv("CALLOPS_DB", unusable)
    code, _, err = cli("workspace", "list")
    assert code == 1
    assert err.startswith("error: the database (CALLOPS_DB) cannot be used")
    assert reason in err
    assert "Traceback" not in err and "[SQL" not in err


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


# -- callops db migrate | copy -----------------------------------------------------------


def test_db_migrate_brings_an_old_database_to_the_latest_schema(
    cli: Cli, empty_db_url: str, box: SecretBox
) -> None:
    make_legacy_database(empty_db_url)
    old = connect(empty_db_url)
    raw(
        old,
        "INSERT INTO workspaces (team_id, base_url, api_key_enc, timezone, created_at, "
        "updated_at, connected_at) VALUES ('T1', 'http://127.0.0.1:9', :key, 'UTC', 1, 1, 1)",
        {"key": box.encrypt("kept-key")},
    )
    old.close()

    code, out, err = cli("db", "migrate", "--db", empty_db_url)
    assert code == 0, err
    assert f"version {LATEST_VERSION}" in out
    code, out, _ = cli("db", "migrate", "--db", empty_db_url)
    assert code == 0 and f"at the latest schema, version {LATEST_VERSION}" in out
    with Storage.open(empty_db_url, box) as store:
        assert store.workspaces.api_key("T1") == "kept-key"
        assert not inspect(store.db.engine).has_table("schema_version")


def test_db_migrate_uses_callops_db_and_refuses_a_newer_schema(cli: Cli) -> None:
    code, out, err = cli("db", "migrate")
    assert code == 0, err
    assert f"version {LATEST_VERSION}" in out
    db = connect(cli.db)
    try:
        raw(
            db,
            "UPDATE alembic_version SET version_num = :v",
            {"v": revision_id(LATEST_VERSION + 1)},
        )
    finally:
        db.close()
    code, out, err = cli("db", "migrate")
    assert code == 2
    assert "upgrade callops" in err and "Traceback" not in err


def _fill_every_table(store: Storage) -> dict[str, str]:
    """One installation's worth of data, in every table; returns the secrets it holds."""
    team = "T1"
    store.workspaces.ensure("T2", timezone="Europe/Berlin")
    store.roles.set_role(team, "U_OP", Role.OPERATOR, granted_by="U_ADMIN")
    store.people.seen(team, "U_OP", "vi-VN", "Asia/Ho_Chi_Minh")
    store.people.choose_language(team, "U_OP", "en")
    store.policies.set(team, "lead.upload", KindPolicy(Mode.APPROVAL, approvers=("U7",)))
    pushed = store.approvals.create(team, "autocall.push", {"phone": "0912"}, "U_OP")
    store.approvals.decide(
        team,
        pushed.id,
        decider="U_ADMIN",
        decider_role=Role.ADMIN,
        approve=True,
        params_hash=pushed.params_hash,
    )
    store.approvals.claim_for_execution(team, pushed.id)
    store.approvals.finish(
        team, pushed.id, ok=True, result={"call_id": "call-1", "channel": "C1", "ts": "1.5"}
    )
    user = store.approvals.create(team, "user.update", {"user_uuid": "u-1"}, "U_OP")
    store.approval_secrets.keep_secret(team, user.id, {"password": "pw-in-approval"})
    store.approval_secrets.remember_prompt(team, user.id, "https://hooks.slack.test/actions/1")
    store.step_runs.link(
        team,
        user.id,
        function_execution_id="Fx-copied",
        callback_id="update_user",
        token="xwfp-copied",
        outputs={"user_id": "user_uuid"},
    )
    store.installations.save(
        InstallationRecord(
            user_id="U_INSTALL", team_id=team, bot_token="xoxb-copied", user_token="xoxp-copied"
        )
    )
    state = store.oauth_states.issue()
    digest = store.digests.add(
        team, channel="C1", schedule="daily 08:00", timezone="UTC", created_by="U_OP"
    )
    store.digests.claim_slot(team, digest.id, "2024-05-01T08:00:00+00:00")
    store.routes.add(team, channel="C_CALLS", created_by="U_OP", statuses=["ANSWERED"])
    callback = store.callback_tokens.rotate(team)
    store.dedup.mark_event(team, "Ev1")
    store.call_feed.accept(team, "cdr-1", {"id": "cdr-1", "phone": "0912"}, ["C_CALLS"])
    store.call_feed.set_thread_root(team, "C_CALLS", "2024-05-01", "0912", "1.0001")
    [queued] = store.call_feed.heads()
    store.call_feed.folded(
        team,
        "C_CALLS",
        [],
        OpenFold(root_ts="1.0002", opened_at=1.0, records=[store.call_feed.payload(queued)]),
        lane_free_at=0.0,
    )
    alert = store.alerts.add(
        team, channel="C1", metric="dropped_rate", op=">", threshold=5, window_minutes=60,
        created_by="U_OP",
    )  # fmt: skip
    store.alerts.mark_fired(team, alert.id, "camp-1", 7.5)
    store.anomalies.claim_check(team, "2026-11-30T10:40Z")
    store.anomalies.open(
        team, alert.id, scope_kind="network", scope_key="Viettel", scope_name="Viettel",
        kpi="answer_rate", value=12.0, usual=55.0, low=45.0, high=65.0, calls=80,
        slot="2026-11-30T10:40Z",
    )  # fmt: skip
    store.notices.open(team, "service", detail="down", channel="C1")
    store.audit.append(team, "U_OP", "campaign.start", {"campaign": "Summer"})
    store.calling_rules.set_hours(team, (8 * 60, 17 * 60), by="U_OP")
    store.call_lists.add_optout(team, ["0912345678"], source="typed", by="U_OP")
    store.call_lists.upload_registry(
        team, [("0987654321", "2026-01-02")], by="U_OP", file_name="registry.csv"
    )
    store.call_lists.add_consent(team, "0987654321", source="form", by="U_OP")
    # Empty outside an upload's transaction; a row here stands for one cut off midway.
    store.db.write(
        lambda conn: conn.execute(
            insert(registry_staging), {"team_id": team, "version": 9, "phone": "0911111111"}
        )
    )
    store.calling_rules.record_push(team, "0987654321", "camp-1")
    store.rule_watch.set_channel(team, "C_RULES", by="U_OP")
    store.rule_watch.note(team, [NotedRecord("rec-1", "camp-1", "0912345678", 1.0)])
    store.rule_watch.claim_new(team)
    store.rule_watch.settle(team, "rec-1", ("hours",), posted_ts="1.0003")
    store.rule_watch.claim_slot(team, "camp-1", "pause", "2026-11-28T17:00")
    store.rule_watch.remember_paused(team, "camp-1", "Summer", "2026-11-28T17:00")
    store.calling_rules.claim_slot(team, "0912000111", "camp-1", limit=1, after=0.0)
    store.gate_log.record(
        team,
        phone="0987654321",
        campaign_uuid="camp-1",
        campaign_name="Summer",
        klass="advertising",
        results={"hours": "pass"},
        outcome="placed",
        request_id="req-1",
        requester="U_OP",
        approvers=("U_ADMIN",),
    )
    store.privacy_posts.record(
        team, "C1", ["0912345678"], ref="ref-of-a-post", ts="1.0", masked=True
    )
    store.privacy_requests.open(
        team, "erase", "0912345678", requested_by="U_OP", received_at=1.0, due_at=2.0
    )
    store.channel_languages.set(team, "C_EN", "en", by="U_ADMIN")
    return {"callback": callback, "oauth_state": state}


def _all_rows(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    rows = {}
    for table in DATA_TABLES:
        order = ", ".join(c.name for c in table.primary_key.columns)
        rows[table.name] = raw(db, f"SELECT * FROM {table.name} ORDER BY {order}")
    return rows


@pytest.mark.parametrize("direction", ["sqlite-to-postgresql", "postgresql-to-sqlite"])
def test_db_copy_moves_every_row_and_secret_to_the_other_engine(
    direction: str,
    emulator: Any,
    key: str,
    tmp_path: Path,
    postgres_server: PostgresServer,
    postgres_template: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    sqlite_db = str(tmp_path / "installation.db")
    pg_db = postgres_server.create_database(
        template=postgres_template if direction.startswith("postgresql") else "template0"
    )
    source, target = (sqlite_db, pg_db) if direction.startswith("sqlite") else (pg_db, sqlite_db)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("CALLOPS_DB", source)
    monkeypatch.setenv("CALLOPS_SECRET_KEY", key)
    cli = Cli(capsys, monkeypatch, source)
    try:
        code, _, err = cli.connect("T1", emulator.base_url, "--api-key", emulator.api_key)
        assert code == 0, err
        with Storage.open(source, SecretBox([key])) as store:
            secrets = _fill_every_table(store)
            cached = store.workspaces.cached_token("T1")
            before = _all_rows(store.db)
        assert cached is not None
        assert all(before.values()), [name for name, rows in before.items() if not rows]

        code, out, err = cli("db", "copy", "--from", source, "--to", target)
        assert code == 0, err
        total = sum(len(rows) for rows in before.values())
        assert f"copied {total} row(s) in {len(DATA_TABLES)} tables" in out
        assert "row counts verified" in out
        assert emulator.api_key not in out + err

        with Storage.open(target, SecretBox([key])) as copied:
            # Every row, as it was: ids, timestamps, ciphertext.
            after = _all_rows(copied.db)
            [copy_entry] = [row for row in after["audit_log"] if row[4] == "db.copy"]
            after["audit_log"].remove(copy_entry)
            assert after == before
            # The same key reads the secrets on the other side.
            assert copied.workspaces.api_key("T1") == emulator.api_key
            assert copied.workspaces.cached_token("T1") == cached
            bot = copied.installations.find_bot(enterprise_id=None, team_id="T1")
            assert bot is not None and bot.bot_token == "xoxb-copied"
            assert copied.callback_tokens.team_for(secrets["callback"]) == "T1"
            pending = copied.approvals.list("T1", states=[ApprovalState.PENDING])
            assert [a.params for a in pending] == [{"user_uuid": "u-1"}]
            [request] = pending
            assert copied.approval_secrets.take_secret("T1", request.id) == {
                "password": "pw-in-approval"
            }
            step = copied.step_runs.settle("T1", request.id)
            assert step is not None and step.token == "xwfp-copied"
            [head] = copied.call_feed.heads()
            assert copied.call_feed.payload(head) == {"id": "cdr-1", "phone": "0912"}
            assert copied.call_feed.pushed_message("T1", "call-1") == PushedMessage("C1", "1.5")
            assert copied.oauth_states.consume(secrets["oauth_state"])
            # New rows get new ids after the copied ones, not a collision.
            assert copy_entry[0] > max(row[0] for row in before["audit_log"])
            assert copied.call_feed.accept("T1", "cdr-2", {"id": "cdr-2"}, ["C_OTHER"]) == 1
            assert max(q.seq for q in copied.call_feed.heads()) > head.seq
            copied.installations.save(InstallationRecord(user_id="U_NEW", team_id="T1"))
            # Claims work on the copy as they did on the source.
            assert copied.call_feed.accept("T1", "cdr-1", {}, []) is None
    finally:
        postgres_server.drop_database(pg_db)


def test_db_copy_refuses_a_target_with_rows_unless_forced(
    cli: Cli, tmp_path: Path, key: str
) -> None:
    source = str(tmp_path / "source.db")
    with Storage.open(source, SecretBox([key])) as store:
        store.workspaces.connect("T_SRC", "http://127.0.0.1:9", "source-key")
    with Storage.open(cli.db, SecretBox([key])) as store:
        store.workspaces.connect("T_OLD", "http://127.0.0.1:9", "old-key")
        store.audit.append("T_OLD", "U1", "campaign.start", {})

    code, _, err = cli("db", "copy", "--from", source, "--to", cli.db)
    assert code == 1
    assert "already holds rows: audit_log (1), workspaces (1)" in err and "--force" in err
    with Storage.open(cli.db, SecretBox([key])) as store:
        assert [w.team_id for w in store.workspaces.list()] == ["T_OLD"]

    code, out, err = cli("db", "copy", "--from", source, "--to", cli.db, "--force")
    assert code == 0, err
    assert "previous contents replaced" in out
    with Storage.open(cli.db, SecretBox([key])) as store:
        assert [w.team_id for w in store.workspaces.list()] == ["T_SRC"]
        assert store.workspaces.api_key("T_SRC") == "source-key"
        assert [e.action for e in store.audit.all_entries()] == ["db.copy"]


def test_db_copy_from_a_missing_file_creates_nothing(cli: Cli, tmp_path: Path) -> None:
    missing = tmp_path / "typo.db"
    code, _, err = cli("db", "copy", "--from", str(missing), "--to", cli.db)
    assert code == 1 and "no database at" in err and "nothing was done" in err
    assert not missing.exists()
