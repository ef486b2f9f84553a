"""4.4 Leads and lists: create one, many, or from a CSV file; read a lead or a list.

Rules 7.1-7.3 come from ``callcenter.rules``.  A multi-lead request with one bad phone
number is refused whole (field ``data.<i>.phone_number``), so nothing is half inserted.
The CSV upload is processed before the response returns (the service answers "being
processed"; doing it at once lets a test read the list's totals straight after), rows
with a bad phone number counted in ``total_fail``.  The file is read as a stream.
"""

from __future__ import annotations

import csv
import io
import json
import random
import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response
from starlette.datastructures import UploadFile

from callcenter.models import (
    LEAD_OPTIONAL_FIELDS,
    Lead,
    LeadCreate,
    LeadCreated,
    LeadFileAccepted,
    LeadList,
    LeadMultiCreate,
    LeadMultiResult,
)
from callcenter.rules import check_lead_multi, check_list_uuid, check_phone
from emulators.pbx import fakedata as fd
from emulators.pbx.auth import CurrentDomain
from emulators.pbx.bodies import check, read_checked, read_json
from emulators.pbx.errors import field_errors, invalid_type, not_found, string_error
from emulators.pbx.openapi import json_route, multipart_body, responses
from emulators.pbx.owned import owned
from emulators.pbx.paging import json_response
from emulators.pbx.state import Emulator, emulator
from emulators.pbx.timeutil import fmt_iso, fmt_service

router = APIRouter(tags=["leads and lists"])

CSV_BATCH = 1000
_LEAD_SELECT = (
    "SELECT l.lead_uuid, l.domain_uuid, l.list_uuid, l.phone_number, l.status, l.called_count, "
    "l.last_call_at, l.created_at, l.updated_at, l.after_day, l.body, l.seq, "
    "COALESCE(s.list_name, ''), COALESCE(s.campaign_uuid, ''), COALESCE(c.campaign_name, '') "
    "FROM leads l LEFT JOIN lists s ON s.list_uuid = l.list_uuid "
    "LEFT JOIN campaigns c ON c.campaign_uuid = s.campaign_uuid"
)


def lead_wire(emu: Emulator, row: tuple[Any, ...]) -> Lead:
    tz = emu.tz
    body: dict[str, Any] = json.loads(row[10])
    return Lead.model_validate(
        {
            **body,
            "lead_uuid": row[0],
            "domain_uuid": row[1],
            "list_uuid": row[2],
            "phone_number": row[3],
            "status": row[4],
            "alt_status": row[4].lower(),
            "called_count": row[5],
            "last_call_time": fmt_service(row[6], tz) if row[6] else "",
            "created_at": fmt_iso(row[7], tz),
            "updated_at": fmt_iso(row[8], tz),
            "after_day": row[9],
            "hopper_id": row[11],
            "list_name": row[12],
            "campaign_uuid": row[13],
            "campaign_name": row[14],
        }
    )


def insert_leads(
    conn: sqlite3.Connection,
    domain_uuid: str,
    list_uuid: str,
    items: Iterable[Mapping[str, Any]],
    now: float,
    rng: random.Random,
    status: str = "NEW",
) -> list[str]:
    """Insert leads (``phone_number`` plus any optional lead fields); returns their ids."""
    seq = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM leads").fetchone()[0]
    rows = []
    for item in items:
        seq += 1
        phone = str(item["phone_number"])
        body = {k: item[k] for k in LEAD_OPTIONAL_FIELDS if item.get(k) not in (None, "")}
        body["network"] = fd.network_of(phone)
        after_day = item.get("after_day")
        lead_uuid = fd.new_uuid(rng)
        rows.append(
            (
                lead_uuid,
                domain_uuid,
                list_uuid,
                seq,
                phone,
                status,
                0,
                None,
                None,
                now,
                now,
                after_day if isinstance(after_day, int) else 0,
                json.dumps(body, ensure_ascii=False),
            )
        )
    conn.executemany("INSERT INTO leads VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", rows)
    return [r[0] for r in rows]


def _require_list(conn: sqlite3.Connection, domain_uuid: str, list_uuid: str) -> None:
    owned(conn, "lists", domain_uuid, list_uuid)


@router.post("/v3/lead", **json_route(LeadCreate, LeadCreated, 404))
async def create_lead(request: Request, domain: CurrentDomain) -> Response:
    emu = emulator(request)
    body, checked = await read_checked(request, LeadCreate)
    errors = list(checked.errors)
    if "list_uuid" not in checked.bad:
        errors += check_list_uuid(body["list_uuid"])
    if "phone_number" not in checked.bad:
        errors += check_phone(body["phone_number"])
    if errors:
        raise field_errors(errors)
    _require_list(emu.conn, domain.domain_uuid, body["list_uuid"])
    with emu.store.tx() as conn:
        (lead_uuid,) = insert_leads(
            conn, domain.domain_uuid, body["list_uuid"], [body], emu.now(), emu.sim.rng
        )
    return json_response(LeadCreated(created=True, lead_uuid=lead_uuid))


@router.post("/v3/lead/multi", **json_route(LeadMultiCreate, LeadMultiResult, 404))
async def create_leads(request: Request, domain: CurrentDomain) -> Response:
    emu = emulator(request)
    body = await read_json(request)
    if not isinstance(body, dict):
        raise field_errors([{"(root)": invalid_type("object", body)}])
    if body.get("list_uuid") in (None, ""):
        raise string_error("list_uuid is missing")
    checked = check(LeadMultiCreate, body)
    if checked.errors:
        raise field_errors(checked.errors)
    errors = check_lead_multi(body)
    if errors:
        raise field_errors(errors)
    _require_list(emu.conn, domain.domain_uuid, body["list_uuid"])
    with emu.store.tx() as conn:
        inserted = insert_leads(
            conn, domain.domain_uuid, body["list_uuid"], body["data"], emu.now(), emu.sim.rng
        )
    return json_response(
        LeadMultiResult(message="insert leads success", total_insert=len(inserted))
    )


