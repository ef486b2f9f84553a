"""Response bodies: the paging envelope and plain JSON, built without re-validation.

Stored bodies were produced by the ``callcenter.models`` wire models when written, so a
page is assembled by joining them; no per-request model round trip on the hot paths
(a page of 50 campaigns, 500 call records).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import Query
from fastapi.responses import Response
from pydantic import BaseModel

from callcenter.rules import FieldErrors
from emulators.pbx.errors import field_errors

DEFAULT_LIMIT = 10
MAX_LIMIT = 1000
"""Larger page requests are served 1,000 items (and say so in ``limit``)."""

Limit = Annotated[int | None, Query()]
Offset = Annotated[int | None, Query()]


def json_response(content: Any, status_code: int = 200) -> Response:
    if isinstance(content, BaseModel):
        body = content.model_dump_json()
    else:
        body = json.dumps(content, ensure_ascii=False, separators=(",", ":"))
    return Response(body, status_code=status_code, media_type="application/json")


def page_response(items: Sequence[str], limit: int, offset: int, total: int) -> Response:
    body = f'{{"data":[{",".join(items)}],"limit":{limit},"offset":{offset},"total":{total}}}'
    return Response(body, media_type="application/json")


def paging(
    limit: int | None, offset: int | None, default_limit: int = DEFAULT_LIMIT
) -> tuple[int, int]:
    """``limit``/``offset`` of a listing: defaults, bounds, and the service's error shape."""
    errors: FieldErrors = []
    if limit is not None and limit < 0:
        errors.append({"limit": "limit must be greater than or equal to 0"})
    if offset is not None and offset < 0:
        errors.append({"offset": "offset must be greater than or equal to 0"})
    if errors:
        raise field_errors(errors)
    return min(default_limit if limit is None else limit, MAX_LIMIT), offset or 0


def table_page(
    conn: sqlite3.Connection,
    table: str,
    where: str,
    args: Sequence[Any],
    limit: int | None,
    offset: int | None,
) -> Response:
    """A page of the stored bodies of ``table``'s rows matching ``where``, in the order
    they were made, as every plain listing of the service pages them."""
    size, skip = paging(limit, offset)
    total = conn.execute(f"SELECT COUNT(*) FROM {table} WHERE {where}", args).fetchone()[0]
    bodies = [
        r[0]
        for r in conn.execute(
            f"SELECT body FROM {table} WHERE {where} ORDER BY seq LIMIT ? OFFSET ?",
            (*args, size, skip),
        )
    ]
    return page_response(bodies, size, skip, total)
