"""``CallCenter``: the async client of the call-center service.

    async with CallCenter("http://127.0.0.1:8900", api_key) as cc:
        page = await cc.campaigns.list(type="autocall")
        async for cdr in cc.cdrs.iterate(start_date=date.today()):
            ...

Resources hang off the client as attributes, one per family of spec section 4.  Reads
are retried with backoff, effectful writes are not (``callcenter.retry``); the token
is fetched on first use and renewed before expiry (``callcenter.tokens``).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from types import TracebackType

import httpx

from callcenter._http import HttpCore
from callcenter.resources import (
    Auth,
    Autocall,
    Blacklist,
    Calls,
    Campaigns,
    Carriers,
    Cdrs,
    Gateways,
    Groups,
    Leads,
    Lists,
    Reports,
    Templates,
    Users,
)
from callcenter.retry import RetryPolicy, Sleep
from callcenter.tokens import TokenCache


class CallCenter:
    """Client of one call-center account (one API key).

    ``timeout`` and ``transport`` configure the httpx client this object creates and
    closes (given a ``transport``, httpx reads no proxy from the environment: the
    transport decides where requests go).  Pass ``http_client`` instead to share a client
    you own (its own timeouts, hooks and cookies apply and ``close()`` leaves it open).
    ``token_cache`` keeps the token between processes.  ``sleep`` and ``clock`` exist so
    tests can steer time.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = 10.0,
        max_retries: int = 3,
        token_cache: TokenCache | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        http_client: httpx.AsyncClient | None = None,
        sleep: Sleep | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if not base_url.startswith(("http://", "https://")):
            raise ValueError("base_url must start with http:// or https://")
        if max_retries < 0:
            raise ValueError("max_retries must not be negative")
        owns_client = http_client is None
        client = http_client or httpx.AsyncClient(
            transport=transport, timeout=httpx.Timeout(timeout)
        )
        policy = (
            RetryPolicy(max_retries=max_retries, sleep=sleep)
            if sleep is not None
            else RetryPolicy(max_retries=max_retries)
        )
        self._core = HttpCore(
            base_url,
            api_key,
            http_client=client,
            owns_client=owns_client,
            retry=policy,
            token_cache=token_cache,
            clock=clock,
        )
        self.auth = Auth(self._core)
        self.users = Users(self._core)
        self.groups = Groups(self._core)
        self.campaigns = Campaigns(self._core)
        self.templates = Templates(self._core)
        self.leads = Leads(self._core)
        self.lists = Lists(self._core)
        self.autocall = Autocall(self._core)
        self.carriers = Carriers(self._core)
        self.gateways = Gateways(self._core)
        self.blacklist = Blacklist(self._core)
        self.cdrs = Cdrs(self._core)
        self.reports = Reports(self._core)
        self.calls = Calls(self._core)

    @property
    def base_url(self) -> str:
        return self._core.base_url

    @property
    def account_key(self) -> str:
        """Names the account (service and API key) without revealing the key: what
        a cache of this account's figures is keyed by."""
        key = self._core.api_key_body()["api_key"]
        return hashlib.sha256(f"{self._core.base_url}\0{key}".encode()).hexdigest()[:32]

    def __repr__(self) -> str:
        return f"CallCenter(base_url={self._core.base_url!r})"

    async def close(self) -> None:
        """Close the httpx client if this object created it."""
        await self._core.aclose()

    async def __aenter__(self) -> CallCenter:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()
