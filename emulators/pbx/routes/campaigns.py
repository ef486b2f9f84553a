"""4.7 Campaigns: list (by type) and update.

The update replaces the campaign with the body: members the body leaves out are reset
to their zero values (the service's "PUT needs full bodies" behaviour), so a client
that sends a partial body visibly loses data.  Identity and server-kept fields
(``campaign_uuid``, ``domain_uuid``, ``domain_name``, ``created_at``, ``run_id``) are
kept; ``carrier_name``/``template_name`` follow the referenced carrier and template;
``status`` in the body starts, pauses or stops the campaign.
"""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from callcenter.models import Campaign, CampaignUpdate, CampaignUpdated, Page
from callcenter.rules import min_length_message
from emulators.pbx import fakedata as fd
from emulators.pbx.auth import CurrentDomain
from emulators.pbx.bodies import one_of, read_checked
from emulators.pbx.errors import field_errors, string_error
from emulators.pbx.openapi import json_route, responses
from emulators.pbx.owned import owned
from emulators.pbx.paging import Limit, Offset, json_response, table_page
from emulators.pbx.state import emulator
from emulators.pbx.timeutil import fmt_iso

router = APIRouter(tags=["campaigns"])

CampaignTypeParam = Literal["autocall", "autodialer", "inbound", "manual"]
SERVER_KEPT = ("campaign_uuid", "domain_uuid", "domain_name", "created_at", "run_id")


@router.get("/v3/campaign", responses=responses(Page[Campaign], 400, 401))
async def list_campaigns(
    request: Request,
    domain: CurrentDomain,
    type: Annotated[CampaignTypeParam | None, Query()] = None,
    limit: Limit = None,
    offset: Offset = None,
) -> Response:
    where, params = "domain_uuid = ?", [domain.domain_uuid]
    if type is not None:
        where, params = where + " AND type = ?", [*params, type]
    return table_page(emulator(request).conn, "campaigns", where, params, limit, offset)


@router.put("/v3/campaign/{campaign_uuid}", **json_route(CampaignUpdate, CampaignUpdated, 404, 409))
async def update_campaign(request: Request, domain: CurrentDomain, campaign_uuid: str) -> Response:
    emu = emulator(request)
    conn = emu.conn
    body, checked = await read_checked(request, CampaignUpdate)
    errors = list(checked.errors)
    errors += one_of(body, "type", ("autocall", "autodialer", "inbound", "manual"))
    errors += one_of(body, "status", ("stop", "start", "pause"))
    errors += one_of(body, "mode_call", ("direct", "serial", "parralel"))
    errors += one_of(body, "priority_recall", ("normal", "recall"))
    if body.get("type_autocall"):
        errors += one_of(
            body, "type_autocall", ("autocall_voice_tts", "autocall_audio", "autocall_voice_otp")
        )
    if body.get("campaign_name") == "":
        errors.append({"campaign_name": min_length_message(1)})
    for name in ("concurrent_call", "recall_times", "call_timeout", "limit_recall_duration"):
        value = body.get(name)
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            errors.append({name: f"{name} must be greater than or equal to 0"})
    if errors:
        raise field_errors(errors)
    update = CampaignUpdate.model_validate(body)
    row = owned(conn, "campaigns", domain.domain_uuid, campaign_uuid, "body, status")
    current = Campaign.model_validate_json(row[0])
    if conn.execute(
        "SELECT 1 FROM campaigns WHERE domain_uuid = ? AND campaign_name = ? "
        "AND campaign_uuid != ?",
        (domain.domain_uuid, update.campaign_name, campaign_uuid),
    ).fetchone():
        raise string_error(f"campaign name {update.campaign_name} is already taken", 409)
    carrier_name = template_name = ""
    if update.carrier_uuid:
        carrier = owned(conn, "carriers", domain.domain_uuid, update.carrier_uuid, "carrier_name")
        carrier_name = carrier[0]
    if update.template_uuid:
        template = owned(
            conn, "templates", domain.domain_uuid, update.template_uuid, "template_name"
        )
        template_name = template[0]
    run_id = current.run_id
    if update.status == "start" and (row[1] != "start" or not run_id):
        run_id = fd.new_uuid(emu.sim.rng)
    elif update.status == "stop":
        run_id = ""
    fields = {
        name: getattr(update, name) for name in Campaign.model_fields if name not in SERVER_KEPT
    }
    fields.update(
        {name: getattr(current, name) for name in SERVER_KEPT},
        run_id=run_id,
        carrier_name=carrier_name,
        template_name=template_name,
        updated_at=fmt_iso(emu.now(), emu.tz),
    )
    campaign = Campaign.model_validate(fields)
    with emu.store.tx():
        conn.execute(
            "UPDATE campaigns SET campaign_name = ?, type = ?, status = ?, concurrent_call = ?, "
            "body = ? WHERE campaign_uuid = ?",
            (
                campaign.campaign_name,
                campaign.type,
                campaign.status,
                campaign.concurrent_call,
                campaign.model_dump_json(),
                campaign_uuid,
            ),
        )
    if campaign.status == "start":
        emu.sim.dial(emu.now())
    return json_response(CampaignUpdated(campaign_uuid=campaign_uuid))
