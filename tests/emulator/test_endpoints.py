"""Every endpoint of spec section 4, happy path, over raw HTTP: exact paths and names,
bodies that parse as the client's wire models with every declared field present."""

from __future__ import annotations

import io
from typing import Any

import httpx
from pydantic import BaseModel

from callcenter import models as m
from emulators.pbx.testing import EmulatorServer
from tests.emulator.conftest import SPEC_ACTIVE_CALL, Api


def full(model: type[BaseModel], body: dict[str, Any]) -> BaseModel:
    """Parse ``body`` as ``model`` and insist every declared field was sent."""
    assert set(model.model_fields) <= set(body), set(model.model_fields) - set(body)
    return model.model_validate(body)


def page_of(model: type[BaseModel], body: dict[str, Any]) -> list[Any]:
    assert set(body) == {"data", "limit", "offset", "total"}
    return [full(model, item) for item in body["data"]]


def test_v3_token_says_how_long_and_v1_token_says_until_when(pbx: EmulatorServer) -> None:
    with httpx.Client(base_url=pbx.base_url) as http:
        v3 = http.post("/v3/auth/token", json={"api_key": pbx.api_key})
        v1 = http.post("/v1/auth/token", json={"api_key": pbx.api_key})
    token = full(m.TokenV3, v3.json())
    assert isinstance(token, m.TokenV3)
    assert token.token_type == "Bearer" and token.expired_in == 3600 and token.refresh_token == ""
    data = full(m.TokenV1Data, v1.json()["data"])
    assert isinstance(data, m.TokenV1Data)
    assert abs(data.expired - (pbx.now() + 3600)) < 5


def test_both_authorization_header_forms_are_accepted(pbx: EmulatorServer, api: Api) -> None:
    with httpx.Client(base_url=pbx.base_url) as http:
        plain = http.get("/v1/call", headers={"Authorization": api.token})
        bearer = http.get("/v1/call", headers={"Authorization": f"bearer {api.token}"})
    assert plain.status_code == bearer.status_code == 200


def test_users_list_get_update(api: Api) -> None:
    users = page_of(m.User, api.get("/v3/user", params={"limit": 50, "offset": 0}).json())
    assert {u.level for u in users} >= {"admin", "agent"}
    assert all(u.extension for u in users)
    assert {u.user_status for u in users} >= {"Available", "Logged Out"}
    agent = next(u for u in users if u.groups)
    one = full(m.User, api.get(f"/v3/user/{agent.user_uuid}").json())
    assert one == agent
    body = {
        "username": "agent.renamed",
        "level": "agent",
        "role_uuid": agent.role_uuid,
        "password": "Secret-1",
        "confirm_password": "Secret-1",
        "first_name": "Renamed",
        "is_create_extension": True,
        "is_active": False,
    }
    result = full(m.UserUpdated, api.put(f"/v3/user/{agent.user_uuid}", json=body).json())
    assert isinstance(result, m.UserUpdated)
    after = m.User.model_validate(api.get(f"/v3/user/{agent.user_uuid}").json())
    assert (after.username, after.first_name, after.user_enabled) == (
        "agent.renamed",
        "Renamed",
        "false",
    )
    assert after.extension != agent.extension and int(after.extension) > int(agent.extension)
    assert after.email == agent.email  # not in the body: kept


def test_groups_create_and_update_assignments(pbx: EmulatorServer, api: Api) -> None:
    created = api.post("/v3/group", json={"group_name": "Ca đêm", "group_description": "22h-6h"})
    group = full(m.GroupCreated, created.json())
    assert isinstance(group, m.GroupCreated) and group.created
    users = api.data("/v3/user", limit=3)
    campaign = api.campaigns()[0]
    updated = api.put(
        f"/v3/group/{group.group_uuid}",
        json={
            "group_name": "Ca đêm 2",
            "group_priority": 7,
            "user_assigns": [u["user_uuid"] for u in users],
            "campaign_assigns": [campaign["campaign_uuid"]],
        },
    )
    result = m.GroupUpdated.model_validate(updated.json())
    assert result.data.group_name == "Ca đêm 2" and result.data.group_weight == 7
    assert result.data.group_description == "22h-6h"
    member = m.User.model_validate(api.get(f"/v3/user/{users[0]['user_uuid']}").json())
    assert "Ca đêm 2" in {g.group_name for g in member.groups or []}
    stored = next(g for g in pbx.state("groups") if g["group_uuid"] == group.group_uuid)
    assert stored["campaigns"] == [campaign["campaign_uuid"]]


