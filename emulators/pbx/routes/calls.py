"""4.5 Autocall import and 4.8 live calls (list and transfer).

An autocall import checks its members (rule 7.4, ``(root)``), the phone number, that the
campaign is an autocall campaign of the caller's domain, and that ``param`` gives every
``{{placeholder}}`` of the campaign's TTS template (the call could not be spoken
otherwise).  It then adds a lead to the campaign's default list and places a live call
whose record carries ``param`` in ``additional``.
"""

from __future__ import annotations

import json

from fastapi import APIRouter, Request
from fastapi.responses import Response

from callcenter.models import (
    ActiveCallList,
    AutocallImport,
    AutocallResult,
    TransferRequest,
    TransferResult,
)
from callcenter.rules import check_autocall, check_phone, required_message
from emulators.pbx.auth import CurrentDomain
from emulators.pbx.bodies import read_checked
from emulators.pbx.errors import field_errors, string_error
from emulators.pbx.fakedata import placeholders_of
from emulators.pbx.openapi import json_route, responses
from emulators.pbx.owned import owned
from emulators.pbx.paging import json_response
from emulators.pbx.routes.leads import insert_leads
from emulators.pbx.state import emulator

router = APIRouter(tags=["calls"])


@router.post("/v3/autocall/import", **json_route(AutocallImport, AutocallResult, 404))
async def autocall_import(request: Request, domain: CurrentDomain) -> Response:
    emu = emulator(request)
    conn = emu.conn
    body, checked = await read_checked(request, AutocallImport)
    errors = check_autocall(body) + [e for e in checked.errors if "(root)" not in e]
    if "phone_number" not in checked.bad:
        errors += check_phone(body["phone_number"])
    if errors:
        raise field_errors(errors)
    request_ = AutocallImport.model_validate(body)
    row = owned(conn, "campaigns", domain.domain_uuid, request_.campaign_uuid, "body")
    campaign = json.loads(row[0])
    if campaign["type"] != "autocall":
        raise string_error("campaign is not an autocall campaign")
    template = conn.execute(
        "SELECT body FROM templates WHERE domain_uuid = ? AND template_uuid = ?",
        (domain.domain_uuid, campaign.get("template_uuid", "")),
    ).fetchone()
    if template is not None:
        content = json.loads(template[0]).get("content", "")
        missing = [p for p in placeholders_of(content) if p not in request_.param]
        if missing:
            raise field_errors([{"param": required_message(p)} for p in missing])
    list_uuid = campaign.get("default_list_uuid") or ""
    if not list_uuid:
        found = conn.execute(
            "SELECT list_uuid FROM lists WHERE campaign_uuid = ? ORDER BY seq LIMIT 1",
            (request_.campaign_uuid,),
        ).fetchone()
        list_uuid = found[0] if found else ""
    now = emu.now()
    caller = conn.execute(
        "SELECT body FROM carriers WHERE carrier_uuid = ?", (campaign.get("carrier_uuid", ""),)
    ).fetchone()
    with emu.store.tx() as tx:
        (lead_uuid,) = insert_leads(
            tx,
            domain.domain_uuid,
            list_uuid,
            [
                {
                    "phone_number": request_.phone_number,
                    "lead_name": request_.param.get("name", ""),
                    "additional": json.dumps(request_.param, ensure_ascii=False),
                }
            ],
            now,
            emu.sim.rng,
            status="CALLING",
        )
        call = emu.sim.originate(
            domain,
            at=now,
            direction="outbound",
            source=json.loads(caller[0]).get("caller_id", "") if caller else "",
            destination=request_.phone_number,
            context="autocall",
            campaign=campaign,
            lead_uuid=lead_uuid,
            app="autocall",
            params=dict(request_.param),
            customer_name=request_.param.get("name", ""),
            stream="autocall",
        )
    return json_response(
        AutocallResult(call_id=call["call_id"], lead_uuid=lead_uuid, message="success")
    )


@router.get("/v1/call", responses=responses(ActiveCallList, 401))
async def list_calls(request: Request, domain: CurrentDomain) -> Response:
    sim = emulator(request).sim
    calls = [sim.wire(row) for row in sim.live_calls(domain.domain_uuid)]
    return json_response({"data": calls, "total": len(calls)})


@router.post(
    "/v1/call/{call_id}/transfer", **json_route(TransferRequest, TransferResult, transfer=True)
)
async def transfer_call(request: Request, domain: CurrentDomain, call_id: str) -> Response:
    emu = emulator(request)
    body, checked = await read_checked(request, TransferRequest)
    if checked.errors:
        raise field_errors(checked.errors)
    transfer = TransferRequest.model_validate(body)
    emu.sim.transfer(domain, call_id, transfer.ext, transfer.legs)
    return json_response(TransferResult(status="success", call_id=call_id, ext=transfer.ext))
