"""``--incident``: one mobile network (or campaign) stops answering from a time on
Vietnam's clock, for the calls the simulation places and the traffic it generates;
every other call, and every call before, is answered as usual."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, time, timedelta

import pytest

from bot.cli import main
from commands.kernel.networks import MINISTRY_PREFIXES
from commands.kernel.networks import network_of as app_network_of
from emulators.pbx.incidents import VIETNAM, IncidentError, IncidentSpec, network_of
from emulators.pbx.testing import EmulatorServer


def test_an_incident_is_read_with_the_colons_of_its_times() -> None:
    spec = IncidentSpec.parse("network=viettel:answer=0.05:from=10:00:until=11:30")
    assert (spec.network, spec.answer, spec.start, spec.until) == (
        "Viettel",
        0.05,
        time(10, 0),
        time(11, 30),
    )
    assert str(spec) == "network=Viettel:answer=0.05:from=10:00:until=11:30"
    assert IncidentSpec.parse("campaign=Summer sale:answer=5%:from=9:15").answer == 0.05


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("network=Nokia:answer=0.1:from=10:00", "unknown network"),
        ("network=Viettel:from=10:00", "answer="),
        ("network=Viettel:answer=2:from=10:00", "from 0 to 1"),
        ("network=Viettel:answer=0.1:from=25:00", "HH:MM"),
        ("network=Viettel:campaign=X:answer=0.1", "one network or one campaign"),
        ("colour=red", "unknown incident key"),
    ],
)
def test_a_wrong_incident_says_how_to_write_it(text: str, says: str) -> None:
    with pytest.raises(IncidentError, match=says):
        IncidentSpec.parse(text)


def test_the_emulator_reads_networks_as_the_app_does() -> None:
    numbers = [f"{prefix}{tail}" for prefix in MINISTRY_PREFIXES for tail in ("1234567", "9990001")]
    numbers += [f"0{p:02d}5550123" for p in range(100)] + ["+84 912 345 678", "02838123456"]
    assert {n: network_of(n) for n in numbers} == {n: app_network_of(n) for n in numbers}


def test_the_incident_starts_on_vietnams_clock_today() -> None:
    now = datetime(2026, 11, 30, 3, 0, tzinfo=VIETNAM).timestamp() + 7 * 3600  # 10:00 HCM
    incident = IncidentSpec.parse("network=Viettel:answer=0:from=09:30:until=01:00").at(now)
    assert incident.begins == datetime(2026, 11, 30, 9, 30, tzinfo=VIETNAM).timestamp()
    assert incident.ends == datetime(2026, 12, 1, 1, 0, tzinfo=VIETNAM).timestamp()
    assert incident.covers(now) and not incident.covers(incident.begins - 1)


def _answer_rates(server: EmulatorServer, since: float, until: float) -> dict[str, float]:
    emu = server.emulator
    rows = emu.conn.execute(
        "SELECT to_number, status FROM cdrs WHERE direction = 'outbound' "
        "AND t_start >= ? AND t_start < ?",
        (int(since), int(until)),
    ).fetchall()
    calls: Counter[str] = Counter()
    answered: Counter[str] = Counter()
    for to_number, status in rows:
        net = network_of(to_number)
        calls[net] += 1
        answered[net] += status == "answered"
    return {net: answered[net] / calls[net] for net in calls if calls[net] >= 50}


def test_generated_traffic_follows_the_incident_from_its_start() -> None:
    with EmulatorServer(seed=5) as server:
        day = datetime.fromtimestamp(server.now(), VIETNAM).date() + timedelta(days=1)
        # The emulator writes UTC, where the generated traffic peaks at 10:00 (17:00 in
        # Vietnam).
        at = datetime.combine(day, time(18, 0), tzinfo=VIETNAM).timestamp()
        server.freeze_clock(at)
        server.add_incident("network=Viettel:answer=0.05:from=16:00")
        start = datetime.combine(day, time(14, 0), tzinfo=VIETNAM).timestamp()
        four = start + 2 * 3600
        assert server.fill_volume(20_000, start, at) > 3000
        before, during = _answer_rates(server, start, four), _answer_rates(server, four, at)
        assert before["Viettel"] > 0.3
        assert during["Viettel"] < 0.1
        assert during["Vinaphone"] > 0.3 and abs(during["Vinaphone"] - before["Vinaphone"]) < 0.2
        server.clear_incidents()
        assert server._control("GET", "incidents") == []


def test_simulated_calls_to_the_network_go_unanswered(pbx: EmulatorServer) -> None:
    pbx.set_call_mode("immediate")
    pbx.add_incident("network=MobiFone:answer=0:from=00:00")
    hit = [pbx.originate(direction="outbound", destination="0901234567") for _ in range(5)]
    assert {c["cdr"]["status"] for c in hit} == {"no-answered"}
    spared = [pbx.originate(direction="outbound", destination="0961234567") for _ in range(12)]
    assert "answered" in {c["cdr"]["status"] for c in spared}
    pbx.reset()
    assert pbx._control("GET", "incidents") == []


def test_a_bad_incident_is_refused_by_the_control_surface_and_the_cli(
    pbx: EmulatorServer, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(RuntimeError, match="unknown network"):
        pbx.add_incident("network=Nokia:answer=0:from=10:00")
    assert main(["emulator", "--incident", "network=Viettel:from=10:00"]) == 2
    assert "answer=" in capsys.readouterr().err


def test_a_campaigns_calls_go_unanswered_by_its_name(pbx: EmulatorServer) -> None:
    pbx.set_call_mode("immediate")
    campaigns = pbx.state("campaigns")
    hit, spared = campaigns[0], campaigns[1]
    pbx.add_incident(f"campaign={hit['campaign_name'].upper()}:answer=0:from=00:00")
    calls = [
        pbx.originate(
            direction="outbound", campaign_uuid=hit["campaign_uuid"], destination="0961234567"
        )
        for _ in range(5)
    ]
    assert {c["cdr"]["status"] for c in calls} == {"no-answered"}
    others = [
        pbx.originate(
            direction="outbound", campaign_uuid=spared["campaign_uuid"], destination="0961234567"
        )
        for _ in range(12)
    ]
    assert "answered" in {c["cdr"]["status"] for c in others}
    pbx.reset()
