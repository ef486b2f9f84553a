"""A call's URL: parsed once per address and query, and exactly what httpx would send."""

from __future__ import annotations

import io
from datetime import datetime

import httpx
import pytest

from callcenter import CallCenter
from callcenter._http import service_url
from callcenter.models import GroupCreate
from tests.callcenter.fakes import API_KEY, BASE_URL, FakeService, json_response, page

LIST_UUID = "0b6f8f4e-1a2b-4c3d-9e8f-123456789abc"

Params = tuple[tuple[str, str | int | float | bool], ...]
QUERIES: list[Params | None] = [
    None,
    (("limit", 100), ("offset", 0)),
    (("start_date", "2026-11-23 00:00:00"), ("phone", "+84 912&345"), ("limit", 50)),
    (("campaign_uuid", "a"), ("campaign_uuid", "b"), ("status", "start")),
    (("name", "Nhắc lịch hẹn HN"), ("flag", True), ("other", False), ("rate", 1.5)),
]


@pytest.mark.parametrize("params", QUERIES)
def test_the_url_is_the_one_httpx_builds_from_params(
    params: Params | None,
) -> None:
    address = "https://pbx.example.test:8443/v3/cdr"
    built = httpx.AsyncClient().build_request("GET", address, params=params).url
    assert service_url(address, params) == built
    assert str(service_url(address, params)) == str(built)


async def test_a_listing_reaches_the_service_with_its_query_intact() -> None:
    service = FakeService()
    service.route("GET", "/v3/cdr", lambda request: json_response(200, page([], 10, 0, 0)))
    moment = datetime(2026, 11, 23, 8, 30)
    async with service.client() as cc:
        for _ in range(2):  # the second call takes the URL parsed for the first
            await cc.cdrs.list(start_date=moment, end_date=moment, phone="+84 912", limit=10)
    first, second = service.calls("GET", "/v3/cdr")
    assert first.url == second.url
    assert first.url.params["phone"] == "+84 912"
    assert first.url.params["start_date"] == "2026-11-23 08:30:00"
    assert (first.url.params["limit"], first.url.params["offset"]) == ("10", "0")


async def test_a_client_built_on_a_transport_sends_what_a_client_handed_in_would() -> None:
    """Built on a transport or handed an httpx client, every request goes through
    ``AsyncClient.request``: the service sees the same requests either way."""
    service = FakeService()
    service.route("GET", "/v3/campaign", lambda request: json_response(200, page([], 50, 0, 0)))
    service.route("POST", "/v3/group", lambda r: json_response(200, {"created": True}))
    service.route("POST", "/v3/lead/file", lambda r: json_response(200, {"msg": "ok"}))

    async def exercise(cc: CallCenter) -> None:
        await cc.campaigns.list(type="autocall", limit=50)
        await cc.groups.create(GroupCreate(group_name="Night shift"))
        await cc.leads.upload_file(LIST_UUID, io.BytesIO(b"phone_number\n0912345678\n"), "a.csv")

    async with service.client() as cc:
        await exercise(cc)
    by_transport = list(service.requests)
    service.requests.clear()
    client = httpx.AsyncClient(transport=httpx.MockTransport(service.handle))
    async with client, CallCenter(BASE_URL, API_KEY, http_client=client) as cc:
        await exercise(cc)
    by_client = list(service.requests)

    def seen(request: httpx.Request) -> tuple[object, ...]:
        body = request.content
        boundary = request.headers.get("content-type", "").partition("boundary=")[2]
        if boundary:  # each multipart body has a boundary of its own
            body = body.replace(boundary.encode(), b"BOUNDARY")
        headers = dict(request.headers.items())
        if boundary:
            headers["content-type"] = headers["content-type"].replace(boundary, "BOUNDARY")
        if "authorization" in headers:  # each login gets a token of its own
            headers["authorization"] = headers["authorization"].partition("tok-")[0]
        return request.method, str(request.url), headers, body, bool(boundary)

    assert [seen(r) for r in by_transport] == [seen(r) for r in by_client]
    assert [r.url.path for r in by_transport] == [
        "/v3/auth/token",
        "/v3/campaign",
        "/v3/group",
        "/v3/lead/file",
    ]
    assert all("gzip" in r.headers["accept-encoding"] for r in by_transport)