def test_campaigns_cover_every_type_in_every_status(api: Api) -> None:
    campaigns = page_of(m.Campaign, api.get("/v3/campaign", params={"limit": 1000}).json())
    assert len(campaigns) >= 50
    seen = {(c.type, c.status) for c in campaigns}
    assert seen >= {
        (t, s)
        for t in ("autocall", "autodialer", "inbound", "manual")
        for s in ("start", "pause", "stop")
    }
    assert {c.mode_call for c in campaigns} == {"direct", "serial", "parralel"}
    autocall = api.data("/v3/campaign", type="autocall", limit=100)
    assert autocall and all(c["type"] == "autocall" for c in autocall)
    first = api.get("/v3/campaign", params={"limit": 5, "offset": 5}).json()
    assert (first["limit"], first["offset"], len(first["data"])) == (5, 5, 5)
    assert first["data"][0]["campaign_uuid"] == campaigns[5].campaign_uuid


def test_campaign_update_replaces_the_campaign(api: Api) -> None:
    campaign = next(c for c in api.campaigns() if c["status"] == "pause")
    body = {**campaign, "status": "stop", "concurrent_call": 9, "description": "updated"}
    response = api.put(f"/v3/campaign/{campaign['campaign_uuid']}", json=body)
    assert response.json() == {"campaign_uuid": campaign["campaign_uuid"]}
    after = next(c for c in api.campaigns() if c["campaign_uuid"] == campaign["campaign_uuid"])
    assert (after["status"], after["concurrent_call"], after["description"]) == (
        "stop",
        9,
        "updated",
    )
    assert after["run_id"] == "" and after["created_at"] == campaign["created_at"]
    assert after["updated_at"] != campaign["updated_at"]


def test_partial_campaign_body_resets_what_it_leaves_out(api: Api) -> None:
    campaign = next(c for c in api.campaigns() if c["type"] == "autodialer")
    partial = {"campaign_name": campaign["campaign_name"], "type": "autodialer", "status": "pause"}
    assert api.put(f"/v3/campaign/{campaign['campaign_uuid']}", json=partial).status_code == 200
    after = next(c for c in api.campaigns() if c["campaign_uuid"] == campaign["campaign_uuid"])
    assert after["status"] == "pause"
    assert (after["concurrent_call"], after["carrier_uuid"], after["schedules"]) == (0, "", None)
    assert after["recall_status"] is None and after["network"] is None


def test_templates_carriers_gateways_blacklist(api: Api) -> None:
    templates = page_of(m.Template, api.get("/v3/template", params={"limit": 50}).json())
    tts = [t for t in templates if t.voice_type == "tts"]
    audio = [t for t in templates if t.voice_type == "audio_file"]
    assert tts and audio and all("{{" in t.content and t.press_options for t in tts)
    assert all(t.audio_file for t in audio)
    found = api.data("/v3/template", template_name="nhắc THANH", limit=10)
    assert [t["template_name"] for t in found] == ["Nhắc thanh toán"]
    carriers = page_of(m.Carrier, api.get("/v3/carrier", params={"limit": 10}).json())
    assert {c.dial_type for c in carriers} == {"channel_prefix", "sip_one_for_all"}
    prefix = next(c for c in carriers if c.dial_type == "channel_prefix")
    assert prefix.data is not None and prefix.data.prefix_operator_a
    gateways = page_of(m.Gateway, api.get("/v3/gateway").json())
    assert {g.gateway_uuid for g in gateways} >= {c.gateway_uuid for c in carriers}
    blacklist = page_of(m.BlacklistEntry, api.get("/v1/blacklist", params={"limit": 5}).json())
    assert len(blacklist) == 5


def test_leads_single_multi_file_and_list_totals(api: Api) -> None:
    list_uuid = next(c["default_list_uuid"] for c in api.campaigns() if c["default_list_uuid"])
    before = full(m.LeadList, api.get(f"/v3/list/{list_uuid}").json())
    assert isinstance(before, m.LeadList) and before.total_leads > 0
    one = api.post(
        "/v3/lead",
        json={
            "list_uuid": list_uuid,
            "phone_number": "0987654321",
            "lead_name": "Trần Thị Mai",
            "additional": '{"amount": "500000"}',
            "unknown_member": "ignored",
        },
    ).json()
    created = full(m.LeadCreated, one)
    assert isinstance(created, m.LeadCreated) and created.created
    lead = full(m.Lead, api.get(f"/v3/lead/{created.lead_uuid}").json())
    assert isinstance(lead, m.Lead)
    assert (lead.status, lead.alt_status, lead.network) == ("NEW", "new", "operator_a")
    assert lead.campaign_uuid and lead.list_name == before.list_name
    multi = api.post(
        "/v3/lead/multi",
        json={
            "list_uuid": list_uuid,
            "data": [
                {"phone_number": "0912345678", "after_day": 2},
                {"phone_number": "0356781234"},
            ],
        },
    ).json()
    assert full(m.LeadMultiResult, multi) == m.LeadMultiResult(
        message=multi["message"], total_insert=2
    )
    csv = "phone_number,lead_name,contract_number\n0901234567,An,HD1\nnot-a-phone,Bad,HD2\n"
    upload = api.post(
        "/v3/lead/file",
        data={"list_uuid": list_uuid},
        files={"file": ("leads.csv", io.BytesIO(csv.encode()), "text/csv")},
    )
    assert upload.status_code == 200 and full(m.LeadFileAccepted, upload.json())
    after = m.LeadList.model_validate(api.get(f"/v3/list/{list_uuid}").json())
    assert after.total_leads == before.total_leads + 4
    assert (after.total_upload, after.total_success, after.total_fail) == (
        before.total_upload + 2,
        before.total_success + 1,
        before.total_fail + 1,
    )


