"""set_status / set_fields: read from the listing, send the full body back."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from pydantic import ValidationError

from callcenter import errors
from tests.callcenter.fakes import FakeService, json_response, page, sent_json

TARGET: dict[str, Any] = {
    "domain_uuid": "d-1",
    "campaign_uuid": "camp-target",
    "campaign_name": "Renewal reminders",
    "type": "autocall",
    "type_autocall": "autocall_voice_tts",
    "description": "May batch",
    "active": True,
    "concurrent_call": 12,
    "ratio": 3,
    "carrier_uuid": "car-1",
    "carrier_name": "Main",
    "template_uuid": "tpl-1",
    "template_name": "Reminder",
    "recall_times": 2,
    "limit_recall_duration": 30,
    "schedule_recall": "after",
    "schedule_recall_duration": 15,
    "priority_recall": "recall",
    "recall_status": ["busy", "no-answered"],
    "hopper": 40,
    "callback_url": "https://hooks.example/cdr",
    "local_start_time": "08:00:00",
    "local_end_time": "20:00:00",
    "allow_manual_dial": False,
    "enable_encrypt": True,
    "status": "pause",
    "mode_call": "parralel",
    "network": {"operator_a": 4, "operator_b": 3, "operator_c": 0, "operator_d": 1, "offnet": 2},
    "run_id": "run-9",
    "call_timeout": 45,
    "users": None,
    "schedules": [{"monday_start_time": 28_800_000_000_000, "monday_end_time": 72_000_000_000_000}],
    "created_at": "2024-04-01T08:00:00+07:00",
    "updated_at": "2024-05-01T09:30:00.123456+07:00",
    # fields the spec does not list must survive the round trip untouched
    "x_vendor_flag": {"nested": [1, 2, {"deep": True}]},
    "future_counter": 7,
}


def campaign(n: int) -> dict[str, Any]:
    return {"campaign_uuid": f"camp-{n}", "campaign_name": f"C{n}", "type": "manual"}


def campaign_service() -> FakeService:
    """Three pages of campaigns with the target on the last one."""
    service = FakeService()
    everything = [campaign(n) for n in range(150)] + [TARGET]

    def listing(request: httpx.Request) -> httpx.Response:
        limit = int(request.url.params["limit"])
        offset = int(request.url.params["offset"])
        return json_response(
            200, page(everything[offset : offset + limit], limit, offset, len(everything))
        )

    service.route("GET", "/v3/campaign", listing)
    service.route(
        "PUT",
        "/v3/campaign/camp-target",
        lambda r: json_response(200, {"campaign_uuid": "camp-target"}),
    )
    return service


async def test_set_status_sends_every_field_back_with_only_status_changed() -> None:
    service = campaign_service()
    async with service.client() as cc:
        sent = await cc.campaigns.set_status("camp-target", "start")
    (put,) = service.calls("PUT", "/v3/campaign/camp-target")
    assert sent_json(put) == {**TARGET, "status": "start"}
    assert sent.status == "start"
    assert sent.model_dump(mode="json", exclude_unset=True) == {**TARGET, "status": "start"}


async def test_set_fields_changes_the_callback_url_only() -> None:
    service = campaign_service()
    async with service.client() as cc:
        await cc.campaigns.set_fields(
            "camp-target", callback_url="http://127.0.0.1:3000/callbacks/t"
        )
    (put,) = service.calls("PUT", "/v3/campaign/camp-target")
    assert sent_json(put) == {**TARGET, "callback_url": "http://127.0.0.1:3000/callbacks/t"}


async def test_get_walks_the_listing_and_reports_absence() -> None:
    service = campaign_service()
    async with service.client() as cc:
        found = await cc.campaigns.get("camp-target")
        assert found.model_extra == {"x_vendor_flag": TARGET["x_vendor_flag"], "future_counter": 7}
        with pytest.raises(errors.NotFoundError):
            await cc.campaigns.set_status("camp-missing", "stop")
    assert service.calls("PUT", "/v3/campaign/camp-missing") == []


async def test_bad_status_is_refused_before_any_request() -> None:
    service = campaign_service()
    async with service.client() as cc:
        with pytest.raises(ValueError):
            await cc.campaigns.set_status("camp-target", "running")
    assert service.requests == []


async def test_duplicate_name_on_update_is_a_conflict() -> None:
    service = campaign_service()
    service.route(
        "PUT",
        "/v3/campaign/camp-target",
        lambda r: json_response(400, {"error": "campaign_name is already taken"}),
    )
    async with service.client() as cc:
        with pytest.raises(errors.ConflictError):
            await cc.campaigns.set_fields("camp-target", campaign_name="C1")


async def test_campaign_type_filter_is_sent() -> None:
    service = campaign_service()
    async with service.client() as cc:
        await cc.campaigns.list(type="autocall", limit=10)
        with pytest.raises(ValueError):
            await cc.campaigns.list(type="robocall")
    (request,) = service.calls("GET", "/v3/campaign")
    assert request.url.params.multi_items() == [
        ("type", "autocall"),
        ("limit", "10"),
        ("offset", "0"),
    ]


def listing_service(answer: httpx.Response) -> FakeService:
    service = FakeService()
    service.route("GET", "/v3/campaign", lambda r: answer)
    return service


async def test_the_whole_listing_reads_a_number_sent_as_text() -> None:
    row = {**campaign(1), "concurrent_call": "12"}
    service = listing_service(json_response(200, page([row], 100, 0, 1)))
    async with service.client() as cc:
        [listed] = await cc.campaigns.list_all()
    assert listed.concurrent_call == 12


async def test_a_campaign_named_error_is_still_listed() -> None:
    row = {**campaign(1), "campaign_name": "error", "status": "fail"}
    service = listing_service(json_response(200, page([row], 100, 0, 1)))
    async with service.client() as cc:
        [listed] = await cc.campaigns.list_all()
    assert (listed.campaign_name, listed.status) == ("error", "fail")


async def test_the_same_listing_is_read_once_and_a_changed_one_again() -> None:
    rows = [campaign(1), campaign(2)]
    service = FakeService()
    service.route("GET", "/v3/campaign", lambda r: json_response(200, page(rows, 100, 0, 2)))
    async with service.client() as cc:
        first = await cc.campaigns.list_all()
        again = await cc.campaigns.list_all()
        rows[1] = {**campaign(2), "status": "start"}
        changed = await cc.campaigns.list_all()
    assert all(a is b for a, b in zip(first, again, strict=True))  # one read, shared
    assert again is not first  # each caller has its own list to sort
    assert changed[0] is not first[0]  # other bytes: the answer is read again
    assert (changed[1].campaign_uuid, changed[1].status) == ("camp-2", "start")
    with pytest.raises(ValidationError):
        first[0].status = "start"  # type: ignore[misc]  # a shared row cannot change


@pytest.mark.parametrize(
    ("body", "raised"),
    [
        ({"error": "quota exhausted"}, errors.ServiceError),  # said with a 200
        ({"error": [{"limit": "must be at most 100"}]}, errors.FieldValidationError),
        ({"data": [{"campaign_uuid": "c-1"}], "total": 1}, errors.UnexpectedResponseError),
        ({"data": "nothing", "total": 0}, errors.UnexpectedResponseError),
    ],
)
async def test_a_listing_answer_that_is_no_listing_is_an_error(
    body: dict[str, Any], raised: type[Exception]
) -> None:
    service = listing_service(json_response(200, body))
    async with service.client(max_retries=0) as cc:
        with pytest.raises(raised):
            await cc.campaigns.list_all()
