"""Paging: list returns one page, iterate walks them all; CDR paging always explicit."""

from __future__ import annotations

from datetime import date, datetime

import httpx
import pytest

from callcenter.paging import collect, walk
from tests.callcenter.fakes import FakeService, json_response, page, user


def paged_users(total: int, cap: int | None = None) -> FakeService:
    """A service holding ``total`` users, optionally capping ``limit`` at ``cap``."""
    service = FakeService()

    def handler(request: httpx.Request) -> httpx.Response:
        limit = int(request.url.params["limit"])
        offset = int(request.url.params["offset"])
        if cap is not None:
            limit = min(limit, cap)
        items = [user(n) for n in range(offset, min(offset + limit, total))]
        return json_response(200, page(items, limit, offset, total))

    service.route("GET", "/v3/user", handler)
    return service


def offsets(service: FakeService, path: str) -> list[tuple[str, str]]:
    return [(r.url.params["limit"], r.url.params["offset"]) for r in service.calls("GET", path)]


async def test_list_returns_one_page_with_its_envelope() -> None:
    service = paged_users(120)
    async with service.client() as cc:
        first = await cc.users.list(limit=50, offset=100)
    assert (first.limit, first.offset, first.total, len(first.data)) == (50, 100, 120, 20)


async def test_iterate_walks_every_page_once() -> None:
    service = paged_users(120)
    async with service.client() as cc:
        seen = [u.user_uuid async for u in cc.users.iterate(page_size=50)]
    assert seen == [f"user-{n:04d}" for n in range(120)]
    assert offsets(service, "/v3/user") == [("50", "0"), ("50", "50"), ("50", "100")]


async def test_iterate_stops_at_total_without_an_extra_request() -> None:
    service = paged_users(100)
    async with service.client() as cc:
        seen = [u async for u in cc.users.iterate(page_size=50)]
    assert len(seen) == 100
    assert len(service.calls("GET", "/v3/user")) == 2


async def test_iterate_follows_a_server_side_cap_on_limit() -> None:
    service = paged_users(250, cap=100)
    async with service.client() as cc:
        seen = [u async for u in cc.users.iterate(page_size=500)]
    assert len(seen) == 250
    assert [o for _, o in offsets(service, "/v3/user")] == ["0", "100", "200"]


async def test_iterate_stops_on_an_empty_page_even_if_total_says_more() -> None:
    service = FakeService()
    responses = [page([user(0), user(1)], 2, 0, 10), page([], 2, 2, 10)]
    service.route("GET", "/v3/user", lambda r: json_response(200, responses.pop(0)))
    async with service.client() as cc:
        seen = [u async for u in cc.users.iterate(page_size=2)]
    assert len(seen) == 2
    assert len(service.calls("GET", "/v3/user")) == 2


@pytest.mark.parametrize(
    ("total", "cap", "size"), [(120, None, 50), (100, None, 50), (250, 100, 500)]
)
async def test_collect_reads_the_pages_walk_reads_into_one_list(
    total: int, cap: int | None, size: int
) -> None:
    walked, collected = paged_users(total, cap), paged_users(total, cap)
    async with walked.client() as a, collected.client() as b:
        by_walk = [u async for u in walk(lambda lim, off: a.users.list(lim, off), size)]
        by_collect = await collect(lambda lim, off: b.users.list(lim, off), size)
    assert by_collect == by_walk
    assert [u.user_uuid for u in by_collect] == [f"user-{n:04d}" for n in range(total)]
    assert offsets(collected, "/v3/user") == offsets(walked, "/v3/user")


def cdr(n: int) -> dict[str, object]:
    return {"id": f"cdr-{n}", "time_ringging": "2024-05-01 10:00:00", "duration": n}


