"""Contract tests: the real client against the real emulator on a loopback port.

Every endpoint of spec section 4 is called through its one client method, and every
rule of section 7 is shown to come back as the exception a caller would branch on.
Where the client checks a rule before sending, the test also shows that the emulator,
sent the same body raw, answers with exactly the items the client predicted: the two
sides share ``callcenter.rules`` and must not drift.
"""

from __future__ import annotations

import io
import uuid
from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest

from callcenter import CallCenter, errors
from callcenter.models import (
    GroupCreate,
    GroupUpdate,
    LeadCreate,
    LeadMultiItem,
    UserUpdate,
)
from emulators.pbx.testing import EmulatorServer


def _client(pbx: EmulatorServer, api_key: str | None = None) -> CallCenter:
    return CallCenter(pbx.base_url, api_key or pbx.api_key, max_retries=2)


async def _raw(pbx: EmulatorServer, method: str, path: str, **kw: Any) -> httpx.Response:
    """Send a request straight to the emulator, bypassing the client's own checks."""
    async with httpx.AsyncClient(base_url=pbx.base_url) as http:
        token = (await http.post("/v3/auth/token", json={"api_key": pbx.api_key})).json()["token"]
        return await http.request(method, path, headers={"Authorization": f"Bearer {token}"}, **kw)


def _requests(pbx: EmulatorServer, method: str, path: str) -> int:
    return len(pbx.journal(method=method, path=path))


# --- 4.1 authentication --------------------------------------------------------------


async def test_both_token_endpoints_issue_usable_tokens(pbx: EmulatorServer) -> None:
    async with _client(pbx) as cc:
        v3 = await cc.auth.token()
        v1 = await cc.auth.token_v1()
    assert v3.token and v3.token_type == "Bearer" and v3.expired_in > 0
    assert v1.data.token and v1.data.expired > datetime.now().timestamp()
    async with httpx.AsyncClient(base_url=pbx.base_url) as http:
        for token in (v3.token, v1.data.token):
            r = await http.get("/v1/call", headers={"Authorization": f"Bearer {token}"})
            assert r.status_code == 200


async def test_wrong_api_key_is_an_authentication_error(pbx: EmulatorServer) -> None:
    async with CallCenter(pbx.base_url, "not-a-key") as cc:
        with pytest.raises(errors.AuthenticationError):
            await cc.campaigns.list()


async def test_expired_token_is_renewed_once_and_the_call_succeeds(pbx: EmulatorServer) -> None:
    async with _client(pbx) as cc:
        await cc.campaigns.list()
        pbx.advance(4 * 3600)  # past the emulator's token TTL
        page = await cc.campaigns.list()
    assert page.total > 0
    assert _requests(pbx, "POST", "/v3/auth/token") == 2


# --- 4.6 users and groups ------------------------------------------------------------


async def test_users_list_iterate_get_and_update(pbx: EmulatorServer) -> None:
    async with _client(pbx) as cc:
        page = await cc.users.list(limit=2, offset=0)
        assert page.limit == 2 and page.offset == 0 and len(page.data) <= 2
        everyone = [u async for u in cc.users.iterate(page_size=2)]
        assert len(everyone) == page.total
        one = await cc.users.get(everyone[0].user_uuid)
        assert one.username == everyone[0].username
        body = UserUpdate(
            username=one.username,
            level=one.level or "agent",
            role_uuid=one.role_uuid or str(uuid.uuid4()),
            password="s3cret-Pass",
            confirm_password="s3cret-Pass",
            email="new.address@example.com",
            enable_webrtc=True,
        )
        updated = await cc.users.update(one.user_uuid, body)
        assert updated.user_uuid == one.user_uuid
        again = await cc.users.get(one.user_uuid)
    assert again.email == "new.address@example.com"
    assert again.enable_webrtc is True


async def test_user_update_rules_match_the_service(pbx: EmulatorServer) -> None:
    async with _client(pbx) as cc:
        user = (await cc.users.list(limit=1)).data[0]
        bad = UserUpdate(
            username="bad name!",
            level="agent",
            role_uuid=user.role_uuid,
            password="",
            confirm_password="",
        )
        with pytest.raises(errors.FieldValidationError) as caught:
            await cc.users.update(user.user_uuid, bad)
    assert set(caught.value.fields) == {"username", "password"}
    assert _requests(pbx, "PUT", f"/v3/user/{user.user_uuid}") == 0
    raw = await _raw(pbx, "PUT", f"/v3/user/{user.user_uuid}", json=bad.to_wire())
    assert raw.json()["error"] == caught.value.items


