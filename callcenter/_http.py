"""The request loop every endpoint goes through: token, send, classify, retry, replay.

Endpoint methods describe a call (``ApiCall``) and say whether it is safe to repeat;
this module attaches the bearer token, sends it, turns the response into a model or an
exception (``callcenter._responses``), asks ``RetryPolicy`` whether to try again, and
replays the call once with a renewed token if the service refused the token.

The API key lives here only, wrapped in ``Secret`` so no repr, log line or traceback
can show it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import httpx

from callcenter import errors
from callcenter._responses import M, parse_retry_after, read_response
from callcenter.models import ApiKeyBody, TokenV3
from callcenter.retry import RetryPolicy
from callcenter.tokens import CachedToken, TokenCache, TokenManager, expires_at_from

QueryValue = str | int | float | bool
Query = Sequence[tuple[str, QueryValue]]
FilesOpener = Callable[[], AbstractContextManager[Mapping[str, Any]]]

USER_AGENT = "callops-callcenter/0.1"
TOKEN_PATH = "/v3/auth/token"  # noqa: S105 (a path, not a secret)
TOKEN_V1_PATH = "/v1/auth/token"  # noqa: S105


class Secret:
    """A string that never shows itself in repr/str (the API key)."""

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')"

    __str__ = __repr__


@dataclass(frozen=True)
class ApiCall:
    """One endpoint call, as its resource method describes it.

    ``idempotent`` is the endpoint's own declaration of whether sending it twice is
    harmless; ``callcenter.retry`` acts on it and nothing else.  ``files`` is a factory
    so an upload can be re-opened if it has to be sent again (auth replay);
    ``replayable=False`` says it cannot be (a pipe that was already read).
    """

    method: str
    path: str
    idempotent: bool
    params: Query | None = None
    json: Any = None
    data: Mapping[str, str] | None = None
    files: FilesOpener | None = field(default=None, repr=False)
    authenticated: bool = True
    token_endpoint: bool = False
    replayable: bool = True


class HttpCore:
    """Owns the httpx client, the token manager and the retry policy of one CallCenter.

    Every request goes through httpx's public ``AsyncClient.request``, on whatever
    transport the client was built with.  Handing each request to the transport
    directly, past the client's own round, saved 0.1 ms of CPU per call and no figure a
    person notices (``benchmarks/README.md``), so it was dropped.  The retry loop
    stays here: httpx's transport retries only a failed connect, and the service's 429
    and 5xx answers with ``Retry-After`` are retried by ``RetryPolicy`` for idempotent
    calls only.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        http_client: httpx.AsyncClient,
        owns_client: bool,
        retry: RetryPolicy,
        token_cache: TokenCache | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._api_key = Secret(api_key)
        self._http = http_client
        self._owns_client = owns_client
        self.retry = retry
        self.clock = clock
        self.tokens = TokenManager(self._fetch_cached_token, token_cache, clock)

    def __repr__(self) -> str:
        return f"HttpCore(base_url={self.base_url!r})"

    async def aclose(self) -> None:
        if self._owns_client:
            await self._http.aclose()

    # --- tokens ----------------------------------------------------------------------

    def api_key_body(self) -> dict[str, Any]:
        return ApiKeyBody(api_key=self._api_key.reveal()).to_wire()

    async def fetch_token_v3(self) -> TokenV3:
        """POST /v3/auth/token: retried like a read (it creates nothing)."""
        call = ApiCall(
            "POST",
            TOKEN_PATH,
            idempotent=True,
            json=self.api_key_body(),
            authenticated=False,
            token_endpoint=True,
        )
        return await self.send(call, TokenV3)

    def to_cached(self, token: TokenV3, fetched_at: float) -> CachedToken:
        return CachedToken(
            token=token.token, expires_at=expires_at_from(token.expired_in, fetched_at)
        )

    async def _fetch_cached_token(self) -> CachedToken:
        started = self.clock()
        return self.to_cached(await self.fetch_token_v3(), started)

    # --- sending ---------------------------------------------------------------------

    async def send(self, call: ApiCall, cast: type[M]) -> M:
        """Send ``call`` and parse the answer as ``cast``.

        A refused token is renewed once and the call replayed once, even a write: the
        service rejects an unauthenticated request before it has any effect, so the
        replay cannot act twice.  A second refusal is raised.
        """
        if not call.authenticated:
            return await self._send_retrying(call, cast, None)
        token = await self.tokens.get()
        try:
            return await self._send_retrying(call, cast, token)
        except errors.AuthenticationError:
            if not call.replayable:
                raise
            token = await self.tokens.renew(token)
            return await self._send_retrying(call, cast, token)

    async def send_with(self, call: ApiCall, cast: type[M], token: str) -> M:
        """Send ``call`` with ``token`` as it is, neither taken from nor put in the token
        cache (a key being verified leaves nothing behind)."""
        return await self._send_retrying(call, cast, token)

    async def _send_retrying(self, call: ApiCall, cast: type[M], token: str | None) -> M:
        attempt = 0
        while True:
            try:
                response = await self._send_once(call, token)
            except httpx.TransportError as exc:
                delay = self.retry.delay_after_exception(
                    exc, idempotent=call.idempotent, attempt=attempt
                )
                if delay is None:
                    raise _connection_error(exc, call) from exc
            else:
                try:
                    return read_response(
                        response,
                        cast,
                        method=call.method,
                        path=call.path,
                        token_endpoint=call.token_endpoint,
                    )
                except errors.APIStatusError:
                    delay = self.retry.delay_after_status(
                        response.status_code,
                        parse_retry_after(response.headers.get("retry-after")),
                        idempotent=call.idempotent,
                        attempt=attempt,
                    )
                    if delay is None:
                        raise
            await self.retry.sleep(delay)
            attempt += 1

    async def _send_once(self, call: ApiCall, token: str | None) -> httpx.Response:
        params = tuple(call.params) if call.params else None
        url = service_url(self.base_url + call.path, params)
        if call.files is None:
            return await self._send(call, url, token, None)
        with call.files() as files:
            return await self._send(call, url, token, files)

    async def _send(
        self, call: ApiCall, url: httpx.URL, token: str | None, files: Mapping[str, Any] | None
    ) -> httpx.Response:
        headers = {"Accept": "application/json", "User-Agent": USER_AGENT}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        return await self._http.request(
            call.method, url, json=call.json, data=call.data, files=files, headers=headers
        )


@lru_cache(maxsize=256)
def service_url(address: str, params: Query | None) -> httpx.URL:
    """The URL of a call, parsed once for each address and query.

    httpx validates and percent-encodes a URL given as text, and does it again to add
    ``params``, the largest part of building a request.  A parsed ``httpx.URL`` is taken
    as it is, and the same few listings (a page of campaigns, the live calls) are asked
    for again and again.
    The query is httpx's own encoding of ``params``, as ``request(params=...)`` makes it.
    """
    return httpx.URL(address, params=params)


def _connection_error(exc: httpx.TransportError, call: ApiCall) -> errors.APIConnectionError:
    kind = type(exc).__name__
    detail = str(exc)
    message = f"{kind}: {detail}" if detail else kind
    if isinstance(exc, httpx.TimeoutException):
        return errors.APITimeoutError(
            f"request timed out ({message})", method=call.method, path=call.path
        )
    return errors.APIConnectionError(
        f"could not reach the service ({message})", method=call.method, path=call.path
    )


__all__ = ["ApiCall", "FilesOpener", "HttpCore", "Query", "Secret", "service_url"]
