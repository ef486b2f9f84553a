"""Field rules of spec sections 7 and 8, shared by the client and the emulator.

The client runs them before sending so a bad phone number fails fast with no network
call; the emulator runs the very same functions so its error bodies match what the
client predicts.  Each check returns the service's field-error items,
``[{"<field>": "<message>"}, ...]``, empty when the value is fine.

The message texts follow the JSON-schema validator the service's ``(root)`` key betrays
(gojsonschema).  The phone rule reports a minimum-length message *and* a pattern message
for an empty number (spec 7.2); we take the minimum length to be 10, the shortest number
the pattern admits, so a short wrong number gets both messages and a long wrong one only
the pattern message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

PHONE_PATTERN = r"^(84|0[3|5|7|8|9])+([0-9]{8})$"
"""Verbatim from the spec, including the ``|`` inside the character class."""
PHONE_RE = re.compile(PHONE_PATTERN)
PHONE_MIN_LENGTH = 10

LIST_UUID_MIN_LENGTH = 36

NAME_PATTERN = r"^[\w\s.\-]+$"
"""Letters, digits, whitespace, dot, hyphen and underscore (``\\w`` covers the underscore)."""
NAME_RE = re.compile(NAME_PATTERN)

FieldErrors = list[dict[str, str]]


def min_length_message(n: int) -> str:
    return f"String length must be greater than or equal to {n}"


def pattern_message(pattern: str) -> str:
    return f"Does not match pattern '{pattern}'"


def required_message(member: str) -> str:
    return f"{member} is required"


def check_phone(phone: str, field: str = "phone_number") -> FieldErrors:
    errors: FieldErrors = []
    if len(phone) < PHONE_MIN_LENGTH:
        errors.append({field: min_length_message(PHONE_MIN_LENGTH)})
    if not PHONE_RE.match(phone):
        errors.append({field: pattern_message(PHONE_PATTERN)})
    return errors


def is_valid_phone(phone: str) -> bool:
    return not check_phone(phone)


def check_list_uuid(list_uuid: str) -> FieldErrors:
    if len(list_uuid) < LIST_UUID_MIN_LENGTH:
        return [{"list_uuid": min_length_message(LIST_UUID_MIN_LENGTH)}]
    return []


def check_name(value: str, field: str) -> FieldErrors:
    """``group_name`` and ``username``: at least one character of the allowed set."""
    errors: FieldErrors = []
    if len(value) < 1:
        errors.append({field: min_length_message(1)})
    if not NAME_RE.match(value):
        errors.append({field: pattern_message(NAME_PATTERN)})
    return errors


def check_password(value: str) -> FieldErrors:
    if len(value) < 1:
        return [{"password": min_length_message(1)}]
    return []


def check_lead(body: Mapping[str, Any]) -> FieldErrors:
    """POST /v3/lead (rules 7.1 and 7.2)."""
    return check_list_uuid(str(body.get("list_uuid") or "")) + check_phone(
        str(body.get("phone_number") or "")
    )


def check_autocall(body: Mapping[str, Any]) -> FieldErrors:
    """POST /v3/autocall/import: required members reported under ``(root)`` (rule 7.4)."""
    return [
        {"(root)": required_message(member)}
        for member in ("campaign_uuid", "phone_number", "param")
        if member not in body
    ]


def check_group_name(group_name: str) -> FieldErrors:
    return check_name(group_name, "group_name")


def check_user_update(body: Mapping[str, Any]) -> FieldErrors:
    """PUT /v3/user/{uuid}: username rule and a non-empty password (rule 7.6)."""
    return check_name(str(body.get("username") or ""), "username") + check_password(
        str(body.get("password") or "")
    )


def check_lead_multi(body: Mapping[str, Any]) -> FieldErrors:
    """POST /v3/lead/multi: the ``list_uuid`` length, then each item's phone number, the
    item named by its position (``data.<i>.phone_number``), so one bad row rejects the
    request before anything is inserted.  A missing ``list_uuid`` is not a field error
    but the plain string ``list_uuid is missing`` (rule 7.3)."""
    errors = check_list_uuid(str(body.get("list_uuid") or ""))
    items = body.get("data")
    if isinstance(items, list):
        for i, item in enumerate(items):
            if isinstance(item, Mapping):
                errors += check_phone(
                    str(item.get("phone_number") or ""), field=f"data.{i}.phone_number"
                )
    return errors