def test_autocall_import_returns_a_call_and_a_lead(pbx: EmulatorServer, api: Api) -> None:
    campaign = api.campaigns(type="autocall")[0]
    response = api.post(
        "/v3/autocall/import",
        json={
            "campaign_uuid": campaign["campaign_uuid"],
            "phone_number": "0912345678",
            "param": {"name": "An"},
        },
    )
    result = full(m.AutocallResult, response.json())
    assert isinstance(result, m.AutocallResult) and result.call_id and result.message
    lead = m.Lead.model_validate(api.get(f"/v3/lead/{result.lead_uuid}").json())
    assert lead.list_uuid == campaign["default_list_uuid"] and lead.status == "CALLING"


def test_live_calls_and_transfer(pbx: EmulatorServer, api: Api) -> None:
    pbx.set_call_mode("manual")
    call = pbx.originate()
    live = api.get("/v1/call").json()
    assert set(live) == {"data", "total"} and live["total"] == len(live["data"]) >= 1
    listed = next(c for c in live["data"] if c["call_id"] == call["call_id"])
    full(m.ActiveCall, listed)
    assert set(listed) == SPEC_ACTIVE_CALL
    assert listed["state"] == "CS_EXECUTE" and listed["direction"] == "inbound"
    agent = api.data("/v3/user", limit=50)[3]
    moved = api.post(
        f"/v1/call/{call['call_id']}/transfer", json={"ext": agent["extension"], "legs": "bleg"}
    )
    assert moved.json() == {
        "status": "success",
        "call_id": call["call_id"],
        "ext": agent["extension"],
    }
    now = next(c for c in api.get("/v1/call").json()["data"] if c["call_id"] == call["call_id"])
    assert set(now) == SPEC_ACTIVE_CALL
    assert now["destination"] == agent["extension"] and now["source"] == listed["source"]


def test_cdr_listing_paging_and_filters(api: Api) -> None:
    first = api.get("/v3/cdr", params={"limit": 50, "offset": 0}).json()
    records = page_of(m.Cdr, first)
    assert len(records) == 50 and first["total"] > 2000
    starts = [r.time_started for r in records]
    assert starts == sorted(starts, reverse=True)
    second = api.data("/v3/cdr", limit=50, offset=50)
    assert not {r.id for r in records} & {r["id"] for r in second}
    assert {r.status for r in records} >= {"answered"}
    for name, value, field in (
        ("direction", "inbound", "direction"),
        ("extension", "1003", "extension"),
        ("hotline", "19006868", "receive_dest"),
        ("status", "ANSWERED", "status"),
        ("status", "NO_ANSWERED", "status"),
    ):
        found = api.data("/v3/cdr", limit=200, offset=0, **{name: value})
        expected = value.lower().replace("_", "-") if name == "status" else value
        assert found and all(r[field] == expected for r in found), name
    campaign_cdr = next(r for r in api.data("/v3/cdr", limit=500, offset=0) if r["campaign_uuid"])
    by_campaign = api.data(
        "/v3/cdr", campaign_uuid=campaign_cdr["campaign_uuid"], limit=500, offset=0
    )
    assert by_campaign and {r["campaign_uuid"] for r in by_campaign} == {
        campaign_cdr["campaign_uuid"]
    }
    day = records[0].time_started[:10]
    on_day = api.data("/v3/cdr", start_date=day, end_date=day, limit=1000, offset=0)
    assert on_day and all(r["time_started"][:10] == day for r in on_day)
    ended = api.data(
        "/v3/cdr",
        start_date_ended=f"{day} 00:00:00",
        end_date_ended=f"{day} 23:59:59",
        limit=1000,
        offset=0,
    )
    assert ended and all(r["time_ended"][:10] == day for r in ended)