async def test_groups_create_duplicate_update_and_unknown(pbx: EmulatorServer) -> None:
    async with _client(pbx) as cc:
        created = await cc.groups.create(
            GroupCreate(group_name="Night shift", group_description="x")
        )
        assert created.created and created.group_uuid
        with pytest.raises(errors.ConflictError) as dup:
            await cc.groups.create(GroupCreate(group_name="Night shift"))
        assert "exist" in dup.value.message
        updated = await cc.groups.update(
            created.group_uuid, GroupUpdate(group_name="Night shift B", group_priority=2)
        )
        assert updated.data.group_name == "Night shift B"
        with pytest.raises(errors.NotFoundError) as missing:
            await cc.groups.update(str(uuid.uuid4()), GroupUpdate(group_name="Ghost"))
        assert "not found" in missing.value.message


async def test_group_name_rule_is_checked_before_sending(pbx: EmulatorServer) -> None:
    async with _client(pbx) as cc:
        with pytest.raises(errors.FieldValidationError) as caught:
            await cc.groups.create(GroupCreate(group_name="<script>"))
    assert list(caught.value.fields) == ["group_name"]
    assert _requests(pbx, "POST", "/v3/group") == 0
    raw = await _raw(pbx, "POST", "/v3/group", json={"group_name": "<script>"})
    assert raw.json()["error"] == caught.value.items


# --- 4.7 campaigns, templates, carriers, gateways, blacklist -------------------------


async def test_campaigns_by_type_and_every_type_present(pbx: EmulatorServer) -> None:
    async with _client(pbx) as cc:
        everything = [c async for c in cc.campaigns.iterate(page_size=3)]
        types = {c.type for c in everything}
        assert types >= {"autocall", "autodialer", "inbound", "manual"}
        autocall = await cc.campaigns.list(type="autocall")
    assert autocall.data and all(c.type == "autocall" for c in autocall.data)


async def test_the_listing_is_every_page_read_for_its_columns(pbx: EmulatorServer) -> None:
    async with _client(pbx) as cc:
        whole = [c async for c in cc.campaigns.iterate(type="autocall", page_size=3)]
        listed = await cc.campaigns.list_all(type="autocall", page_size=3)
    assert len(listed) == len(whole) > 3  # more than one page
    for row, campaign in zip(listed, whole, strict=True):
        assert row.model_dump() == campaign.model_dump(include=set(type(row).model_fields))


async def test_set_status_keeps_every_other_field(pbx: EmulatorServer) -> None:
    async with _client(pbx) as cc:
        before = next(c for c in (await cc.campaigns.list(limit=50)).data if c.status == "stop")
        await cc.campaigns.set_status(before.campaign_uuid, "start")
        after = await cc.campaigns.get(before.campaign_uuid)
    assert after.status == "start"
    ignore = {"status", "updated_at", "run_id", "active"}
    b = {k: v for k, v in before.to_wire().items() if k not in ignore}
    a = {k: v for k, v in after.to_wire().items() if k not in ignore}
    assert a == b


async def test_campaign_rename_to_a_taken_name_is_refused(pbx: EmulatorServer) -> None:
    async with _client(pbx) as cc:
        first, second = (await cc.campaigns.list(limit=2)).data
        with pytest.raises(errors.ConflictError) as caught:
            await cc.campaigns.set_fields(second.campaign_uuid, campaign_name=first.campaign_name)
        unchanged = await cc.campaigns.get(second.campaign_uuid)
    assert "taken" in caught.value.message
    assert unchanged.campaign_name == second.campaign_name


async def test_templates_carriers_gateways_blacklist(pbx: EmulatorServer) -> None:
    async with _client(pbx) as cc:
        templates = await cc.templates.list()
        assert templates.data and any("{{" in t.content for t in templates.data)
        name = templates.data[0].template_name
        by_name = await cc.templates.list(template_name=name)
        assert [t.template_name for t in by_name.data] == [name]
        carriers = [c async for c in cc.carriers.iterate()]
        assert {c.dial_type for c in carriers} >= {"channel_prefix", "sip_one_for_all"}
        gateways = await cc.gateways.list()
        assert gateways.total == len(gateways.data) > 0
        blacklist = await cc.blacklist.list()
    assert blacklist.data and all(e.phone_number for e in blacklist.data)


# --- 4.4 leads and lists -------------------------------------------------------------


async def _a_list_uuid(cc: CallCenter) -> str:
    campaign = next(c for c in (await cc.campaigns.list(limit=50)).data if c.default_list_uuid)
    return campaign.default_list_uuid


