"""Each KPI equals a count made by hand: over a small list of records written out here,
and over the emulator's seeded records of a chosen day, counted in its own database."""

from __future__ import annotations

from dataclasses import fields
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from callcenter import CallCenter
from callcenter.models import Cdr
from commands.kernel.help import help_command
from commands.kernel.i18n import use_language
from commands.kernel.networks import network_of
from commands.kernel.periods import Window
from commands.reports import kpis
from commands.reports import tally as tally_module
from commands.reports.kpis import KPIS, KpiCounts, KpiTally
from commands.reports.tally import fold_records
from emulators.pbx.testing import EmulatorServer
from tests.commands.conftest import MakeContext
from tests.commands.helpers import bytes_kept, visible

VN = ZoneInfo("Asia/Ho_Chi_Minh")


def cdr(n: int, direction: str, status: str, **kw: Any) -> Cdr:
    return Cdr(
        id=f"r{n}",
        direction=direction,
        status=status,
        time_started=kw.pop("time_started", "2026-11-27 02:10:00"),
        **kw,
    )


def hand_made() -> list[Cdr]:
    """Eleven calls whose KPIs are worked out by hand in the test below."""
    return [
        cdr(1, "outbound", "answered", billsec=60, duration=70, extension="1001",
            to_number="0961234567", campaign_uuid="A"),
        cdr(2, "outbound", "busy", duration=10, extension="1001", to_number="0912345678",
            campaign_uuid="A"),
        cdr(3, "outbound", "answered", billsec=120, duration=125, app="autocall", press_key="1",
            to_number="0901234567", campaign_uuid="B"),
        cdr(4, "outbound", "no-answered", duration=30, app="autocall", to_number="0961234567",
            campaign_uuid="B"),
        cdr(5, "outbound", "answered", billsec=40, duration=45, app="autocall", press_key="2",
            to_number="0912345678", campaign_uuid="B"),
        cdr(6, "inbound", "answered", billsec=20, duration=30, extension="1002",
            from_number="0961111111", time_started="2026-11-27 03:05:00"),
        cdr(7, "inbound", "answered", billsec=50, duration=100, extension="1002",
            from_number="0961111111", time_started="2026-11-27 03:40:00"),
        cdr(8, "inbound", "no-answered", duration=3, from_number="0912222222",
            time_started="2026-11-27 03:41:00"),
        cdr(9, "inbound", "cancel", duration=40, from_number="0912222222",
            time_started="2026-11-27 03:50:00"),
        cdr(10, "inbound", "answered", billsec=25, duration=45, extension="1003",
            from_number="0933333333", time_started="2026-11-27 04:00:00"),
        cdr(11, "local", "answered", billsec=15, duration=18, extension="1001",
            from_number="1001", to_number="1002"),
    ]  # fmt: skip


def test_each_kpi_of_a_hand_made_list_is_its_hand_count() -> None:
    tally = KpiTally(VN)
    records = hand_made()
    tally.add_page(records[:4])
    tally.add_page(records[4:])
    k = tally.counts()
    assert tally.records == k.calls == 11
    # Answered: 1, 3, 5, 6, 7, 10, 11.
    assert k.answer_rate == pytest.approx(100 * 7 / 11)
    # Outbound 1-5, answered 1, 3, 5; their talk 60 + 120 + 40.
    assert k.asr == 60.0
    assert k.acd == pytest.approx(220 / 3)
    # Inbound 6-10; 8 is a short abandon (3 s), 9 abandoned; 6 and 10 waited 10 and 20 s.
    assert k.abandonment == 25.0
    assert k.service_level == 50.0
    assert k.asa == pytest.approx((10 + 50 + 20) / 3)
    # Answered with an agent: 1, 6, 7, 10, 11: talk 60 + 20 + 50 + 25 + 15.
    assert k.aht == 34.0
    # Inbound numbers: 0961111111 twice, 0912222222 twice, 0933333333 once.
    assert tally.repeat_calls == 2
    assert tally.repeat_rate == 40.0
    assert not tally.repeat_capped
    assert k.funnel == (3, 2, 2, {"1": 1, "2": 1})

    campaigns = tally.campaign_counts()
    assert set(campaigns) == {"A", "B"}
    assert campaigns["A"].asr == 50.0
    assert campaigns["B"].funnel == k.funnel
    agents = tally.agent_counts()
    assert {a: c.calls for a, c in agents.items()} == {"1001": 3, "1002": 2, "1003": 1}
    assert agents["1002"].asa == 30.0
    networks = tally.network_counts()
    assert {n: c.calls for n, c in networks.items()} == {
        "Viettel": 4,
        "Vinaphone": 4,
        "MobiFone": 2,
        "": 1,
    }
    assert networks["Vinaphone"].abandonment == 100.0
    hours = tally.hour_counts()
    assert {h.hour: c.calls for h, c in hours.items()} == {9: 6, 10: 4, 11: 1}
    assert all(h.tzinfo == VN for h in hours)


