"""The call simulation: live calls become call records, campaigns dial their leads,
autocall records are POSTed to the campaign's callback URL.

The clock is frozen at the start of each test so nothing moves unless the test moves
it (``advance``); no test waits on wall-clock time except for a callback to arrive.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from emulators.pbx.testing import EmulatorServer
from tests.emulator.conftest import Api, Receiver


def live(api: Api) -> list[dict[str, Any]]:
    """The live calls as the service shows them (spec 2.13: no campaign, no agent)."""
    calls: list[dict[str, Any]] = api.get("/v1/call").json()["data"]
    return calls


def dialing(pbx: EmulatorServer, campaign_uuid: str) -> list[dict[str, Any]]:
    """A campaign's live calls, from the control surface (the service does not say
    which campaign a live call belongs to)."""
    return [c for c in pbx.live_calls("demo") if c["campaign_uuid"] == campaign_uuid]


def records(api: Api, **params: Any) -> list[dict[str, Any]]:
    return api.data("/v3/cdr", limit=1000, offset=0, **params)


def set_campaign(api: Api, campaign: dict[str, Any], **changes: Any) -> dict[str, Any]:
    body = {**campaign, **changes}
    response = api.put(f"/v3/campaign/{campaign['campaign_uuid']}", json=body)
    assert response.status_code == 200, response.text
    return body


def new_leads(pbx: EmulatorServer, list_uuid: str) -> int:
    return sum(
        1
        for lead in pbx.state("leads")
        if lead["list_uuid"] == list_uuid and lead["status"] == "NEW"
    )


def test_autocall_becomes_a_record_with_its_params_and_is_called_back(
    pbx: EmulatorServer, api: Api, receiver: Receiver
) -> None:
    pbx.freeze_clock()
    campaign = next(
        c
        for c in api.campaigns(type="autocall")
        if c["status"] == "stop" and c["template_name"] == "Chào hỏi khách hàng"
    )
    set_campaign(api, campaign, callback_url=f"{receiver.url}/hook/abc")
    params = {"name": "Nguyễn Văn An"}
    result = api.post(
        "/v3/autocall/import",
        json={
            "campaign_uuid": campaign["campaign_uuid"],
            "phone_number": "0912345678",
            "param": params,
        },
    ).json()
    assert [c["call_id"] for c in dialing(pbx, campaign["campaign_uuid"])].count(
        result["call_id"]
    ) == 1
    pbx.advance(600)
    assert result["call_id"] not in {c["call_id"] for c in live(api)}
    (record,) = [r for r in records(api, phone="0912345678") if r["id"] == result["call_id"]]
    assert record["additional"] == params
    assert (record["campaign_uuid"], record["lead_uuid"], record["app"]) == (
        campaign["campaign_uuid"],
        result["lead_uuid"],
        "autocall",
    )
    path, posted = receiver.next()
    assert path == "/hook/abc" and posted == record
    lead = api.get(f"/v3/lead/{result['lead_uuid']}").json()
    assert lead["called_count"] == 1 and lead["status"] in {"DONE", "FAILED"}
    # The receiver has the POST before the emulator has read the answer and journaled it.
    sent = receiver_journal(pbx)
    assert [(e["path"], e["status"]) for e in sent] == [(f"{receiver.url}/hook/abc", 204)]


def receiver_journal(pbx: EmulatorServer, within: float = 10.0) -> list[dict[str, Any]]:
    deadline = time.monotonic() + within
    while True:
        sent = pbx.journal(kind="callback")
        if sent or time.monotonic() > deadline:
            return sent
        threading.Event().wait(0.02)


def test_immediate_mode_writes_the_record_before_the_response(
    pbx: EmulatorServer, api: Api
) -> None:
    pbx.set_call_mode("immediate")
    campaign = api.campaigns(type="autocall")[0]
    result = api.post(
        "/v3/autocall/import",
        json={
            "campaign_uuid": campaign["campaign_uuid"],
            "phone_number": "0398765432",
            "param": {"name": "Bình"},
        },
    ).json()
    assert result["call_id"] in {r["id"] for r in records(api, phone="0398765432")}
    assert result["call_id"] not in {c["call_id"] for c in live(api)}
    call = pbx.originate(direction="outbound", outcome="busy")
    assert call["ended"] and call["cdr"]["status"] == "busy" and call["cdr"]["billsec"] == 0


def test_manual_calls_move_only_when_told(pbx: EmulatorServer, api: Api) -> None:
    pbx.set_call_mode("manual")
    pbx.freeze_clock()
    call = pbx.originate(direction="inbound", source="0977000111")
    pbx.advance(3600)
    (ringing,) = [c for c in pbx.live_calls() if c["call_id"] == call["call_id"]]
    assert ringing["phase"] == "ringing" and ringing["destination"] == "19006868"
    answered = pbx.answer(call["call_id"])
    assert answered["phase"] == "active" and answered["extension"]
    (shown,) = [c for c in live(api) if c["call_id"] == call["call_id"]]
    assert (shown["source"], shown["destination"]) == ("0977000111", answered["extension"])
    pbx.advance(95)
    ended = pbx.hangup(call["call_id"])["cdr"]
    assert (ended["status"], ended["billsec"], ended["extension"]) == (
        "answered",
        95,
        answered["extension"],
    )
    assert ended["from_number"] == "0977000111" and ended["receive_dest"] == "19006868"
    assert ended["username"] and ended["recording_url"]
    missed = pbx.originate(direction="outbound", extension="1005")
    record = pbx.hangup(missed["call_id"], status="busy")["cdr"]
    assert (record["status"], record["cause"], record["extension"]) == ("busy", "USER_BUSY", "1005")


def test_a_started_campaign_dials_up_to_its_concurrent_calls(pbx: EmulatorServer, api: Api) -> None:
    pbx.set_call_mode("manual")
    pbx.freeze_clock()
    campaign = next(
        c
        for c in api.campaigns(type="autodialer")
        if c["status"] == "stop" and c["default_list_uuid"]
    )
    waiting = new_leads(pbx, campaign["default_list_uuid"])
    assert waiting >= 3
    set_campaign(api, campaign, status="start", concurrent_call=2)
    ringing = dialing(pbx, campaign["campaign_uuid"])
    assert len(ringing) == 2 and all(c["phase"] == "ringing" for c in ringing)
    pbx.hangup(ringing[0]["call_id"], status="no-answered")
    pbx.advance(0)
    assert len(dialing(pbx, campaign["campaign_uuid"])) == 2
    assert new_leads(pbx, campaign["default_list_uuid"]) == waiting - 3


def test_timed_campaign_works_through_its_leads_never_above_the_limit(
    pbx: EmulatorServer, api: Api
) -> None:
    pbx.freeze_clock()
    campaign = next(
        c
        for c in api.campaigns(type="autocall")
        if c["status"] == "stop" and c["default_list_uuid"]
    )
    set_campaign(api, campaign, status="start", concurrent_call=2, recall_times=0)
    assert len(dialing(pbx, campaign["campaign_uuid"])) == 2
    pbx.advance(4 * 3600)
    assert dialing(pbx, campaign["campaign_uuid"]) == []
    assert new_leads(pbx, campaign["default_list_uuid"]) == 0
    made = records(api, campaign_uuid=campaign["campaign_uuid"])
    fresh = [r for r in made if r["time_started"] >= made[-1]["time_started"] and r["lead_uuid"]]
    assert len(fresh) >= 3
    edges = sorted([(r["time_started"], 1) for r in fresh] + [(r["time_ended"], -1) for r in fresh])
    at_once = peak = 0
    for _, step in edges:
        at_once += step
        peak = max(peak, at_once)
    assert peak <= 2


def test_pause_halts_dialing_and_calls_in_progress_finish(pbx: EmulatorServer, api: Api) -> None:
    pbx.freeze_clock()
    campaign = next(
        c
        for c in api.campaigns(type="autodialer")
        if c["status"] == "pause" and c["default_list_uuid"]
    )
    waiting = new_leads(pbx, campaign["default_list_uuid"])
    body = set_campaign(api, campaign, status="start")
    in_progress = dialing(pbx, campaign["campaign_uuid"])
    assert len(in_progress) == campaign["concurrent_call"]
    set_campaign(api, body, status="pause")
    before = len(records(api, campaign_uuid=campaign["campaign_uuid"]))
    pbx.advance(3600)
    assert dialing(pbx, campaign["campaign_uuid"]) == []
    after = records(api, campaign_uuid=campaign["campaign_uuid"])
    assert len(after) == before + len(in_progress)
    assert new_leads(pbx, campaign["default_list_uuid"]) == waiting - len(in_progress)


def test_an_autodialer_connects_answered_customers_to_free_agents(
    pbx: EmulatorServer, api: Api
) -> None:
    pbx.set_call_mode("manual")
    pbx.freeze_clock()
    campaign = next(c for c in api.campaigns(type="autodialer") if c["status"] == "stop")
    set_campaign(api, campaign, status="start", concurrent_call=1)
    (call,) = dialing(pbx, campaign["campaign_uuid"])
    connected = pbx.answer(call["call_id"])
    members = {
        u["extension"]
        for u in api.data("/v3/user", limit=100)
        if set(g["group_uuid"] for g in u["groups"] or [])
        & {g["group_uuid"] for g in campaign["groups"] or []}
    }
    assert connected["extension"] in members
    # On the wire the agent shows as the calling side of the outbound call, the customer
    # as the called side; the record keeps the caller id the customer saw.
    (shown,) = [c for c in live(api) if c["call_id"] == call["call_id"]]
    assert (shown["source"], shown["destination"]) == (connected["extension"], call["destination"])
    assert call["source"] != connected["extension"]
    record = pbx.hangup(call["call_id"])["cdr"]
    assert (record["from_number"], record["to_number"]) == (call["source"], call["destination"])
    assert record["extension"] == connected["extension"]


def test_transfer_moves_the_live_call_and_its_record(pbx: EmulatorServer, api: Api) -> None:
    pbx.set_call_mode("manual")
    call = pbx.originate(direction="inbound", source="0988111222", extension="1003")
    pbx.answer(call["call_id"])
    moved = api.post(f"/v1/call/{call['call_id']}/transfer", json={"ext": "1007", "legs": "aleg"})
    assert moved.json()["status"] == "success"
    (shown,) = [c for c in live(api) if c["call_id"] == call["call_id"]]
    assert (shown["source"], shown["destination"]) == ("0988111222", "1007")
    record = pbx.hangup(call["call_id"])["cdr"]
    assert record["extension"] == "1007" and record["from_number"] == "0988111222"


def test_an_agent_is_never_on_two_live_calls(pbx: EmulatorServer, api: Api) -> None:
    pbx.set_call_mode("manual")
    first = pbx.originate(direction="inbound", source="0988111222", destination="1003")
    assert first["extension"] == "1003" and first["destination"] == "1003"
    other = pbx.originate(direction="inbound", source="0988333444")
    busy = api.post(f"/v1/call/{other['call_id']}/transfer", json={"ext": "1003", "legs": "bleg"})
    assert (busy.status_code, busy.json()) == (409, {"status": "fail", "error": "USER_BUSY"})
    with pytest.raises(RuntimeError, match="extension 1003 is already on a live call"):
        pbx.originate(direction="outbound", extension="1003")
    answered = pbx.answer(other["call_id"])
    assert answered["extension"] not in {"", "1003"}
    # The call dialled straight to 1003 is answered by 1003, whoever else is free.
    assert pbx.answer(first["call_id"])["extension"] == "1003"
    shown = [p for c in live(api) for p in (c["source"], c["destination"])]
    assert shown.count("1003") == 1 and shown.count(answered["extension"]) == 1


def test_switching_to_immediate_finishes_every_live_call(pbx: EmulatorServer, api: Api) -> None:
    pbx.set_call_mode("manual")
    calls = [pbx.originate() for _ in range(3)]
    pbx.set_call_mode("immediate")
    ids = {r["id"] for r in records(api)}
    assert {c["call_id"] for c in calls} <= ids
    assert not {c["call_id"] for c in calls} & {c["call_id"] for c in live(api)}


def test_a_blacklisted_number_is_blocked(pbx: EmulatorServer, api: Api) -> None:
    pbx.set_call_mode("immediate")
    blocked = api.data("/v1/blacklist", limit=1)[0]["phone_number"]
    campaign = api.campaigns(type="autocall")[0]
    result = api.post(
        "/v3/autocall/import",
        json={
            "campaign_uuid": campaign["campaign_uuid"],
            "phone_number": blocked,
            "param": {"name": "X"},
        },
    ).json()
    (record,) = [r for r in records(api, phone=blocked) if r["id"] == result["call_id"]]
    assert (record["status"], record["cause"]) == ("phone-block", "CALL_REJECTED")


def test_simulation_is_repeatable_after_reset(pbx: EmulatorServer, api: Api) -> None:
    def run() -> list[tuple[str, str]]:
        pbx.set_call_mode("immediate")
        outcomes = [pbx.originate(direction="outbound")["cdr"] for _ in range(8)]
        return [(r["status"], r["to_number"]) for r in outcomes]

    first = run()
    pbx.reset()
    assert run() == first