async def test_lead_create_get_and_list_totals(pbx: EmulatorServer) -> None:
    async with _client(pbx) as cc:
        list_uuid = await _a_list_uuid(cc)
        before = await cc.lists.get(list_uuid)
        created = await cc.leads.create(
            LeadCreate(list_uuid=list_uuid, phone_number="0912345678", lead_name="Tran An")
        )
        assert created.created
        lead = await cc.leads.get(created.lead_uuid)
        after = await cc.lists.get(list_uuid)
    assert (lead.phone_number, lead.lead_name, lead.list_uuid) == (
        "0912345678",
        "Tran An",
        list_uuid,
    )
    assert after.total_leads == before.total_leads + 1


async def test_lead_rules_match_the_service(pbx: EmulatorServer) -> None:
    body = LeadCreate(list_uuid="short", phone_number="")
    async with _client(pbx) as cc:
        with pytest.raises(errors.FieldValidationError) as caught:
            await cc.leads.create(body)
    assert set(caught.value.fields) == {"list_uuid", "phone_number"}
    assert len(caught.value.fields["phone_number"]) == 2  # minimum length and pattern
    assert _requests(pbx, "POST", "/v3/lead") == 0
    raw = await _raw(pbx, "POST", "/v3/lead", json=body.to_wire())
    assert raw.json()["error"] == caught.value.items


async def test_multi_and_file_upload(pbx: EmulatorServer) -> None:
    async with _client(pbx) as cc:
        list_uuid = await _a_list_uuid(cc)
        before = await cc.lists.get(list_uuid)
        multi = await cc.leads.create_many(
            list_uuid,
            [
                LeadMultiItem(phone_number="0987654321", lead_name="A", after_day=1),
                LeadMultiItem(phone_number="0387654321"),
            ],
        )
        assert multi.total_insert == 2
        csv = b"phone_number,lead_name\n0911111111,B\n0922222222,C\n"
        accepted = await cc.leads.upload_file(list_uuid, io.BytesIO(csv), filename="leads.csv")
        assert accepted.msg
        after = await cc.lists.get(list_uuid)
    assert after.total_leads == before.total_leads + 4


async def test_upload_errors_are_plain_strings(pbx: EmulatorServer) -> None:
    no_list = await _raw(
        pbx, "POST", "/v3/lead/multi", json={"data": [{"phone_number": "0912345678"}]}
    )
    assert "list_uuid" in no_list.json()["error"]
    no_file = await _raw(pbx, "POST", "/v3/lead/file", data={"list_uuid": str(uuid.uuid4())})
    assert "no such file" in no_file.json()["error"]


# --- 4.5 autocall and 4.8 live calls -------------------------------------------------


async def _autocall_campaign_uuid(cc: CallCenter) -> str:
    page = await cc.campaigns.list(type="autocall")
    return page.data[0].campaign_uuid


async def test_autocall_push_places_a_live_call_that_can_be_transferred(
    pbx: EmulatorServer,
) -> None:
    pbx.set_call_mode("manual")
    async with _client(pbx) as cc:
        campaign_uuid = await _autocall_campaign_uuid(cc)
        result = await cc.autocall.push(campaign_uuid, "0912345678", {"name": "An"})
        assert result.call_id and result.lead_uuid
        live = await cc.calls.list()
        assert result.call_id in {c.call_id for c in live.data}
        agent = next(u for u in (await cc.users.list(limit=50)).data if u.extension)
        moved = await cc.calls.transfer(result.call_id, agent.extension, "bleg")
    assert (moved.status, moved.call_id, moved.ext) == ("success", result.call_id, agent.extension)


async def test_transfer_to_an_unregistered_extension_fails_with_its_code(
    pbx: EmulatorServer,
) -> None:
    pbx.set_call_mode("manual")
    call = pbx.originate()
    async with _client(pbx) as cc:
        with pytest.raises(errors.TransferFailedError) as caught:
            await cc.calls.transfer(call["call_id"], "99999", "aleg")
    assert caught.value.code == "USER_NOT_REGISTERED"


async def test_autocall_missing_members_reported_under_root(pbx: EmulatorServer) -> None:
    raw = await _raw(pbx, "POST", "/v3/autocall/import", json={"phone_number": "0912345678"})
    assert {"(root)": "campaign_uuid is required"} in raw.json()["error"]
    async with _client(pbx) as cc:
        with pytest.raises(errors.FieldValidationError) as caught:
            await cc.autocall.push("", "0912345678", {})
    assert "(root)" in caught.value.fields or "campaign_uuid" in str(caught.value.fields)


