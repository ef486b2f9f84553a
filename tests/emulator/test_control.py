"""The control surface: faults, journal, reset, bulk records, domain isolation, the CLI."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx
import pytest

from emulators.pbx.testing import EmulatorServer
from tests.emulator.conftest import Api

ROOT = Path(__file__).resolve().parents[2]


def test_a_scripted_failure_replaces_the_request_once(pbx: EmulatorServer, api: Api) -> None:
    pbx.fail_next("GET", "/v3/campaign", 503, {"error": "maintenance"})
    failed = api.get("/v3/campaign")
    assert (failed.status_code, failed.json()) == (503, {"error": "maintenance"})
    assert api.get("/v3/campaign").status_code == 200
    entries = pbx.journal(method="GET", path="/v3/campaign")
    assert [(e["status"], e["handler_status"], e["fault"]) for e in entries] == [
        (503, None, "scripted"),
        (200, 200, None),
    ]


def test_rate_limit_with_retry_after_and_glob_paths(pbx: EmulatorServer, api: Api) -> None:
    pbx.fail_next("*", "/v3/user/*", 429, retry_after=2, times=2)
    user_uuid = api.data("/v3/user", limit=1)[0]["user_uuid"]
    for _ in range(2):
        limited = api.get(f"/v3/user/{user_uuid}")
        assert limited.status_code == 429 and limited.headers["retry-after"] == "2"
        assert limited.json() == {"error": "too many requests"}
    assert api.get(f"/v3/user/{user_uuid}").status_code == 200


def test_a_failure_after_the_effect_still_leaves_the_effect(pbx: EmulatorServer, api: Api) -> None:
    pbx.fail_next("POST", "/v3/group", 500, after=True)
    response = api.post("/v3/group", json={"group_name": "Applied anyway"})
    assert response.status_code == 500
    assert "Applied anyway" in {g["group_name"] for g in pbx.state("groups")}
    (entry,) = pbx.journal(method="POST", path="/v3/group")
    assert (entry["status"], entry["handler_status"], entry["fault"]) == (500, 200, "after")


def test_a_dropped_connection_after_the_effect(pbx: EmulatorServer, api: Api) -> None:
    pbx.fail_next("POST", "/v3/group", 200, drop=True)
    with pytest.raises(httpx.RemoteProtocolError):
        api.post("/v3/group", json={"group_name": "Dropped but done"})
    assert "Dropped but done" in {g["group_name"] for g in pbx.state("groups")}


def test_a_held_answer_comes_late_after_the_effect(pbx: EmulatorServer, api: Api) -> None:
    pbx.fail_next("POST", "/v3/group", 200, hold_ms=300)
    started = time.perf_counter()
    response = api.post("/v3/group", json={"group_name": "Told late"})
    assert time.perf_counter() - started >= 0.3
    assert response.status_code == 200 and response.json()["created"] is True
    assert "Told late" in {g["group_name"] for g in pbx.state("groups")}
    (entry,) = pbx.journal(method="POST", path="/v3/group")
    assert (entry["status"], entry["fault"]) == (200, "held")


def test_latency_and_random_errors(pbx: EmulatorServer, api: Api) -> None:
    pbx.set_faults(latency_ms=150)
    started = time.perf_counter()
    api.get("/v1/call")
    assert time.perf_counter() - started >= 0.15
    pbx.set_faults(latency_ms=0, error_rate=1.0)
    broken = api.get("/v1/call")
    assert (broken.status_code, broken.json()) == (500, {"error": "internal server error"})
    assert httpx.get(f"{pbx.base_url}/_emulator/clock").status_code == 200  # never faulted
    pbx.set_faults(error_rate=0.5)
    statuses = [api.get("/v1/call").status_code for _ in range(40)]
    assert 5 < statuses.count(500) < 35 and statuses.count(200) + statuses.count(500) == 40


def test_random_errors_repeat_with_the_seed() -> None:
    def run() -> list[int]:
        with (
            EmulatorServer(error_rate=0.3, seed=5) as server,
            httpx.Client(base_url=server.base_url) as http,
        ):
            return [
                http.post("/v3/auth/token", json={"api_key": server.api_key}).status_code
                for _ in range(20)
            ]

    first = run()
    assert 500 in first and 200 in first and run() == first


def test_the_journal_records_requests_with_secrets_redacted(pbx: EmulatorServer, api: Api) -> None:
    user = api.data("/v3/user", limit=1)[0]
    api.put(
        f"/v3/user/{user['user_uuid']}",
        json={
            "username": user["username"],
            "level": "admin",
            "role_uuid": user["role_uuid"],
            "password": "hunter2",
            "confirm_password": "hunter2",
        },
    )
    api.get("/v3/campaign", params=[("type", "manual"), ("limit", "5")])
    entries = pbx.journal()
    assert [e["path"] for e in entries][:2] == ["/v3/auth/token", "/v3/user"]
    token = entries[0]
    assert token["body"] == {"api_key": "***"} and token["domain"] == "demo"
    put = pbx.journal(method="PUT")[0]
    assert put["body"]["password"] == "***" and put["body"]["confirm_password"] == "***"
    assert put["body"]["username"] == user["username"] and put["status"] == 200
    listed = pbx.journal(path="/v3/campaign")[0]
    assert listed["query"] == {"type": "manual", "limit": "5"}
    assert listed["query_string"] == "type=manual&limit=5"
    assert {"time", "epoch", "seq", "duration_ms", "fault", "kind"} <= set(listed)
    assert "hunter2" not in str(pbx.journal()) and api.token not in str(pbx.journal())
    pbx.clear_journal()
    assert pbx.journal() == []


def test_reset_restores_the_seeded_state(pbx: EmulatorServer, api: Api) -> None:
    before = api.campaigns()
    campaign = before[0]
    api.put(
        f"/v3/campaign/{campaign['campaign_uuid']}",
        json={"campaign_name": "Renamed", "type": campaign["type"]},
    )
    pbx.advance(7200)
    pbx.set_call_mode("manual")
    pbx.set_faults(latency_ms=10)
    pbx.reset()
    again = Api(pbx.base_url, pbx.api_key)
    try:
        assert [c["campaign_name"] for c in again.campaigns()] == [
            c["campaign_name"] for c in before
        ]
        clock = pbx.clock()
        assert clock["call_mode"] == "timed" and not clock["frozen"]
        assert abs(clock["now"] - time.time()) < 5
        assert httpx.get(f"{pbx.base_url}/_emulator/faults").json()["latency_ms"] == 0
        stale = again.http.get("/v1/call", headers={"Authorization": f"Bearer {api.token}"})
        assert stale.status_code == 401
    finally:
        again.close()


def test_generate_call_records_in_bulk(pbx: EmulatorServer, api: Api, api2: Api) -> None:
    pbx.freeze_clock()  # no simulated call may end, in either domain, while this runs
    before = api.get("/v3/cdr", params={"limit": 1, "offset": 0}).json()["total"]
    other = api2.get("/v3/cdr", params={"limit": 1, "offset": 0}).json()["total"]
    pbx.generate_cdrs(20_000)
    page = api.get("/v3/cdr", params={"limit": 500, "offset": 19_000}).json()
    assert page["total"] == before + 20_000 and len(page["data"]) == 500
    assert api2.get("/v3/cdr", params={"limit": 1, "offset": 0}).json()["total"] == other
    bad = httpx.post(f"{pbx.base_url}/_emulator/cdrs/generate", json={"count": 5, "domain": "x"})
    assert bad.status_code == 404


def test_todays_records_can_be_asked_for_before_office_hours() -> None:
    """At 02:00 in the emulator's zone no office hour of today has passed; asking for
    today's records then gives them (from the night) instead of never answering."""
    offset = 2 - datetime.now(UTC).hour
    offset = offset + 24 if offset < -12 else offset
    zone = "Etc/GMT" if offset == 0 else f"Etc/GMT{'-' if offset > 0 else '+'}{abs(offset)}"
    with EmulatorServer(timezone=zone) as night:
        api = Api(night.base_url, night.api_key)
        try:
            now = night.freeze_clock()
            today = datetime.fromtimestamp(now, ZoneInfo(zone)).strftime("%Y-%m-%d")
            window = {"start_date": f"{today} 00:00:00", "limit": 500, "offset": 0}
            before = api.get("/v3/cdr", params=window).json()["total"]
            night.generate_cdrs(50, days=1)
            records = api.get("/v3/cdr", params=window).json()
        finally:
            api.close()
    assert records["total"] == before + 50
    moment = datetime.fromtimestamp(now, ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M:%S")
    assert all(r["time_started"].startswith(today) for r in records["data"])
    assert all(r["time_ended"] <= moment for r in records["data"] if r["time_ended"])


def test_domains_never_see_each_other(pbx: EmulatorServer, api: Api, api2: Api) -> None:
    for path in (
        "/v3/user",
        "/v3/campaign",
        "/v3/template",
        "/v3/carrier",
        "/v3/gateway",
        "/v1/blacklist",
    ):
        one = api.get(path, params={"limit": 1000}).json()["data"]
        two = api2.get(path, params={"limit": 1000}).json()["data"]
        assert one and two and not {str(x) for x in one} & {str(x) for x in two}, path
    lead_uuid = next(
        r["lead_uuid"] for r in api.data("/v3/cdr", limit=200, offset=0) if r["lead_uuid"]
    )
    assert api.get(f"/v3/lead/{lead_uuid}").status_code == 200
    assert api2.get(f"/v3/lead/{lead_uuid}").status_code == 404
    campaign = api.campaigns()[0]
    foreign_put = api2.put(f"/v3/campaign/{campaign['campaign_uuid']}", json=campaign)
    assert foreign_put.status_code == 404
    user = api.data("/v3/user", limit=1)[0]
    assert api2.get(f"/v3/user/{user['user_uuid']}").status_code == 404
    pbx.set_call_mode("manual")
    call = pbx.originate()
    assert call["call_id"] not in {c["call_id"] for c in api2.get("/v1/call").json()["data"]}
    moved = api2.post(f"/v1/call/{call['call_id']}/transfer", json={"ext": "2002", "legs": "aleg"})
    assert moved.json() == {"status": "fail", "error": "CALL_NOT_FOUND"}
    mine = {r["id"] for r in api.data("/v3/cdr", limit=1000, offset=0)}
    theirs = {r["id"] for r in api2.data("/v3/cdr", limit=1000, offset=0)}
    assert mine and theirs and not mine & theirs


def test_state_survives_a_restart_with_a_database_file(tmp_path: Path) -> None:
    db = str(tmp_path / "pbx.db")
    with EmulatorServer(db=db) as server:
        api = Api(server.base_url, server.api_key)
        api.post("/v3/group", json={"group_name": "Kept on disk"})
        api.close()
    with EmulatorServer(db=db) as server:
        assert "Kept on disk" in {g["group_name"] for g in server.state("groups")}
        server.reset()
        assert "Kept on disk" not in {g["group_name"] for g in server.state("groups")}


def test_cli_serves_until_interrupted_and_prints_the_demo_keys() -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    script = (
        "import argparse, sys\n"
        "from emulators.pbx.cli import register\n"
        "parser = argparse.ArgumentParser()\n"
        "register(parser.add_subparsers(dest='command'))\n"
        "args = parser.parse_args(sys.argv[1:])\n"
        "sys.exit(args.func(args))\n"
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            script,
            "emulator",
            "--port",
            str(port),
            "--seed",
            "3",
            "--call-mode",
            "manual",
            "--token-ttl",
            "60",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        banner = proc.stdout.readline() + proc.stdout.readline()
        assert f"http://127.0.0.1:{port}" in banner
        assert "demo-api-key" in banner and "demo-api-key-2" in banner
        deadline = time.monotonic() + 10
        while True:
            try:
                token = httpx.post(
                    f"http://127.0.0.1:{port}/v3/auth/token", json={"api_key": "demo-api-key"}
                ).json()
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline
        assert token["expired_in"] == 60
        clock = httpx.get(f"http://127.0.0.1:{port}/_emulator/clock").json()
        assert clock["call_mode"] == "manual"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_cli_rejects_bad_options() -> None:
    import argparse

    from emulators.pbx.cli import register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["emulator", "--error-rate", "2"])
    assert args.func(args) == 2
    with pytest.raises(SystemExit):
        parser.parse_args(["emulator", "--call-mode", "sometimes"])


def test_control_bodies_are_validated(pbx: EmulatorServer) -> None:
    with httpx.Client(base_url=f"{pbx.base_url}/_emulator") as http:
        assert http.post("/clock/advance", json={"seconds": -5}).status_code == 400
        assert http.post("/call-mode", json={"mode": "fast"}).status_code == 400
        assert http.post("/faults", json={"next": [{"status": 99}]}).status_code == 400
        assert http.post(f"/calls/{uuid.uuid4()}/answer").status_code == 404
        assert http.get("/state/secrets").status_code == 404
