"""``cc.auth``: the two token endpoints (spec 4.1)."""

from __future__ import annotations

from callcenter._http import TOKEN_V1_PATH, ApiCall
from callcenter.models import TokenV1, TokenV3
from callcenter.resources._base import Resource


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
