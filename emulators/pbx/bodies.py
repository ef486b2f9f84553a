"""Reading JSON bodies the way the service does.

The service validates bodies with a JSON schema (its ``(root)`` error key gives away
gojsonschema), so the emulator reports problems the same way: a missing top-level
member as ``{"(root)": "<member> is required"}``, a value of the wrong JSON type as
``{"<field>": "Invalid type. Expected: string, given: integer"}``.  Types are checked
strictly against the request models of ``callcenter.models`` (``"5"`` is not an
integer), unknown members are ignored, and malformed JSON is a plain-string 400.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from fastapi import Request
from pydantic import BaseModel, ValidationError

from callcenter.rules import FieldErrors, required_message
from emulators.pbx.errors import field_errors, invalid_type, string_error

M = TypeVar("M", bound=BaseModel)

_UNION_TAGS = {"str", "int", "float", "bool", "none", "list", "dict"}
_EXPECTED = {
    "string_type": "string",
    "int_type": "integer",
    "int_parsing": "integer",
    "int_from_float": "integer",
    "float_type": "number",
    "float_parsing": "number",
    "bool_type": "boolean",
    "bool_parsing": "boolean",
    "list_type": "array",
    "dict_type": "object",
    "model_type": "object",
    "model_attributes_type": "object",
}


def _reject_constant(name: str) -> Any:
    raise ValueError(f"invalid character '{name[0]}' looking for beginning of value")


async def read_json(request: Request) -> Any:
    raw = await request.body()
    if not raw.strip():
        raise string_error("unexpected end of JSON input")
    try:
        return json.loads(raw, parse_constant=_reject_constant)
    except (ValueError, RecursionError) as exc:
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise string_error(f"invalid JSON body: {reason}") from None


async def read_object(request: Request) -> dict[str, Any]:
    """The body as a JSON object; anything else is a ``(root)`` type error."""
    body = await read_json(request)
    if not isinstance(body, dict):
        raise field_errors([{"(root)": invalid_type("object", body)}])
    return body


@dataclass
class Checked(Generic[M]):
    model: M | None
    errors: FieldErrors = field(default_factory=list)
    """``(root)`` errors for missing members first, then type errors, in field order."""
    bad: set[str] = field(default_factory=set)
    """Top-level members that are missing or of the wrong type."""


def _path(loc: tuple[int | str, ...]) -> list[str]:
    parts: list[str] = []
    for part in loc:
        if isinstance(part, str) and ("[" in part or part in _UNION_TAGS):
            continue  # a union member's tag, not a field
        parts.append(str(part))
    return parts


def check(model: type[M], body: dict[str, Any]) -> Checked[M]:
    """Validate ``body`` against ``model`` strictly, collecting the service's error items."""
    try:
        return Checked(model.model_validate(body, strict=True))
    except ValidationError as exc:
        missing: FieldErrors = []
        typed: FieldErrors = []
        seen: set[str] = set()
        bad: set[str] = set()
        for err in exc.errors():
            parts = _path(err["loc"])
            if not parts:
                continue
            bad.add(parts[0])
            if err["type"] == "missing":
                owner = ".".join(parts[:-1]) or "(root)"
                key = f"{owner}|{parts[-1]}"
                if key not in seen:
                    seen.add(key)
                    missing.append({owner: required_message(parts[-1])})
                continue
            name = ".".join(parts)
            if name in seen:
                continue
            seen.add(name)
            expected = _EXPECTED.get(err["type"])
            if err["type"] == "literal_error":
                choices = err.get("ctx", {}).get("expected", "")
                typed.append({name: f"{name} must be one of the following: {choices}"})
            elif expected is not None:
                typed.append({name: invalid_type(expected, err.get("input"))})
            else:
                typed.append({name: str(err["msg"])})
        return Checked(None, missing + typed, bad)


async def read_checked(request: Request, model: type[M]) -> tuple[dict[str, Any], Checked[M]]:
    """The body as a JSON object and its strict check against ``model``, for a handler
    that adds its own rules to the errors the model finds."""
    body = await read_object(request)
    return body, check(model, body)


def one_of(body: dict[str, Any], name: str, allowed: tuple[str, ...]) -> FieldErrors:
    """An enumerated string member, checked only when present and a string."""
    value = body.get(name)
    if isinstance(value, str) and value not in allowed:
        choices = ", ".join(f'"{a}"' for a in allowed)
        return [{name: f"{name} must be one of the following: {choices}"}]
    return []