def test_no_calls_no_figures_and_the_repeat_set_is_bounded() -> None:
    empty = KpiCounts()
    assert (empty.asr, empty.acd, empty.answer_rate, empty.abandonment) == (None,) * 4
    assert (empty.service_level, empty.asa, empty.aht) == (None,) * 3
    tally = KpiTally(VN, repeat_numbers=1)
    tally.add_page(hand_made())
    # Only the first inbound number is remembered: its repeat is counted, the other's not.
    assert tally.repeat_capped
    assert tally.repeat_calls == 1


def test_every_kpi_reads_only_fields_of_a_call_record() -> None:
    for kpi in KPIS:
        assert kpi.fields
        assert set(kpi.fields) <= set(Cdr.model_fields), kpi.key
    assert len({kpi.key for kpi in KPIS}) == len(KPIS) == 9


KPI_SQL = (
    "SELECT COUNT(*), SUM(status = 'answered'), SUM(direction = 'outbound'), "
    "SUM(direction = 'outbound' AND status = 'answered'), "
    "SUM(CASE WHEN direction = 'outbound' AND status = 'answered' THEN billsec END), "
    "SUM(direction = 'inbound'), SUM(direction = 'inbound' AND status = 'answered'), "
    "SUM(direction = 'inbound' AND status != 'answered' AND duration <= 5), "
    "SUM(direction = 'inbound' AND status = 'answered' AND duration - billsec <= 20), "
    "SUM(CASE WHEN direction = 'inbound' AND status = 'answered' "
    "    THEN MAX(0, duration - billsec) END), "
    "SUM(status = 'answered' AND extension != ''), "
    "SUM(CASE WHEN status = 'answered' AND extension != '' THEN billsec END), "
    "SUM(app = 'autocall'), SUM(app = 'autocall' AND status = 'answered'), "
    "SUM(app = 'autocall' AND press_key != '') "
    "FROM cdrs WHERE {where}"
)
"""The KPIs' counters in ``KpiCounts``' order, as the definitions state them."""


DAY = "domain_uuid = ? AND t_start >= ? AND t_start < ?"


def demo(server: EmulatorServer) -> str:
    """The tenant the tests' client reads (the emulator holds two)."""
    domain = server.emulator.domain_by_name("demo")
    assert domain is not None
    return str(domain.domain_uuid)


def hand_count(server: EmulatorServer, start: datetime, end: datetime, extra: str = "") -> Any:
    conn = server.emulator.conn
    where = "domain_uuid = ? AND t_start >= ? AND t_start < ?" + extra
    params = (demo(server), int(start.timestamp()), int(end.timestamp()))
    row = conn.execute(KPI_SQL.format(where=where), params).fetchone()
    keys = conn.execute(
        f"SELECT press_key, COUNT(*) FROM cdrs WHERE {where} AND app = 'autocall' "
        "AND press_key != '' GROUP BY press_key ORDER BY press_key",
        params,
    ).fetchall()
    names = [f.name for f in fields(KpiCounts) if f.name != "keys"]
    counters = {name: int(v or 0) for name, v in zip(names, row, strict=True)}
    return KpiCounts(**counters, keys=tuple((k, n) for k, n in keys))


