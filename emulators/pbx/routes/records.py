"""4.7 Call records: ``GET /v3/cdr``.

Without ``limit`` and ``offset`` both are -1 and no data comes back, the total still
counted (spec 8.2); a negative value for either does the same.  Records are listed
newest first; the filters are exact matches except ``status``, which ignores case and
``_``/``-`` (``ANSWERED`` finds ``answered``).
"""

from __future__ import annotations

from datetime import tzinfo
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from callcenter.models import Cdr, Page
from callcenter.rules import FieldErrors
from emulators.pbx import records
from emulators.pbx.auth import CurrentDomain
from emulators.pbx.errors import field_errors
from emulators.pbx.paging import MAX_LIMIT, Limit, Offset, page_response
from emulators.pbx.state import emulator
from emulators.pbx.timeutil import parse_bound

router = APIRouter(tags=["call records"])

TIME_MESSAGE = "{} must be written YYYY-MM-DD or YYYY-MM-DD HH:MM:SS"
Text = Annotated[str | None, Query()]


def parse_times(
    values: dict[str, str | None], uppers: set[str], tz: tzinfo
) -> dict[str, float | None]:
    """Parse named time parameters; every bad one reported at once, in the field shape."""
    out: dict[str, float | None] = {}
    errors: FieldErrors = []
    for name, value in values.items():
        if not value:
            out[name] = None
            continue
        try:
            out[name] = parse_bound(value, tz, upper=name in uppers)
        except (ValueError, OverflowError, OSError):
            errors.append({name: TIME_MESSAGE.format(name)})
    if errors:
        raise field_errors(errors)
    return out


@router.get("/v3/cdr", responses={200: {"model": Page[Cdr]}})
async def list_cdrs(
    request: Request,
    domain: CurrentDomain,
    start_date: Text = None,
    end_date: Text = None,
    start_date_ended: Text = None,
    end_date_ended: Text = None,
    extension: Text = None,
    status: Text = None,
    hotline: Text = None,
    phone: Text = None,
    direction: Annotated[Literal["inbound", "outbound", "local"] | None, Query()] = None,
    campaign_uuid: Text = None,
    limit: Limit = None,
    offset: Offset = None,
) -> Response:
    emu = emulator(request)
    times = parse_times(
        {
            "start_date": start_date,
            "end_date": end_date,
            "start_date_ended": start_date_ended,
            "end_date_ended": end_date_ended,
        },
        {"end_date", "end_date_ended"},
        emu.tz,
    )
    flt = records.CdrFilter(
        start=times["start_date"],
        end=times["end_date"],
        ended_start=times["start_date_ended"],
        ended_end=times["end_date_ended"],
        extension=extension,
        status=status,
        hotline=hotline,
        phone=phone,
        direction=direction,
        campaign_uuid=campaign_uuid,
    )
    size = -1 if limit is None else limit
    skip = -1 if offset is None else offset
    total = records.count(emu.conn, domain.domain_uuid, flt)
    if size < 0 or skip < 0:
        return page_response([], size, skip, total)
    size = min(size, MAX_LIMIT)
    items = records.page(emu.conn, domain.domain_uuid, flt, size, skip) if size else []
    return page_response(items, size, skip, total)
