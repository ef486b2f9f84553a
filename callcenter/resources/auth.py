"""``cc.auth``: the two token endpoints (spec 4.1)."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, StrictInt

from callcenter import errors
from callcenter._http import TOKEN_V1_PATH, ApiCall
from callcenter.models import TokenV1, TokenV3, WireModel
from callcenter.resources._base import Resource, paging

PROBE_PATH = "/v3/campaign"
"""The documented listing that shows a server is the call-center service (spec 4.7)."""


class _Envelope(WireModel):
    """The paging envelope exactly as the spec gives it (section 2): every field there,
    of its type; a server that is not the service does not answer this by chance."""

    model_config = ConfigDict(extra="allow", strict=True)
    data: list[dict[str, Any]]
    limit: StrictInt
    offset: StrictInt
    total: StrictInt


class Auth(Resource):
    async def token(self) -> TokenV3:
        """POST /v3/auth/token: a fresh token, which the client also adopts (and saves
        to the token cache) for the calls that follow."""
        started = self._core.clock()
        token = await self._core.fetch_token_v3()
        cached = self._core.to_cached(token, started)
        await self._core.tokens.install(cached, lifetime=cached.expires_at - started)
        return token

    async def token_v1(self) -> TokenV1:
        """POST /v1/auth/token: the older token shape; not used by the client itself."""
        call = ApiCall(
            "POST",
            TOKEN_V1_PATH,
            idempotent=True,
            json=self._core.api_key_body(),
            authenticated=False,
            token_endpoint=True,
        )
        return await self._core.send(call, TokenV1)

    async def verify(self) -> TokenV3:
        """Check the API key by fetching a fresh token, without adopting or caching it:
        used before a key is saved, so a wrong key leaves nothing behind.  Raises
        ``AuthenticationError`` when the service refuses the key."""
        return await self._core.fetch_token_v3()

    async def verify_service(self) -> TokenV3:
        """`verify`, then make sure the other side is the call-center service and not
        any server that answers a token request: the token must be one, and with it the
        documented campaign listing must answer in the paging envelope.  Nothing is
        adopted or cached.  Raises ``UnexpectedResponseError`` for another shape."""
        token = await self._core.fetch_token_v3()
        if not token.token.strip():
            raise errors.UnexpectedResponseError(
                "the token response holds no token", status_code=200, path="/v3/auth/token"
            )
        call = ApiCall("GET", PROBE_PATH, idempotent=True, params=paging(1, 0))
        await self._core.send_with(call, _Envelope, token.token)
        return token
