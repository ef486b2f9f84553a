"""4.6 Users: list, read and update.

A user update changes only what the body carries beyond the required members (unlike a
campaign update), checks the spec's name and password rules with ``callcenter.rules``,
and refuses a username or extension another user of the domain already has (409).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import Response

from callcenter.models import Group, Page, User, UserUpdate, UserUpdated
from callcenter.rules import FieldErrors, check_name, check_password
from emulators.pbx import fakedata as fd
from emulators.pbx.auth import CurrentDomain
from emulators.pbx.bodies import one_of, read_checked
from emulators.pbx.errors import field_errors, not_found, string_error
from emulators.pbx.openapi import json_route, responses
from emulators.pbx.owned import owned
from emulators.pbx.paging import Limit, Offset, json_response, page_response, paging
from emulators.pbx.reports import GROUP_COLUMNS, group_of
from emulators.pbx.seed import password_hash
from emulators.pbx.state import emulator

router = APIRouter(tags=["users and groups"])

LEVELS = ("admin", "supervisor", "agent")
_USER_COLUMNS = (
    "u.user_uuid, u.domain_uuid, u.username, u.user_enabled, u.user_status, u.level, "
    "u.last_name, u.middle_name, u.first_name, u.role_uuid, r.role_name, u.email, "
    "u.enable_webrtc, u.extension"
)


def groups_of(conn: sqlite3.Connection, user_uuid: str) -> list[Group]:
    return [
        group_of(g)
        for g in conn.execute(
            f"SELECT {GROUP_COLUMNS} FROM groups g JOIN group_users gu "
            "ON gu.group_uuid = g.group_uuid WHERE gu.user_uuid = ? ORDER BY g.seq",
            (user_uuid,),
        )
    ]


def _user(conn: sqlite3.Connection, row: tuple[Any, ...]) -> User:
    groups = groups_of(conn, row[0])
    campaigns = [
        {"campaign_uuid": c[0], "campaign_name": c[1]}
        for c in conn.execute(
            "SELECT DISTINCT c.campaign_uuid, c.campaign_name FROM campaigns c "
            "JOIN group_campaigns gc ON gc.campaign_uuid = c.campaign_uuid "
            "JOIN group_users gu ON gu.group_uuid = gc.group_uuid WHERE gu.user_uuid = ? "
            "ORDER BY c.seq",
            (row[0],),
        )
    ]
    return User(
        user_uuid=row[0],
        domain_uuid=row[1],
        username=row[2],
        api_key="",
        user_enabled=row[3],
        user_status=row[4],
        group_name=groups[0].group_name if groups else "",
        level=row[5],
        last_name=row[6],
        middle_name=row[7],
        first_name=row[8],
        groups=groups or None,
        campaigns=campaigns or None,
        role_uuid=row[9],
        role_name=row[10] or "",
        email=row[11],
        enable_webrtc=bool(row[12]),
        extension=row[13],
    )


def _select(where: str) -> str:
    return (
        f"SELECT {_USER_COLUMNS} FROM users u LEFT JOIN roles r ON r.role_uuid = u.role_uuid "
        f"WHERE {where}"
    )


@router.get("/v3/user", responses=responses(Page[User], 400, 401))
async def list_users(
    request: Request,
    domain: CurrentDomain,
    limit: Limit = None,
    offset: Offset = None,
) -> Response:
    conn = emulator(request).conn
    size, skip = paging(limit, offset)
    total = conn.execute(
        "SELECT COUNT(*) FROM users WHERE domain_uuid = ?", (domain.domain_uuid,)
    ).fetchone()[0]
    rows = conn.execute(
        _select("u.domain_uuid = ? ORDER BY u.seq LIMIT ? OFFSET ?"),
        (domain.domain_uuid, size, skip),
    ).fetchall()
    return page_response([_user(conn, r).model_dump_json() for r in rows], size, skip, total)


@router.get("/v3/user/{user_uuid}", responses=responses(User, 401, 404))
async def get_user(request: Request, domain: CurrentDomain, user_uuid: str) -> Response:
    conn = emulator(request).conn
    row = conn.execute(
        _select("u.domain_uuid = ? AND u.user_uuid = ?"), (domain.domain_uuid, user_uuid)
    ).fetchone()
    if row is None:
        raise not_found("user")
    return json_response(_user(conn, row))


@router.put("/v3/user/{user_uuid}", **json_route(UserUpdate, UserUpdated, 404, 409))
async def update_user(request: Request, domain: CurrentDomain, user_uuid: str) -> Response:
    emu = emulator(request)
    conn = emu.conn
    body, checked = await read_checked(request, UserUpdate)
    errors: FieldErrors = list(checked.errors)
    if "username" not in checked.bad:
        errors += check_name(body["username"], "username")
    if "password" not in checked.bad:
        errors += check_password(body["password"])
    if errors:
        raise field_errors(errors)
    errors = one_of(body, "level", LEVELS)
    if body["password"] != body["confirm_password"]:
        errors.append({"confirm_password": "confirm_password does not match password"})
    if errors:
        raise field_errors(errors)
    update = UserUpdate.model_validate(body)
    current = owned(conn, "users", domain.domain_uuid, user_uuid, "extension, extension_uuid")
    owned(conn, "roles", domain.domain_uuid, update.role_uuid)
    if conn.execute(
        "SELECT 1 FROM users WHERE domain_uuid = ? AND username = ? AND user_uuid != ?",
        (domain.domain_uuid, update.username, user_uuid),
    ).fetchone():
        raise string_error(f"username {update.username} already exists", 409)
    extension, extension_uuid = current
    if update.is_create_extension:
        taken = {
            int(e)
            for (e,) in conn.execute(
                "SELECT extension FROM users WHERE domain_uuid = ?", (domain.domain_uuid,)
            )
            if e.isdigit()
        }
        extension = str(max(taken, default=1000) + 1)
        extension_uuid = fd.new_uuid(emu.sim.rng)
    elif update.extension and update.extension != extension:
        if conn.execute(
            "SELECT 1 FROM users WHERE domain_uuid = ? AND extension = ? AND user_uuid != ?",
            (domain.domain_uuid, update.extension, user_uuid),
        ).fetchone():
            raise string_error(f"extension {update.extension} is already in use", 409)
        extension, extension_uuid = update.extension, fd.new_uuid(emu.sim.rng)
    changes: dict[str, Any] = {
        "username": update.username,
        "level": update.level,
        "role_uuid": update.role_uuid,
        "password_hash": password_hash(update.password),
        "extension": extension,
        "extension_uuid": extension_uuid,
    }
    if update.email is not None:
        changes["email"] = update.email
    if update.first_name is not None:
        changes["first_name"] = update.first_name
    if update.enable_webrtc is not None:
        changes["enable_webrtc"] = int(update.enable_webrtc)
    if update.is_active is not None:
        changes["user_enabled"] = "true" if update.is_active else "false"
    assignments = ", ".join(f"{k} = ?" for k in changes)
    with emu.store.tx():
        conn.execute(
            f"UPDATE users SET {assignments} WHERE user_uuid = ?", [*changes.values(), user_uuid]
        )
    return json_response(UserUpdated(extension_uuid=extension_uuid, user_uuid=user_uuid))
