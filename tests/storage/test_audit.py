from __future__ import annotations

import csv
import io
import json

import pytest
from sqlalchemy.exc import IntegrityError

from storage import Outcome, Storage, redact, write_csv, write_json
from tests.storage.conftest import FakeClock, raw


def test_secrets_are_redacted_by_key_name_at_any_depth() -> None:
    params = {
        "api_key": "k",
        "username": "alice",
        "Password": "p",
        "confirm_password": "p",
        "user": {"bot_token": "xoxb", "refresh_token": "r", "client_secret": "s", "name": "n"},
        "items": [{"token": "t", "phone": "0912345678"}],
    }
    assert redact(params) == {
        "api_key": "[redacted]",
        "username": "alice",
        "Password": "[redacted]",
        "confirm_password": "[redacted]",
        "user": {
            "bot_token": "[redacted]",
            "refresh_token": "[redacted]",
            "client_secret": "[redacted]",
            "name": "n",
        },
        "items": [{"token": "[redacted]", "phone": "0912345678"}],
    }


def test_appended_entries_are_stored_redacted_and_read_back_in_order(
    store: Storage, clock: FakeClock
) -> None:
    store.audit.append("T1", "U1", "user.update", {"username": "bob", "password": "hunter2"})
    clock.advance(60)
    store.audit.append(
        "T1",
        "U2",
        "campaign.start",
        {"campaign": "x"},
        outcome=Outcome.FAILED,
        detail="service said no",
    )
    store.audit.append("T2", "U9", "campaign.start", {})

    entries = store.audit.entries("T1")
    assert [(e.user_id, e.action, e.outcome) for e in entries] == [
        ("U1", "user.update", "ok"),
        ("U2", "campaign.start", "failed"),
    ]
    assert entries[0].params == {"username": "bob", "password": "[redacted]"}
    assert entries[1].detail == "service said no"
    stored = [params for (params,) in raw(store.db, "SELECT params FROM audit_log")]
    assert len(stored) == 3 and not any("hunter2" in params for params in stored)
    assert [e.action for e in store.audit.entries("T1", since=clock())] == ["campaign.start"]
    assert len(store.audit.all_entries()) == 3


def test_the_log_cannot_be_changed_or_deleted(store: Storage, engine: str) -> None:
    store.audit.append("T1", "U1", "campaign.start", {})
    with pytest.raises(IntegrityError, match="append-only"):
        raw(store.db, "UPDATE audit_log SET outcome = 'ok-really'")
    with pytest.raises(IntegrityError, match="append-only"):
        raw(store.db, "DELETE FROM audit_log")
    if engine == "postgresql":  # SQLite has no TRUNCATE
        with pytest.raises(IntegrityError, match="append-only"):
            raw(store.db, "TRUNCATE audit_log")
    assert len(store.audit.entries("T1")) == 1
    assert store.audit.entries("T1")[0].outcome == "ok"
    assert not hasattr(store.audit, "delete") and not hasattr(store.audit, "update")


def test_exports_as_csv_and_json(store: Storage, clock: FakeClock) -> None:
    store.audit.append("T1", "U1", "lead.insert", {"phone": "0912345678", "api_key": "k"})
    store.audit.append("T1", "U2", '=HYPERLINK("x")', {}, outcome=Outcome.REFUSED)
    entries = store.audit.entries("T1")

    out = io.StringIO()
    write_json(entries, out)
    exported = json.loads(out.getvalue())
    assert exported[0]["time"] == "2023-11-14T22:13:20+00:00"
    assert exported[0]["params"] == {"api_key": "[redacted]", "phone": "0912345678"}
    assert [e["outcome"] for e in exported] == ["ok", "refused"]

    out = io.StringIO()
    write_csv(entries, out)
    header, *_ = out.getvalue().splitlines()
    assert header == "id,time,team_id,user_id,action,params,outcome,detail"
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert json.loads(rows[0]["params"])["phone"] == "0912345678"
    # A formula from Slack input must not run when the export is opened in a spreadsheet.
    assert rows[1]["action"].startswith("'=")
