"""The retry policy: reads retried with backoff, effectful writes never re-sent."""

from __future__ import annotations

import io
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from callcenter import CallCenter, errors
from callcenter.models import (
    CampaignUpdate,
    GroupCreate,
    GroupUpdate,
    LeadCreate,
    LeadMultiItem,
    UserUpdate,
)
from tests.callcenter.fakes import FakeService, Sleeps, json_response, page, user

LIST_UUID = "l" * 36
CAMPAIGN = {"campaign_uuid": "c1", "campaign_name": "Promo", "type": "autocall"}


def flaky(failures: list[Any], success: httpx.Response) -> Callable[[httpx.Request], Any]:
    """Answer with each failure in turn (a Response, or an exception to raise), then succeed."""
    pending = list(failures)

    def handler(request: httpx.Request) -> httpx.Response:
        if pending:
            failure = pending.pop(0)
            if isinstance(failure, Exception):
                raise failure
            response: httpx.Response = failure
            return response
        return success

    return handler


def users_page() -> httpx.Response:
    return json_response(200, page([user(1)], 50, 0, 1))


async def test_read_retried_on_5xx_with_backoff() -> None:
    service = FakeService()
    service.route(
        "GET",
        "/v3/user",
        flaky([json_response(503, {"error": "busy"}), json_response(500, None)], users_page()),
    )
    sleeps = Sleeps()
    async with service.client(sleep=sleeps) as cc:
        result = await cc.users.list()
    assert [u.user_uuid for u in result.data] == ["user-0001"]
    assert len(service.calls("GET", "/v3/user")) == 3
    assert len(sleeps.delays) == 2
    assert 0 <= sleeps.delays[0] <= 0.5 and 0 <= sleeps.delays[1] <= 1.0


async def test_read_retried_on_429_honouring_retry_after() -> None:
    service = FakeService()
    limited = json_response(429, {"error": "slow down"}, headers={"Retry-After": "7"})
    service.route("GET", "/v3/user", flaky([limited], users_page()))
    sleeps = Sleeps()
    async with service.client(sleep=sleeps) as cc:
        await cc.users.list()
    assert sleeps.delays == [7.0]


async def test_too_long_retry_after_is_raised_not_sat_out() -> None:
    service = FakeService()
    limited = json_response(429, {"error": "slow down"}, headers={"Retry-After": "3600"})
    service.route("GET", "/v3/user", flaky([limited], users_page()))
    sleeps = Sleeps()
    async with service.client(sleep=sleeps) as cc:
        with pytest.raises(errors.RateLimitError) as caught:
            await cc.users.list()
    assert caught.value.retry_after == 3600
    assert sleeps.delays == []


@pytest.mark.parametrize(
    "failure",
    [
        httpx.ConnectError("refused"),
        httpx.ReadTimeout("slow"),
        httpx.ReadError("reset"),
        httpx.RemoteProtocolError("closed"),
    ],
    ids=lambda e: type(e).__name__,
)
async def test_read_retried_on_transport_failure(failure: Exception) -> None:
    service = FakeService()
    service.route("GET", "/v3/user", flaky([failure], users_page()))
    async with service.client() as cc:
        await cc.users.list()
    assert len(service.calls("GET", "/v3/user")) == 2


async def test_read_gives_up_after_max_retries() -> None:
    service = FakeService()
    service.route("GET", "/v3/user", lambda r: json_response(502, {"error": "bad gateway"}))
    sleeps = Sleeps()
    async with service.client(sleep=sleeps, max_retries=2) as cc:
        with pytest.raises(errors.ServerError) as caught:
            await cc.users.list()
    assert caught.value.status_code == 502
    assert len(service.calls("GET", "/v3/user")) == 3
    assert len(sleeps.delays) == 2


