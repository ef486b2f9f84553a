"""4.7 Read-only catalogues: templates, carriers, gateways and the blacklist."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from callcenter.models import BlacklistEntry, Carrier, Gateway, Page, Template
from emulators.pbx.auth import CurrentDomain
from emulators.pbx.paging import Limit, Offset, page_response, paging, table_page
from emulators.pbx.state import emulator

router = APIRouter(tags=["catalogue"])


def _page(
    request: Request, table: str, domain_uuid: str, limit: int | None, offset: int | None
) -> Response:
    return table_page(
        emulator(request).conn, table, "domain_uuid = ?", (domain_uuid,), limit, offset
    )


@router.get("/v3/template", responses={200: {"model": Page[Template]}})
async def list_templates(
    request: Request,
    domain: CurrentDomain,
    template_name: Annotated[str | None, Query()] = None,
    limit: Limit = None,
    offset: Offset = None,
) -> Response:
    """``template_name`` finds templates whose name contains it, ignoring case (any
    script: Vietnamese capitals included, which SQLite's LIKE would not fold)."""
    if not template_name:
        return _page(request, "templates", domain.domain_uuid, limit, offset)
    size, skip = paging(limit, offset)
    wanted = template_name.casefold()
    matching = [
        body
        for name, body in emulator(request).conn.execute(
            "SELECT template_name, body FROM templates WHERE domain_uuid = ? ORDER BY seq",
            (domain.domain_uuid,),
        )
        if wanted in name.casefold()
    ]
    return page_response(matching[skip : skip + size], size, skip, len(matching))


@router.get("/v3/carrier", responses={200: {"model": Page[Carrier]}})
async def list_carriers(
    request: Request, domain: CurrentDomain, limit: Limit = None, offset: Offset = None
) -> Response:
    return _page(request, "carriers", domain.domain_uuid, limit, offset)


@router.get("/v3/gateway", responses={200: {"model": Page[Gateway]}})
async def list_gateways(
    request: Request, domain: CurrentDomain, limit: Limit = None, offset: Offset = None
) -> Response:
    return _page(request, "gateways", domain.domain_uuid, limit, offset)


@router.get("/v1/blacklist", responses={200: {"model": Page[BlacklistEntry]}})
async def list_blacklist(
    request: Request, domain: CurrentDomain, limit: Limit = None, offset: Offset = None
) -> Response:
    return _page(request, "blacklist", domain.domain_uuid, limit, offset)
