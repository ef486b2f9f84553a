"""A call's URL: parsed once per address and query, and exactly what httpx would send."""

from __future__ import annotations

from datetime import datetime

import httpx
import pytest

from callcenter._http import service_url
from tests.callcenter.fakes import FakeService, json_response, page

QUERIES = [
    None,
    (("limit", 100), ("offset", 0)),
    (("start_date", "2026-11-23 00:00:00"), ("phone", "+84 912&345"), ("limit", 50)),
    (("campaign_uuid", "a"), ("campaign_uuid", "b"), ("status", "start")),
    (("name", "Nhắc lịch hẹn HN"), ("flag", True), ("other", False), ("rate", 1.5)),
]


@pytest.mark.parametrize("params", QUERIES)
def test_the_url_is_the_one_httpx_builds_from_params(
    params: tuple[tuple[str, object], ...],
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