async def test_timeouts_exhausted_raise_api_timeout_error() -> None:
    service = FakeService()

    def hang(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    service.route("GET", "/v3/user", hang)
    async with service.client(max_retries=1) as cc:
        with pytest.raises(errors.APITimeoutError) as caught:
            await cc.users.list()
    assert isinstance(caught.value, errors.APIConnectionError)
    assert (caught.value.method, caught.value.path) == ("GET", "/v3/user")


async def test_client_errors_are_not_retried() -> None:
    service = FakeService()
    service.route("GET", "/v3/lead/x", lambda r: json_response(404, {"error": "lead not found"}))
    async with service.client() as cc:
        with pytest.raises(errors.NotFoundError):
            await cc.leads.get("x")
    assert len(service.calls("GET", "/v3/lead/x")) == 1


async def test_token_request_retried_on_5xx() -> None:
    service = FakeService()
    token_ok = json_response(200, {"token": "t", "expired_in": 3600, "token_type": "Bearer"})
    service.route("POST", "/v3/auth/token", flaky([json_response(503, None)], token_ok))
    service.route("GET", "/v3/user", lambda r: users_page())
    async with service.client() as cc:
        await cc.users.list()
    assert service.token_requests == 2


# --- effectful writes ------------------------------------------------------------------

WriteCall = Callable[[CallCenter], Awaitable[Any]]


def csv_file() -> io.BytesIO:
    return io.BytesIO(b"phone_number,lead_name\n0912345678,An\n")


WRITES: dict[str, tuple[str, str, WriteCall]] = {
    "autocall.push": (
        "POST",
        "/v3/autocall/import",
        lambda cc: cc.autocall.push("c1", "0912345678", {"name": "An"}),
    ),
    "calls.transfer": (
        "POST",
        "/v1/call/call-1/transfer",
        lambda cc: cc.calls.transfer("call-1", "101"),
    ),
    "leads.create": (
        "POST",
        "/v3/lead",
        lambda cc: cc.leads.create(LeadCreate(list_uuid=LIST_UUID, phone_number="0912345678")),
    ),
    "leads.create_many": (
        "POST",
        "/v3/lead/multi",
        lambda cc: cc.leads.create_many(LIST_UUID, [LeadMultiItem(phone_number="0912345678")]),
    ),
    "leads.upload_file": (
        "POST",
        "/v3/lead/file",
        lambda cc: cc.leads.upload_file(LIST_UUID, csv_file()),
    ),
    "campaigns.update": (
        "PUT",
        "/v3/campaign/c1",
        lambda cc: cc.campaigns.update("c1", CampaignUpdate(campaign_name="P", type="autocall")),
    ),
    "campaigns.set_status": (
        "PUT",
        "/v3/campaign/c1",
        lambda cc: cc.campaigns.set_status("c1", "start"),
    ),
    "campaigns.set_fields": (
        "PUT",
        "/v3/campaign/c1",
        lambda cc: cc.campaigns.set_fields("c1", callback_url="http://127.0.0.1/cb"),
    ),
    "users.update": (
        "PUT",
        "/v3/user/u1",
        lambda cc: cc.users.update(
            "u1",
            UserUpdate(
                username="agent1",
                level="agent",
                role_uuid="r",
                password="pw",
                confirm_password="pw",
            ),
        ),
    ),
    "groups.create": (
        "POST",
        "/v3/group",
        lambda cc: cc.groups.create(GroupCreate(group_name="Sales")),
    ),
    "groups.update": (
        "PUT",
        "/v3/group/g1",
        lambda cc: cc.groups.update("g1", GroupUpdate(group_name="Sales")),
    ),
}

WRITE_FAILURES: dict[str, Callable[[], Any]] = {
    "500": lambda: json_response(500, {"error": "internal"}),
    "503+retry-after": lambda: json_response(503, {"error": "busy"}, headers={"Retry-After": "1"}),
    "429": lambda: json_response(429, {"error": "slow down"}, headers={"Retry-After": "1"}),
    "ReadTimeout": lambda: httpx.ReadTimeout("slow"),
    "WriteTimeout": lambda: httpx.WriteTimeout("slow"),
    "ReadError": lambda: httpx.ReadError("reset"),
    "RemoteProtocolError": lambda: httpx.RemoteProtocolError("server hung up"),
}


def service_for_write(
    method: str, path: str, handler: Callable[[httpx.Request], Any]
) -> FakeService:
    service = FakeService()
    service.route("GET", "/v3/campaign", lambda r: json_response(200, page([CAMPAIGN], 100, 0, 1)))
    service.route(method, path, handler)
    return service


@pytest.mark.parametrize("failure", list(WRITE_FAILURES))
@pytest.mark.parametrize("write", list(WRITES))
async def test_effectful_write_is_never_resent(write: str, failure: str) -> None:
    method, path, call = WRITES[write]
    ok = json_response(200, {"created": True})
    service = service_for_write(method, path, flaky([WRITE_FAILURES[failure]()], ok))
    sleeps = Sleeps()
    async with service.client(sleep=sleeps) as cc:
        with pytest.raises(errors.CallCenterError) as caught:
            await call(cc)
    assert len(service.calls(method, path)) == 1
    assert sleeps.delays == []
    expected: type[errors.CallCenterError] = (
        errors.APIConnectionError if failure[0].isalpha() else errors.APIStatusError
    )
    assert isinstance(caught.value, expected)


@pytest.mark.parametrize("write", list(WRITES))
async def test_write_is_retried_when_the_connection_never_opened(write: str) -> None:
    """httpx.ConnectError happens before a byte is sent: the service cannot have acted."""
    method, path, call = WRITES[write]
    body: dict[str, Any] = {
        "created": True,
        "call_id": "x",
        "status": "success",
        "campaign_uuid": "c1",
        "user_uuid": "u1",
        "data": {"group_uuid": "g1"},
        "msg": "processing",
    }
    service = service_for_write(
        method, path, flaky([httpx.ConnectError("refused")], json_response(200, body))
    )
    async with service.client() as cc:
        await call(cc)
    assert len(service.calls(method, path)) == 2


async def test_path_upload_is_reopened_for_each_attempt(tmp_path: Path) -> None:
    csv = tmp_path / "leads.csv"
    csv.write_bytes(b"phone_number\n0912345678\n")
    service = FakeService()
    service.route(
        "POST",
        "/v3/lead/file",
        flaky([httpx.ConnectError("refused")], json_response(200, {"msg": "processing"})),
    )
    async with service.client() as cc:
        accepted = await cc.leads.upload_file(LIST_UUID, csv)
    assert accepted.msg == "processing"
    attempts = service.calls("POST", "/v3/lead/file")
    assert len(attempts) == 2
    assert all(b"0912345678" in r.content for r in attempts)