async def test_autocall_push_is_never_retried(pbx: EmulatorServer) -> None:
    pbx.fail_next("POST", "/v3/autocall/import", 503, {"error": "upstream busy"})
    async with _client(pbx) as cc:
        campaign_uuid = await _autocall_campaign_uuid(cc)
        with pytest.raises(errors.ServerError):
            await cc.autocall.push(campaign_uuid, "0912345678", {"name": "An"})
    assert _requests(pbx, "POST", "/v3/autocall/import") == 1


async def test_reads_are_retried_through_a_transient_failure(pbx: EmulatorServer) -> None:
    pbx.fail_next("GET", "/v3/campaign", 503, {"error": "try again"})
    async with _client(pbx) as cc:
        page = await cc.campaigns.list()
    assert page.total > 0
    assert _requests(pbx, "GET", "/v3/campaign") == 2


# --- 4.7 CDRs and 4.2/4.3 reports ----------------------------------------------------


async def test_cdr_paging_filters_and_the_missing_limit_quirk(pbx: EmulatorServer) -> None:
    raw = await _raw(pbx, "GET", "/v3/cdr")
    assert raw.json()["data"] in ([], None)
    async with _client(pbx) as cc:
        page = await cc.cdrs.list(limit=20)
        assert page.total > 20 and len(page.data) == 20
        outbound = await cc.cdrs.list(direction="outbound", limit=50)
        assert outbound.data and all(c.direction == "outbound" for c in outbound.data)
        phone = page.data[0].to_number or page.data[0].from_number
        by_phone = [c async for c in cc.cdrs.iterate(phone=phone, page_size=7)]
    assert by_phone and all(phone in (c.from_number, c.to_number) for c in by_phone)
    sent = pbx.journal(method="GET", path="/v3/cdr")
    assert all("limit" in e["query"] and "offset" in e["query"] for e in sent[1:])


async def test_reports_agree_with_the_call_records(pbx: EmulatorServer) -> None:
    end = datetime.now().replace(microsecond=0)
    start = end - timedelta(days=7)
    async with _client(pbx) as cc:
        records = [c async for c in cc.cdrs.iterate(start_date=start, end_date=end, page_size=500)]
        stats = await cc.reports.stats(start, end, interval="day")
        extensions = await cc.reports.extensions(start_time=start, end_time=end)
        summary = await cc.reports.extension_summary(start_time=start, end_time=end)
        by_day = await cc.reports.extension_summary_day(start_time=start, end_time=end)
        agents = await cc.reports.agent_time(start_time=start, end_time=end)
        users = await cc.reports.call_users(start_time=start, end_time=end)
    assert records
    assert sum(row.total for row in stats.data) == len(records)
    answered = sum(1 for c in records if c.status.lower() == "answered")
    assert sum(row.answered for row in stats.data) == answered
    with_ext = [c for c in records if c.extension]
    assert sum(row.total for row in extensions.data) == len(with_ext)
    assert sum(row.total_call for row in summary.data) == len(with_ext)
    assert by_day.data and all(row.reports is not None for row in by_day.data)
    assert agents.data and users.data


async def test_autodialer_statistics_filter_by_repeated_params(pbx: EmulatorServer) -> None:
    async with _client(pbx) as cc:
        dialers = [c for c in (await cc.campaigns.list(limit=50)).data if c.type == "autodialer"]
        chosen = [c.campaign_uuid for c in dialers[:2]]
        stats = await cc.reports.autodialer(interval=60 * 24, campaign_uuids=chosen)
        everything = [s async for s in cc.reports.iterate_autodialer(interval=60 * 24)]
    assert {s.campaign_uuid for s in stats.data} == set(chosen)
    assert len(everything) >= len(chosen)
    sent = pbx.journal(method="GET", path="/v3/monitor-stats/campaign/autodialer")
    assert any(e["query_string"].count("campaign_uuid=") == 2 for e in sent)


# --- isolation -----------------------------------------------------------------------


async def test_the_two_domains_never_see_each_other(pbx: EmulatorServer) -> None:
    async with _client(pbx) as one, _client(pbx, pbx.api_key_2) as two:
        first = {c.campaign_uuid for c in (await one.campaigns.list(limit=50)).data}
        second = {c.campaign_uuid for c in (await two.campaigns.list(limit=50)).data}
        calls_one = (await one.cdrs.list(limit=5)).data
    assert first and second and not first & second
    async with _client(pbx, pbx.api_key_2) as two:
        with pytest.raises(errors.NotFoundError):
            await two.leads.get(calls_one[0].lead_uuid or str(uuid.uuid4()))
