"""``--volume``: a real call center's records, shaped like its day, answered like the
seeded data (listing, filters, paging, statistics agree)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from emulators.pbx.config import EmulatorConfig
from emulators.pbx.state import Emulator
from emulators.pbx.testing import EmulatorServer
from emulators.pbx.volume import Volume
from tests.emulator.conftest import Api

VOLUME = Volume(20_000, 1)


@pytest.fixture(scope="module")
def volume_server() -> Iterator[EmulatorServer]:
    with EmulatorServer(seed=3, volume=VOLUME) as server:
        yield server


@pytest.fixture
def vapi(volume_server: EmulatorServer) -> Iterator[Api]:
    client = Api(volume_server.base_url, volume_server.api_key)
    yield client
    client.close()


def yesterday() -> tuple[str, str]:
    day = datetime.now(UTC).date() - timedelta(days=1)
    return f"{day} 00:00:00", f"{day} 23:59:59"


def test_a_volume_is_parsed_and_refused_plainly() -> None:
    assert Volume.parse("500000:7") == Volume(500_000, 7)
    assert Volume.parse("1000") == Volume(1000, 7)
    for bad in ("many", "10:x", "0:3", "10:0", "10:99"):
        with pytest.raises(ValueError):
            Volume.parse(bad)


def test_each_past_day_holds_the_volume_shaped_like_a_call_center(vapi: Api) -> None:
    start, end = yesterday()
    page = vapi.get("/v3/cdr", params={"start_date": start, "end_date": end}).json()
    # The seeded demo data adds a few hundred records of its own to the day.
    assert VOLUME.calls_per_day <= page["total"] < VOLUME.calls_per_day + 1000
    rows = vapi.get(
        "/v2/stats", params={"start_date": start, "end_date": end, "interval": "hour"}
    ).json()["data"]
    by_hour = {int(r["time"][11:13]): r["total"] for r in rows}
    night = sum(by_hour[h] for h in range(0, 5))
    morning = sum(by_hour[h] for h in range(9, 12))
    lunch = by_hour[12]
    afternoon = sum(by_hour[h] for h in range(14, 17))
    assert 0 < night * 20 < morning
    assert lunch < by_hour[10] and lunch < by_hour[15]
    assert afternoon > 10 * night


def test_statistics_agree_with_the_listed_records(vapi: Api) -> None:
    start, end = yesterday()
    campaign = next(
        c["campaign_uuid"] for c in vapi.campaigns(type="autocall") if c["status"] == "start"
    )
    counted: Counter[str] = Counter()
    offset = 0
    while True:
        page = vapi.get(
            "/v3/cdr",
            params={"start_date": start, "end_date": end, "limit": 1000, "offset": offset},
        ).json()
        for record in page["data"]:
            counted["total"] += 1
            counted[record["status"].replace("-", "_")] += 1
            counted[record["direction"]] += 1
            counted["total_billsec"] += record["billsec"]
            counted["by campaign"] += record["campaign_uuid"] == campaign
            counted["pressed"] += bool(record["press_key"])
        offset += len(page["data"])
        if not page["data"]:
            break
    assert offset == page["total"]
    stats = vapi.get(
        "/v2/stats", params={"start_date": start, "end_date": end, "interval": "day"}
    ).json()["data"]
    summed: Counter[str] = Counter()
    for row in stats:
        summed.update({k: v for k, v in row.items() if isinstance(v, int)})
    for key in ("total", "answered", "busy", "busy_line", "no_answered", "inbound", "outbound"):
        assert summed[key] == counted[key], key
    assert summed["total_billsec"] == counted["total_billsec"]
    one = vapi.get(
        "/v3/cdr",
        params={
            "start_date": start,
            "end_date": end,
            "campaign_uuid": campaign,
            "limit": 0,
            "offset": 0,
        },
    ).json()
    assert one["total"] == counted["by campaign"] > 0
    assert counted["pressed"] > 0


def test_the_same_seed_gives_the_same_records() -> None:
    def yesterdays(seed: int) -> list[tuple[object, ...]]:
        emu = Emulator(EmulatorConfig(seed=seed, volume=Volume(2000, 1)))
        start, _end = yesterday()
        day = datetime.fromisoformat(start).replace(tzinfo=UTC).timestamp()
        rows = emu.conn.execute(
            "SELECT t_start, status, to_number, campaign_uuid, extension FROM cdrs "
            "WHERE t_start >= ? AND t_start < ? "
            "ORDER BY t_start, id",
            (day, day + 86400),
        ).fetchall()
        emu.store.close()
        return rows

    first = yesterdays(5)
    assert first == yesterdays(5)
    assert first != yesterdays(6)
