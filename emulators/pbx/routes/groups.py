"""4.6 Groups: create and update.

The spec has no group listing; groups show up inside users (and in
``/_emulator/state/groups``).  Names follow the spec's character rule, are unique in a
domain (409, "already exists"), and an unknown group is 404 ("group not found").
"""

from __future__ import annotations

import sqlite3
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from callcenter.models import Group, GroupCreate, GroupCreated, GroupUpdate, GroupUpdated
from callcenter.rules import FieldErrors, check_group_name
from emulators.pbx import fakedata as fd
from emulators.pbx.auth import CurrentDomain
from emulators.pbx.bodies import M, check, read_object
from emulators.pbx.errors import field_errors, string_error
from emulators.pbx.openapi import json_route
from emulators.pbx.owned import owned
from emulators.pbx.paging import json_response
from emulators.pbx.reports import GROUP_COLUMNS, group_of
from emulators.pbx.state import emulator

router = APIRouter(tags=["users and groups"])


def _name_errors(body: dict[str, object], bad: set[str]) -> FieldErrors:
    value = body.get("group_name")
    return check_group_name(value) if "group_name" not in bad and isinstance(value, str) else []


def _checked(model: type[M], body: dict[str, Any]) -> M:
    """``body`` as ``model``, or every field error the service reports at once (the name's
    own rules among them)."""
    checked = check(model, body)
    errors = checked.errors + _name_errors(body, checked.bad)
    if errors:
        raise field_errors(errors)
    return model.model_validate(body)


def _taken(conn: sqlite3.Connection, domain_uuid: str, name: str, other_than: str = "") -> bool:
    """Case-insensitive in any script (SQLite's ``lower`` folds ASCII only)."""
    wanted = name.casefold()
    return any(
        existing.casefold() == wanted
        for (existing,) in conn.execute(
            "SELECT group_name FROM groups WHERE domain_uuid = ? AND group_uuid != ?",
            (domain_uuid, other_than),
        )
    )


def group_wire(conn: sqlite3.Connection, group_uuid: str) -> Group:
    sql = f"SELECT {GROUP_COLUMNS} FROM groups g WHERE g.group_uuid = ?"
    return group_of(conn.execute(sql, (group_uuid,)).fetchone())


@router.post("/v3/group", **json_route(GroupCreate, GroupCreated, 409))
async def create_group(request: Request, domain: CurrentDomain) -> Response:
    emu = emulator(request)
    create = _checked(GroupCreate, await read_object(request))
    if _taken(emu.conn, domain.domain_uuid, create.group_name):
        raise string_error(f"group {create.group_name} already exists", 409)
    group_uuid = fd.new_uuid(emu.sim.rng)
    with emu.store.tx() as conn:
        seq = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM groups").fetchone()[0]
        conn.execute(
            "INSERT INTO groups VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                group_uuid,
                domain.domain_uuid,
                seq,
                create.group_name,
                create.group_description or "",
                "",
                0,
            ),
        )
    return json_response(GroupCreated(created=True, group_uuid=group_uuid))


@router.put("/v3/group/{group_uuid}", **json_route(GroupUpdate, GroupUpdated, 404, 409))
async def update_group(request: Request, domain: CurrentDomain, group_uuid: str) -> Response:
    emu = emulator(request)
    conn = emu.conn
    update = _checked(GroupUpdate, await read_object(request))
    owned(conn, "groups", domain.domain_uuid, group_uuid)
    if _taken(conn, domain.domain_uuid, update.group_name, other_than=group_uuid):
        raise string_error(f"group {update.group_name} already exists", 409)
    for table, wanted in (("users", update.user_assigns), ("campaigns", update.campaign_assigns)):
        for value in wanted or []:
            owned(conn, table, domain.domain_uuid, value, what=f"{table[:-1]} {value}")
    with emu.store.tx():
        conn.execute(
            "UPDATE groups SET group_name = ?, group_description = COALESCE(?, group_description), "
            "group_priority = COALESCE(?, group_priority), "
            "department_uuid = COALESCE(?, department_uuid) WHERE group_uuid = ?",
            (
                update.group_name,
                update.group_description,
                update.group_priority,
                update.department_uuid,
                group_uuid,
            ),
        )
        if update.user_assigns is not None:
            conn.execute("DELETE FROM group_users WHERE group_uuid = ?", (group_uuid,))
            conn.executemany(
                "INSERT OR IGNORE INTO group_users VALUES (?, ?)",
                [(group_uuid, u) for u in update.user_assigns],
            )
        if update.campaign_assigns is not None:
            conn.execute("DELETE FROM group_campaigns WHERE group_uuid = ?", (group_uuid,))
            conn.executemany(
                "INSERT OR IGNORE INTO group_campaigns VALUES (?, ?)",
                [(group_uuid, c) for c in update.campaign_assigns],
            )
    return json_response(GroupUpdated(data=group_wire(conn, group_uuid), message="group updated"))
