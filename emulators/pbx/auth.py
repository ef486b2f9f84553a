"""Tokens: issued for an API key, valid for ``--token-ttl`` seconds of emulator time.

Both header forms of spec 5.2 are accepted (``Bearer <token>`` and the bare token).
The v3 response says how long the token lives (``expired_in``, seconds) and the v1
response when it dies (``expired``, a Unix time), so a client has to handle both
readings the spec leaves open.
"""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import Depends, Request

from emulators.pbx.errors import string_error
from emulators.pbx.state import Domain, Emulator, emulator


def issue_token(emu: Emulator, domain: Domain) -> tuple[str, float]:
    token = secrets.token_urlsafe(32)
    expires_at = emu.now() + emu.config.token_ttl
    emu.conn.execute("INSERT INTO tokens VALUES (?, ?, ?)", (token, domain.domain_uuid, expires_at))
    return token, expires_at


def bearer(header: str) -> str:
    scheme, _, rest = header.strip().partition(" ")
    if rest and scheme.lower() == "bearer":
        return rest.strip()
    return header.strip()


async def current_domain(request: Request) -> Domain:
    """The domain of the request's token; 401 in the service's string shape otherwise."""
    emu = emulator(request)
    header = request.headers.get("authorization", "")
    token = bearer(header) if header else ""
    if not token:
        raise string_error("authorization header is missing", 401)
    row = emu.conn.execute(
        "SELECT domain_uuid, expires_at FROM tokens WHERE token = ?", (token,)
    ).fetchone()
    if row is None:
        raise string_error("token is invalid", 401)
    if row[1] <= emu.now():
        raise string_error("token is expired", 401)
    domain = emu.domains[row[0]]
    request.state.domain_name = domain.name
    return domain


CurrentDomain = Annotated[Domain, Depends(current_domain)]
