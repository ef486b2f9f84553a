"""Reports and statistics agree with the call records they are computed from."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import pytest

from emulators.pbx.testing import EmulatorServer
from tests.emulator.conftest import Api, fmt


def every_record(api: Api, **params: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    while True:
        page = api.get("/v3/cdr", params={**params, "limit": 500, "offset": len(out)}).json()
        out += page["data"]
        if len(out) >= page["total"] or not page["data"]:
            assert len(out) == page["total"]
            return out


@pytest.fixture
def window(pbx: EmulatorServer) -> tuple[str, str]:
    """The last eight days on a frozen clock, so nothing changes while a test reads."""
    now = pbx.freeze_clock(at=float(int(pbx.now()) + 1))
    return fmt(now - 8 * 86400), fmt(now)


STATUS_COLUMNS = (
    "answered",
    "busy",
    "busy_line",
    "cancel",
    "no_answered",
    "not_available",
    "invalid",
    "congestion",
    "phone_block",
)
"""The per-status counts a /v2/stats row carries."""


def test_stats_buckets_add_up_to_the_records(api: Api, window: tuple[str, str]) -> None:
    start, end = window
    records = every_record(api, start_date=start, end_date=end)
    assert len(records) > 300
    for interval in ("hour", "day", "week", "month"):
        rows = api.get(
            "/v2/stats", params={"start_date": start, "end_date": end, "interval": interval}
        ).json()["data"]
        assert sum(r["total"] for r in rows) == len(records), interval
        status = Counter(r["status"] for r in records)
        direction = Counter(r["direction"] for r in records)
        expected = {
            # a status column is named for the status with _ for - (busy-line: busy_line)
            **{key: status[key.replace("_", "-")] for key in STATUS_COLUMNS},
            **{key: direction[key] for key in ("inbound", "outbound", "local")},
            "total_billsec": sum(r["billsec"] for r in records),
            "total_duration": sum(r["duration"] for r in records),
            "total_waitsec": sum(r["duration"] - r["billsec"] for r in records),
            "ivr": sum(r["app"] in {"autocall", "ivr"} for r in records),
        }
        for key, value in expected.items():
            assert sum(r[key] for r in rows) == value, (interval, key)
    daily = api.get(
        "/v2/stats", params={"start_date": start, "end_date": end, "interval": "day"}
    ).json()["data"]
    assert len(daily) == 9  # eight days back from a moment inside the ninth day
    per_day = Counter(r["time_started"][:10] for r in records)
    assert {r["time"][:10]: r["total"] for r in daily if r["total"]} == dict(per_day)


def test_extension_reports_agree_with_the_records(api: Api, window: tuple[str, str]) -> None:
    start, end = window
    records = [r for r in every_record(api, start_date=start, end_date=end) if r["extension"]]
    by_ext = defaultdict(list)
    for r in records:
        by_ext[r["extension"]].append(r)
    params = {"start_time": start, "end_time": end}
    counters = api.get("/v2/report/extension", params=params).json()["data"]
    summary = api.get("/v2/report/extension/summary", params=params).json()["data"]
    by_day = api.get("/v2/report/extension/summary/day", params=params).json()["data"]
    agents = api.get("/v2/report/agent/time", params=params).json()["data"]
    users = api.get("/v3/report/call/user", params=params).json()["data"]
    assert sum(r["total"] for r in counters) == len(records)
    for row in counters:
        mine = by_ext.get(row["extension"], [])
        assert row["total"] == len(mine)
        assert row["answered"] == sum(r["status"] == "answered" for r in mine)
        assert row["inbound"] == sum(r["direction"] == "inbound" for r in mine)
    listed = api.get(
        "/v3/cdr",
        params={"extension": "1004", "start_date": start, "end_date": end, "limit": 1, "offset": 0},
    ).json()["total"]
    assert next(r["total"] for r in counters if r["extension"] == "1004") == listed
    for row in summary:
        mine = by_ext.get(row["extension"], [])
        assert row["total_call"] == len(mine)
        assert row["total_billsec"] == sum(r["billsec"] for r in mine)
        assert row["total_waitsec"] == sum(r["duration"] - r["billsec"] for r in mine)
    for row in by_day:
        assert sum(d["total_call"] for d in row["reports"]) == row["total_call"]
    for row in agents:
        ext = next(u["extension"] for u in summary if u["user_uuid"] == row["user_uuid"])
        assert row["total_talk_sec"] == sum(r["billsec"] for r in by_ext.get(ext, []))
    assert {u["extension"] for u in users} == set(by_ext)


def test_autodialer_statistics_agree_with_the_records(pbx: EmulatorServer, api: Api) -> None:
    now = pbx.freeze_clock(at=float(int(pbx.now()) + 1))
    interval = 3 * 24 * 60
    stats = api.get(
        "/v3/monitor-stats/campaign/autodialer", params={"interval": interval, "limit": 100}
    ).json()["data"]
    assert sum(s["total_calls"] for s in stats) > 0
    for item in stats:
        records = every_record(
            api, campaign_uuid=item["campaign_uuid"], start_date=fmt(now - interval * 60)
        )
        answered = sum(r["status"] == "answered" for r in records)
        dropped = sum(r["status"] in {"drop", "busy-line"} for r in records)
        assert item["total_calls"] == len(records)
        assert item["total_connected_customers"] == answered
        assert item["dropped_calls"] == dropped
        if records:
            assert item["customer_connection_rate"] == round(answered * 100 / len(records), 2)
        stats_leads = item["statistics"]
        assert stats_leads["total_imported"] == item["total_leads"]
        assert stats_leads["total_called"] >= stats_leads["total_handled"]


def test_report_windows_default_to_today(pbx: EmulatorServer, api: Api) -> None:
    pbx.set_call_mode("immediate")
    call = pbx.originate(direction="inbound", outcome="answered", extension="1002")
    today = api.get("/v2/report/extension").json()["data"]
    row = next(r for r in today if r["extension"] == "1002")
    assert row["total"] >= 1 and call["cdr"]["extension"] == "1002"
    stats = api.get("/v2/stats").json()["data"]
    assert len(stats) == 1 and stats[0]["total"] >= 1


def test_stats_refuses_windows_too_fine_to_list(api: Api) -> None:
    response = api.get(
        "/v2/stats",
        params={"start_date": "1990-01-01", "end_date": "2030-01-01", "interval": "hour"},
    )
    assert response.status_code == 400 and isinstance(response.json()["error"], str)
