"""The service's three error shapes (spec section 7) and the status codes the emulator
pairs with them.

The spec gives no status codes; the emulator uses 400 for validation, 401 for
authentication, 404 for unknown resources, 409 for duplicates, and never 422.  Clients
should classify by body shape; the codes are there so they can also use the status.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from callcenter.rules import FieldErrors


class ApiError(Exception):
    """Raised anywhere in a handler; turned into the service's error body."""

    def __init__(self, status_code: int, body: dict[str, Any]) -> None:
        super().__init__(json.dumps(body))
        self.status_code = status_code
        self.body = body


def field_errors(items: FieldErrors, status_code: int = 400) -> ApiError:
    """``{"error": [{"<field>": "<message>"}, ...]}``."""
    return ApiError(status_code, {"error": items})


def string_error(message: str, status_code: int = 400) -> ApiError:
    """``{"error": "<message>"}``."""
    return ApiError(status_code, {"error": message})


def transfer_failed(code: str, status_code: int = 400) -> ApiError:
    """``{"status": "fail", "error": "<CODE>"}``."""
    return ApiError(status_code, {"status": "fail", "error": code})


def not_found(what: str) -> ApiError:
    return string_error(f"{what} not found", 404)


def json_type(value: Any) -> str:
    """The JSON-schema name of a decoded JSON value, as gojsonschema reports it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def invalid_type(expected: str, value: Any) -> str:
    return f"Invalid type. Expected: {expected}, given: {json_type(value)}"


async def api_error_handler(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return JSONResponse(exc.body, status_code=exc.status_code)


async def http_error_handler(request: Request, exc: Exception) -> Response:
    """Unknown paths and methods answer in the service's string shape, not FastAPI's."""
    assert isinstance(exc, StarletteHTTPException)
    message = {404: "not found", 405: "method not allowed"}.get(exc.status_code, str(exc.detail))
    return JSONResponse({"error": message}, status_code=exc.status_code, headers=exc.headers)


_EXPECTED = {
    "int": "integer",
    "float": "number",
    "bool": "boolean",
    "string": "string",
    "literal": "string",
    "enum": "string",
}


async def query_error_handler(request: Request, exc: Exception) -> Response:
    """FastAPI's 422 for a bad query parameter becomes the service's field-error array."""
    assert isinstance(exc, RequestValidationError)
    items: FieldErrors = []
    seen: set[str] = set()
    for err in exc.errors():
        loc = [str(part) for part in err.get("loc", ()) if part not in ("query", "path", "body")]
        field = loc[0] if loc else "(root)"
        if field in seen:
            continue
        seen.add(field)
        kind = str(err.get("type", "")).split("_")[0]
        if kind == "literal":
            expected = err.get("ctx", {}).get("expected", "")
            items.append({field: f"{field} must be one of the following: {expected}"})
        elif kind in _EXPECTED:
            items.append({field: f"{field} must be a valid {_EXPECTED[kind]}"})
        else:
            items.append({field: str(err.get("msg", "invalid value"))})
    return JSONResponse({"error": items}, status_code=400)


async def unexpected_error_handler(request: Request, exc: Exception) -> Response:
    return JSONResponse({"error": "internal server error"}, status_code=500)