@router.post(
    "/v3/lead/file",
    responses=responses(LeadFileAccepted, 400, 401, 404),
    openapi_extra=multipart_body(
        {"file": {"type": "string", "format": "binary"}, "list_uuid": {"type": "string"}},
        ["file", "list_uuid"],
    ),
)
async def upload_leads(request: Request, domain: CurrentDomain) -> Response:
    emu = emulator(request)
    try:
        form = await request.form()
    except Exception as exc:  # malformed multipart: the parser's own exception types vary
        raise string_error(f"invalid multipart body: {type(exc).__name__}") from None
    try:
        list_uuid = form.get("list_uuid")
        upload = form.get("file")
        if not isinstance(list_uuid, str) or not list_uuid:
            raise string_error("list_uuid is missing")
        if not isinstance(upload, UploadFile):
            raise string_error("http: no such file")
        _require_list(emu.conn, domain.domain_uuid, list_uuid)
        total, ok = _import_csv(emu, domain.domain_uuid, list_uuid, upload)
    finally:
        await form.close()
    request.state.journal_body = {
        "list_uuid": list_uuid,
        "file": upload.filename,
        "rows": total,
        "accepted": ok,
    }
    return json_response(LeadFileAccepted(msg="upload is being processed"))


def _import_csv(
    emu: Emulator, domain_uuid: str, list_uuid: str, upload: UploadFile
) -> tuple[int, int]:
    upload.file.seek(0)
    text = io.TextIOWrapper(upload.file, encoding="utf-8-sig", newline="")
    try:
        reader = csv.DictReader(text)
        header = reader.fieldnames or []
        if "phone_number" not in header:
            raise string_error("csv file has no phone_number column")
        total = ok = 0
        batch: list[dict[str, Any]] = []
        now = emu.now()
        with emu.store.tx() as conn:
            for row in reader:
                total += 1
                item: dict[str, Any] = {k: (v or "").strip() for k, v in row.items() if k}
                if check_phone(item.get("phone_number", "")):
                    continue
                after_day = item.get("after_day", "")
                item["after_day"] = int(after_day) if after_day.isdigit() else 0
                batch.append(item)
                ok += 1
                if len(batch) >= CSV_BATCH:
                    insert_leads(conn, domain_uuid, list_uuid, batch, now, emu.sim.rng)
                    batch = []
            if batch:
                insert_leads(conn, domain_uuid, list_uuid, batch, now, emu.sim.rng)
            conn.execute(
                "UPDATE lists SET total_upload = total_upload + ?, total_success = "
                "total_success + ?, total_fail = total_fail + ?, total_fields = ?, updated_at = ? "
                "WHERE list_uuid = ?",
                (total, ok, total - ok, len(header), now, list_uuid),
            )
    except UnicodeDecodeError:
        raise string_error("csv file is not valid UTF-8") from None
    except csv.Error as exc:
        raise string_error(f"csv file is malformed: {exc}") from None
    finally:
        text.detach()
    return total, ok


@router.get("/v3/lead/{lead_uuid}", responses=responses(Lead, 401, 404))
async def get_lead(request: Request, domain: CurrentDomain, lead_uuid: str) -> Response:
    emu = emulator(request)
    row = emu.conn.execute(
        f"{_LEAD_SELECT} WHERE l.domain_uuid = ? AND l.lead_uuid = ?",
        (domain.domain_uuid, lead_uuid),
    ).fetchone()
    if row is None:
        raise not_found("lead")
    return json_response(lead_wire(emu, row))


@router.get("/v3/list/{list_uuid}", responses=responses(LeadList, 401, 404))
async def get_list(request: Request, domain: CurrentDomain, list_uuid: str) -> Response:
    emu = emulator(request)
    row = emu.conn.execute(
        "SELECT s.list_uuid, s.domain_uuid, s.list_name, s.campaign_uuid, "
        "COALESCE(c.campaign_name, ''), s.description, s.reset_time, s.active, s.user_uuid, "
        "COALESCE(u.username, ''), COALESCE(u.first_name, ''), COALESCE(u.middle_name, ''), "
        "COALESCE(u.last_name, ''), s.created_at, s.updated_at, s.total_fields, "
        "s.total_upload, s.total_success, s.total_fail, s.recall_status, "
        "(SELECT COUNT(*) FROM leads l WHERE l.list_uuid = s.list_uuid) "
        "FROM lists s LEFT JOIN campaigns c ON c.campaign_uuid = s.campaign_uuid "
        "LEFT JOIN users u ON u.user_uuid = s.user_uuid "
        "WHERE s.domain_uuid = ? AND s.list_uuid = ?",
        (domain.domain_uuid, list_uuid),
    ).fetchone()
    if row is None:
        raise not_found("list")
    tz = emu.tz
    return json_response(
        LeadList(
            list_uuid=row[0],
            domain_uuid=row[1],
            list_name=row[2],
            campaign_uuid=row[3],
            campaign_name=row[4],
            description=row[5],
            reset_time=fmt_iso(row[6], tz) if row[6] else "",
            active=bool(row[7]),
            user_uuid=row[8],
            username=row[9],
            firstname=row[10],
            middlename=row[11],
            lastname=row[12],
            created_at=fmt_iso(row[13], tz),
            updated_at=fmt_iso(row[14], tz),
            total_leads=row[20],
            total_fields=row[15],
            total_upload=row[16],
            total_success=row[17],
            total_fail=row[18],
            recall_status=json.loads(row[19]),
        )
    )