async def test_each_kpi_of_a_seeded_day_is_the_emulators_records_counted(
    cc: CallCenter, pbx: EmulatorServer
) -> None:
    start = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=1)
    end = start + timedelta(days=1)
    window = Window(start.astimezone(VN), end.astimezone(VN))
    low, high = window.service_bounds()
    tally = KpiTally(VN)
    await fold_records(cc, tally, page_size=40, start_date=low, end_date=high)

    expected = hand_count(pbx, start, end)
    assert expected.calls > 20 and expected.inbound > 5 and expected.autocalls_pressed > 0
    assert tally.counts() == expected
    conn = pbx.emulator.conn
    bounds = (demo(pbx), int(start.timestamp()), int(end.timestamp()))
    for (uuid,) in conn.execute(
        f"SELECT DISTINCT campaign_uuid FROM cdrs WHERE {DAY} AND campaign_uuid != ''",
        bounds,
    ).fetchall():
        assert tally.campaign_counts()[uuid] == hand_count(
            pbx, start, end, f" AND campaign_uuid = '{uuid}'"
        )
    numbers = conn.execute(
        "SELECT COUNT(*), COUNT(DISTINCT from_number) FROM cdrs WHERE domain_uuid = ? "
        "AND t_start >= ? "
        "AND t_start < ? AND direction = 'inbound' AND from_number != ''",
        bounds,
    ).fetchone()
    assert tally.repeat_calls == numbers[0] - numbers[1]
    by_network: dict[str, int] = {}
    for direction, source, destination in conn.execute(
        f"SELECT direction, from_number, to_number FROM cdrs WHERE {DAY}",
        bounds,
    ):
        customer = source if direction == "inbound" else destination
        network = network_of(customer) if customer else ""
        by_network[network] = by_network.get(network, 0) + 1
    assert {n: c.calls for n, c in tally.network_counts().items()} == by_network
    assert sum(c.calls for c in tally.hour_counts().values()) == expected.calls
    assert (
        sum(c.calls for c in tally.agent_counts().values())
        == conn.execute(
            f"SELECT COUNT(*) FROM cdrs WHERE {DAY} AND extension != ''",
            bounds,
        ).fetchone()[0]
    )


async def test_help_metrics_defines_every_kpi_in_both_languages(
    unconnected: MakeContext,
) -> None:
    ctx = unconnected()
    english = visible(await help_command(ctx, ["metrics"]))
    for name in ("(ASR)", "(ACD)", "Answer rate", "Abandonment rate", "Service level"):
        assert name in english
    for name in ("(ASA)", "(AHT)", "Repeat-call rate", "Key-press funnel"):
        assert name in english
    assert "within 20 s" in english and "at most 5 s" in english and "within 7 days" in english
    assert "wrap-up" in english and "occupancy" in english and "satisfaction" in english
    assert "`billsec`" in english and "`press_key`" in english
    with use_language("vi"):
        vietnamese = visible(await help_command(ctx, ["chỉ", "số"]))
    assert "Chỉ số tổng đài" in vietnamese and "Mức phục vụ" in vietnamese
    assert "trong vòng 20 giây" in vietnamese and "hài lòng" in vietnamese
    assert "Service level" not in vietnamese


def kept_after(pages: int) -> int:
    """Bytes the tally's own code holds after ``pages`` pages of the same calls."""
    modules = (kpis.__file__, tally_module.__file__)
    return bytes_kept(KpiTally(VN), hand_made(), pages, modules)


def test_the_tallys_memory_does_not_grow_with_the_records() -> None:
    kept_after(5)  # warm caches (the network of each number, the local hours)
    small, large = kept_after(200), kept_after(2000)
    # Counters hold the same few integers (bigger ones); the 22,000 records would be MBs.
    assert large < small + 8192, (small, large)