async def test_cdr_list_always_sends_limit_and_offset_and_formats_dates() -> None:
    service = FakeService()
    service.route("GET", "/v3/cdr", lambda r: json_response(200, page([cdr(1)], 50, 0, 1)))
    async with service.client() as cc:
        await cc.cdrs.list()
        await cc.cdrs.list(
            start_date=date(2024, 5, 1),
            end_date=datetime(2024, 5, 2, 18, 30, 5),
            end_date_ended="2024-05-03",
            direction="inbound",
            phone="0912345678",
        )
    bare, filtered = service.calls("GET", "/v3/cdr")
    assert dict(bare.url.params) == {"limit": "50", "offset": "0"}
    assert dict(filtered.url.params) == {
        "start_date": "2024-05-01",
        "end_date": "2024-05-02 18:30:05",
        "end_date_ended": "2024-05-03",
        "phone": "0912345678",
        "direction": "inbound",
        "limit": "50",
        "offset": "0",
    }


async def test_cdr_iterate_sends_limit_and_offset_on_every_page() -> None:
    service = FakeService()
    total = 1200

    def handler(request: httpx.Request) -> httpx.Response:
        limit = int(request.url.params["limit"])
        offset = int(request.url.params["offset"])
        items = [cdr(n) for n in range(offset, min(offset + limit, total))]
        return json_response(200, page(items, limit, offset, total))

    service.route("GET", "/v3/cdr", handler)
    async with service.client() as cc:
        count = 0
        async for record in cc.cdrs.iterate(status="ANSWERED"):
            assert record.time_ringging == "2024-05-01 10:00:00"
            count += 1
    assert count == total
    requests = service.calls("GET", "/v3/cdr")
    assert [(r.url.params["limit"], r.url.params["offset"]) for r in requests] == [
        ("500", "0"),
        ("500", "500"),
        ("500", "1000"),
    ]
    assert all(r.url.params["status"] == "ANSWERED" for r in requests)


async def test_autodialer_statistics_repeat_filter_parameters() -> None:
    service = FakeService()
    service.route(
        "GET",
        "/v3/monitor-stats/campaign/autodialer",
        lambda r: json_response(200, page([{"campaign_uuid": "a"}], 10, 0, 1)),
    )
    async with service.client() as cc:
        result = await cc.reports.autodialer(
            15, campaign_uuids=["a", "b"], statuses=["start", "pause"]
        )
        walked = [s async for s in cc.reports.iterate_autodialer(15, campaign_uuids=["a"])]
    assert result.data[0].campaign_uuid == "a" and len(walked) == 1
    first, second = service.calls("GET", "/v3/monitor-stats/campaign/autodialer")
    assert first.url.params.multi_items() == [
        ("interval", "15"),
        ("campaign_uuid", "a"),
        ("campaign_uuid", "b"),
        ("status", "start"),
        ("status", "pause"),
        ("limit", "10"),
        ("offset", "0"),
    ]
    assert second.url.params.get_list("campaign_uuid") == ["a"]


async def test_report_windows_use_the_service_format() -> None:
    service = FakeService()
    service.route("GET", "/v2/stats", lambda r: json_response(200, {"data": []}))
    service.route("GET", "/v2/report/agent/time", lambda r: json_response(200, {"data": []}))
    async with service.client() as cc:
        await cc.reports.stats(date(2024, 5, 1), date(2024, 5, 1), interval="hour")
        await cc.reports.agent_time(start_time="2024-05-01 08:00:00")
    stats = service.calls("GET", "/v2/stats")[0]
    assert stats.url.params.multi_items() == [
        ("start_date", "2024-05-01 00:00:00"),
        ("end_date", "2024-05-01 23:59:59"),
        ("interval", "hour"),
    ]
    agent = service.calls("GET", "/v2/report/agent/time")[0]
    assert agent.url.params.multi_items() == [("start_time", "2024-05-01 08:00:00")]
    assert "start_time=2024-05-01+08%3A00%3A00" in str(agent.url)


async def test_bad_arguments_fail_before_any_request() -> None:
    service = FakeService()
    async with service.client() as cc:
        with pytest.raises(ValueError):
            await cc.cdrs.list(start_date="01/05/2024")
        with pytest.raises(ValueError):
            await cc.reports.stats("2024-05-01", "2024-05-02", interval="year")
        with pytest.raises(ValueError):
            await cc.users.list(offset=-1)
    assert service.requests == []