def test_cdr_listing_without_limit_and_offset_returns_no_data(api: Api) -> None:
    body = api.get("/v3/cdr").json()
    assert body["data"] == [] and body["limit"] == -1 and body["offset"] == -1
    assert body["total"] == api.get("/v3/cdr", params={"limit": 1, "offset": 0}).json()["total"]


def test_reports_and_statistics_shapes(api: Api) -> None:
    window = {"start_time": "2000-01-01 00:00:00", "end_time": "2100-01-01 00:00:00"}
    users = api.get("/v3/report/call/user", params=window).json()
    assert [full(m.ReportUser, u) for u in users["data"]]
    extension = api.get("/v2/report/extension", params=window).json()
    assert (extension["code"], extension["content"]) == (200, "success")
    assert [full(m.ExtensionCounters, row) for row in extension["data"]]
    summary = api.get("/v2/report/extension/summary", params=window).json()["data"]
    assert [full(m.ExtensionSummary, row) for row in summary]
    by_day = api.get("/v2/report/extension/summary/day", params=window).json()["data"]
    rows = [full(m.ExtensionSummaryDay, row) for row in by_day]
    assert any(isinstance(r, m.ExtensionSummaryDay) and len(r.reports) >= 20 for r in rows)
    agents = api.get("/v2/report/agent/time", params=window).json()["data"]
    assert [full(m.AgentTime, row) for row in agents]
    stats = api.get(
        "/v2/stats",
        params={"start_date": "2000-01-01 00:00:00", "end_date": "2000-01-03 23:00:00"},
    ).json()["data"]
    assert [full(m.StatsRow, row) for row in stats] and len(stats) == 3
    dialer = api.get(
        "/v3/monitor-stats/campaign/autodialer", params={"interval": 60 * 24 * 31}
    ).json()
    assert dialer["limit"] == 10 and dialer["offset"] == 0
    items = page_of(m.AutodialerStats, dialer)
    assert items and {i.status for i in items} >= {"running", "pause", "stop"}


def test_openapi_describes_every_endpoint_with_the_wire_models(pbx: EmulatorServer) -> None:
    doc = httpx.get(f"{pbx.base_url}/openapi.json").json()
    operations = {(method.upper(), path) for path, ops in doc["paths"].items() for method in ops}
    assert operations == {
        ("POST", "/v3/auth/token"),
        ("POST", "/v1/auth/token"),
        ("GET", "/v3/report/call/user"),
        ("GET", "/v2/report/extension"),
        ("GET", "/v2/report/extension/summary"),
        ("GET", "/v2/report/extension/summary/day"),
        ("GET", "/v2/report/agent/time"),
        ("GET", "/v2/stats"),
        ("GET", "/v3/monitor-stats/campaign/autodialer"),
        ("POST", "/v3/lead"),
        ("POST", "/v3/lead/file"),
        ("POST", "/v3/lead/multi"),
        ("GET", "/v3/lead/{lead_uuid}"),
        ("GET", "/v3/list/{list_uuid}"),
        ("POST", "/v3/autocall/import"),
        ("GET", "/v3/user"),
        ("GET", "/v3/user/{user_uuid}"),
        ("PUT", "/v3/user/{user_uuid}"),
        ("POST", "/v3/group"),
        ("PUT", "/v3/group/{group_uuid}"),
        ("GET", "/v3/campaign"),
        ("PUT", "/v3/campaign/{campaign_uuid}"),
        ("GET", "/v3/template"),
        ("GET", "/v3/carrier"),
        ("GET", "/v3/gateway"),
        ("GET", "/v1/blacklist"),
        ("GET", "/v3/cdr"),
        ("GET", "/v1/call"),
        ("POST", "/v1/call/{call_id}/transfer"),
    }
    schemas = doc["components"]["schemas"]
    assert {"Campaign", "CampaignUpdate", "LeadCreate", "AutocallImport", "Cdr"} <= set(schemas)
    assert "time_ringging" in schemas["Cdr"]["properties"]
    put = doc["paths"]["/v3/campaign/{campaign_uuid}"]["put"]
    ref = put["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    assert ref == "#/components/schemas/CampaignUpdate"


def test_a_fresh_server_accepts_requests_as_soon_as_it_is_started() -> None:
    """Starting returns only once the server answers: the first request needs no retry."""
    with EmulatorServer(seed=7) as server:
        status = httpx.post(
            f"{server.base_url}/v3/auth/token", json={"api_key": server.api_key}
        ).status_code
    assert status == 200
