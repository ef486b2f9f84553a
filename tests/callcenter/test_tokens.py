"""Token lifecycle: first use, expiry units, renewal, sharing, caching."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from callcenter import CachedToken, errors
from callcenter.tokens import DEFAULT_LIFETIME, expires_at_from, renew_margin
from tests.callcenter.fakes import (
    FakeService,
    bearer,
    json_response,
    token_body,
    user,
)
from tests.clocks import T0, SteppedClock


def serve_user(service: FakeService) -> None:
    service.route("GET", "/v3/user/u1", lambda r: json_response(200, user(1)))


@pytest.mark.parametrize(
    ("expired_in", "expected"),
    [
        (3600, T0 + 3600),  # seconds from now
        (86_400 * 30, T0 + 86_400 * 30),  # a long lifetime is still a duration
        (int(T0) + 7200, T0 + 7200),  # a Unix instant in seconds
        ((int(T0) + 7200) * 1000, T0 + 7200),  # a Unix instant in milliseconds
        (0, T0 + DEFAULT_LIFETIME),  # no usable value
        (-5, T0 + DEFAULT_LIFETIME),
    ],
)
def test_expired_in_unit_is_read_from_its_size(expired_in: int, expected: float) -> None:
    assert expires_at_from(expired_in, T0) == pytest.approx(expected)


def test_renew_margin_is_60s_or_a_tenth_but_never_half_the_lifetime() -> None:
    assert renew_margin(3600) == 360
    assert renew_margin(300) == 60
    assert renew_margin(30) == 15
    assert renew_margin(None) == 60


async def test_token_is_fetched_on_first_use_and_reused() -> None:
    service = FakeService()
    serve_user(service)
    async with service.client() as cc:
        assert service.token_requests == 0
        await cc.users.get("u1")
        await cc.users.get("u1")
    assert service.token_requests == 1
    assert [bearer(r) for r in service.calls("GET", "/v3/user/u1")] == ["Bearer tok-1"] * 2


@pytest.mark.parametrize(
    "expired_in",
    [3600, int(T0) + 3600, (int(T0) + 3600) * 1000],
    ids=["seconds", "unix-seconds", "unix-millis"],
)
async def test_token_renewed_shortly_before_expiry(expired_in: int) -> None:
    service = FakeService()
    serve_user(service)
    service.route(
        "POST", "/v3/auth/token", lambda r: json_response(200, token_body("t", expired_in))
    )
    clock = SteppedClock()
    async with service.client(clock=clock) as cc:
        await cc.users.get("u1")
        clock.advance(3600 - 361)  # 361 s left: more than 10 % of the hour
        await cc.users.get("u1")
        assert service.token_requests == 1
        clock.advance(2)  # 359 s left: inside the renewal margin
        await cc.users.get("u1")
        assert service.token_requests == 2


async def test_concurrent_first_calls_share_one_token_request() -> None:
    service = FakeService()
    serve_user(service)
    gate = asyncio.Event()
    token_started = asyncio.Event()

    async def slow_token(request: httpx.Request) -> httpx.Response:
        token_started.set()
        await gate.wait()
        return json_response(200, token_body("shared"))

    service.route("POST", "/v3/auth/token", slow_token)
    async with service.client() as cc:
        tasks = [asyncio.create_task(cc.users.get("u1")) for _ in range(20)]
        await token_started.wait()
        for _ in range(20):  # let every task reach the token manager
            await asyncio.sleep(0)
        gate.set()
        results = await asyncio.gather(*tasks)
    assert len(results) == 20
    assert service.token_requests == 1
    assert {bearer(r) for r in service.calls("GET", "/v3/user/u1")} == {"Bearer shared"}


async def test_concurrent_callers_share_a_refused_token_request() -> None:
    service = FakeService()
    service.route("POST", "/v3/auth/token", lambda r: json_response(401, {"error": "bad key"}))
    async with service.client() as cc:
        results = await asyncio.gather(
            *(cc.users.get("u1") for _ in range(5)), return_exceptions=True
        )
    assert all(isinstance(r, errors.AuthenticationError) for r in results)
    assert service.token_requests == 1
    assert service.calls("GET", "/v3/user/u1") == []


async def test_refused_token_is_renewed_once_and_the_request_replayed() -> None:
    service = FakeService()
    service.route(
        "GET",
        "/v3/user/u1",
        lambda r: (
            json_response(200, user(1))
            if bearer(r) == "Bearer tok-2"
            else json_response(401, {"error": "token expired"})
        ),
    )
    async with service.client() as cc:
        found = await cc.users.get("u1")
    assert found.user_uuid == "user-0001"
    assert service.token_requests == 2
    assert [bearer(r) for r in service.calls("GET", "/v3/user/u1")] == [
        "Bearer tok-1",
        "Bearer tok-2",
    ]


async def test_second_refusal_gives_up() -> None:
    service = FakeService()
    service.route("GET", "/v3/user/u1", lambda r: json_response(401, {"error": "no"}))
    async with service.client() as cc:
        with pytest.raises(errors.AuthenticationError):
            await cc.users.get("u1")
    assert len(service.calls("GET", "/v3/user/u1")) == 2
    assert service.token_requests == 2


async def test_effectful_write_is_replayed_once_after_a_refused_token() -> None:
    service = FakeService()
    service.route(
        "POST",
        "/v3/autocall/import",
        lambda r: (
            json_response(200, {"call_id": "c1", "lead_uuid": "l1", "message": "ok"})
            if bearer(r) == "Bearer tok-2"
            else json_response(403, {"error": "forbidden"})
        ),
    )
    async with service.client() as cc:
        result = await cc.autocall.push("camp", "0912345678", {"name": "An"})
    assert result.call_id == "c1"
    assert len(service.calls("POST", "/v3/autocall/import")) == 2


async def test_concurrent_refusals_renew_the_token_once() -> None:
    service = FakeService()
    service.route(
        "GET",
        "/v3/user/u1",
        lambda r: (
            json_response(401, {"error": "expired"})
            if bearer(r) == "Bearer tok-1"
            else json_response(200, user(1))
        ),
    )
    async with service.client() as cc:
        await asyncio.gather(*(cc.users.get("u1") for _ in range(10)))
    assert service.token_requests == 2


class MemoryCache:
    def __init__(self, token: CachedToken | None = None) -> None:
        self.token = token
        self.saves = 0
        self.clears = 0

    def load(self) -> CachedToken | None:
        return self.token

    def save(self, token: CachedToken) -> None:
        self.token = token
        self.saves += 1

    def clear(self) -> None:
        self.token = None
        self.clears += 1


async def test_cached_token_is_used_without_a_token_request() -> None:
    service = FakeService()
    serve_user(service)
    cache = MemoryCache(CachedToken("from-cache", T0 + 3600))
    async with service.client(token_cache=cache, clock=SteppedClock()) as cc:
        await cc.users.get("u1")
    assert service.token_requests == 0
    assert bearer(service.calls("GET", "/v3/user/u1")[0]) == "Bearer from-cache"


async def test_fetched_token_is_saved_and_an_expired_cached_one_replaced() -> None:
    service = FakeService()
    serve_user(service)
    cache = MemoryCache(CachedToken("stale", T0 + 10))
    async with service.client(token_cache=cache, clock=SteppedClock()) as cc:
        await cc.users.get("u1")
    assert service.token_requests == 1
    assert cache.token == CachedToken("tok-1", T0 + 3600)
    assert cache.saves == 1


async def test_refused_key_clears_the_cache() -> None:
    service = FakeService()
    service.route("GET", "/v3/user/u1", lambda r: json_response(401, {"error": "expired"}))
    service.route("POST", "/v3/auth/token", lambda r: json_response(400, {"error": "invalid key"}))
    cache = MemoryCache(CachedToken("old", T0 + 3600))
    async with service.client(token_cache=cache, clock=SteppedClock()) as cc:
        with pytest.raises(errors.AuthenticationError) as caught:
            await cc.users.get("u1")
    assert caught.value.message == "invalid key"
    assert cache.token is None and cache.clears == 1


async def test_auth_token_adopts_the_token_and_verify_does_not() -> None:
    service = FakeService()
    serve_user(service)
    cache = MemoryCache()
    async with service.client(token_cache=cache, clock=SteppedClock()) as cc:
        checked = await cc.auth.verify()
        assert checked.token == "tok-1"
        assert cache.saves == 0
        fetched = await cc.auth.token()
        assert fetched.token == "tok-2"
        await cc.users.get("u1")
    assert cache.token == CachedToken("tok-2", T0 + 3600)
    assert service.token_requests == 2
    assert bearer(service.calls("GET", "/v3/user/u1")[0]) == "Bearer tok-2"
    assert bearer(service.calls("POST", "/v3/auth/token")[0]) is None


async def test_token_v1_shape_and_body() -> None:
    service = FakeService()
    service.route(
        "POST",
        "/v1/auth/token",
        lambda r: json_response(200, {"data": {"expired": 3600, "token": "v1", "user_id": "u"}}),
    )
    async with service.client() as cc:
        token = await cc.auth.token_v1()
    assert token.data.token == "v1"
    request = service.calls("POST", "/v1/auth/token")[0]
    assert request.read() == b'{"api_key":"sk-live-SECRET-0123456789"}'


def test_cached_token_repr_hides_the_token() -> None:
    assert "secret-token" not in repr(CachedToken("secret-token", 1.0))
