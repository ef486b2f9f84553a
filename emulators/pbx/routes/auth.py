"""4.1 Authentication: ``POST /v3/auth/token`` and ``POST /v1/auth/token``."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from callcenter.models import ApiKeyBody, TokenV1, TokenV1Data, TokenV3
from emulators.pbx.auth import issue_token
from emulators.pbx.bodies import read_checked
from emulators.pbx.errors import field_errors, string_error
from emulators.pbx.openapi import json_route
from emulators.pbx.paging import json_response
from emulators.pbx.state import Domain, emulator

router = APIRouter(tags=["authentication"])


async def _domain_for_key(request: Request) -> Domain:
    body, checked = await read_checked(request, ApiKeyBody)
    if checked.errors:
        raise field_errors(checked.errors)
    domain = emulator(request).domain_by_api_key(body["api_key"])
    if domain is None:
        raise string_error("invalid api key", 401)
    request.state.domain_name = domain.name
    return domain


@router.post("/v3/auth/token", **json_route(ApiKeyBody, TokenV3))
async def token_v3(request: Request) -> Response:
    emu = emulator(request)
    domain = await _domain_for_key(request)
    token, _ = issue_token(emu, domain)
    return json_response(
        TokenV3(
            client_id=domain.client_id,
            domain_uuid=domain.domain_uuid,
            expired_in=emu.config.token_ttl,
            refresh_token="",
            token=token,
            token_type="Bearer",  # noqa: S106 - the scheme name, not a secret
            user_id=domain.api_user_uuid,
        )
    )


@router.post("/v1/auth/token", **json_route(ApiKeyBody, TokenV1))
async def token_v1(request: Request) -> Response:
    emu = emulator(request)
    domain = await _domain_for_key(request)
    token, expires_at = issue_token(emu, domain)
    data = TokenV1Data(expired=int(expires_at), token=token, user_id=domain.api_user_uuid)
    return json_response(TokenV1(data=data))
