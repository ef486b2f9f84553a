"""``/openapi.json``: the emulated interface, with request and response schemas taken
from ``callcenter.models``.

Handlers read their JSON bodies themselves (to answer in the service's error shapes
rather than FastAPI's 422), so request bodies are declared here and their model schemas
merged into the document's components.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from callcenter.models import FieldErrorBody, StringErrorBody, TransferFailBody

_REQUEST_MODELS: dict[str, type[BaseModel]] = {}

_ERRORS: dict[int, dict[str, Any]] = {
    400: {
        "model": FieldErrorBody,
        "description": "Validation failure: field errors "
        '(`{"error": [{field: message}]}`) or a plain string error',
    },
    401: {"model": StringErrorBody, "description": "Missing, unknown or expired token"},
    404: {"model": StringErrorBody, "description": "Unknown resource"},
    409: {"model": StringErrorBody, "description": "Duplicate name"},
}


def responses(model: Any, *codes: int, transfer: bool = False) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` of an endpoint: its success model and its error shapes."""
    out: dict[int | str, dict[str, Any]] = {200: {"model": model, "description": "Success"}}
    for code in codes:
        out[code] = _ERRORS[code]
    if transfer:
        out[400] = {"model": TransferFailBody, "description": "Transfer refused"}
        out[404] = {"model": TransferFailBody, "description": "No such live call"}
    return out


def json_body(model: type[BaseModel]) -> dict[str, Any]:
    _REQUEST_MODELS[model.__name__] = model
    ref = {"$ref": f"#/components/schemas/{model.__name__}"}
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": ref}}}}


def json_route(
    body: type[BaseModel], result: Any, *codes: int, transfer: bool = False
) -> dict[str, Any]:
    """Route keywords of an endpoint that reads a JSON ``body``: every such body can be
    refused (400) and every such call needs a token or key (401), so ``codes`` names only
    the further errors."""
    always = (401,) if transfer else (400, 401)  # a transfer's 400 is its own shape
    return {
        "responses": responses(result, *always, *codes, transfer=transfer),
        "openapi_extra": json_body(body),
    }


def multipart_body(fields: dict[str, dict[str, Any]], required: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "properties": fields, "required": required}
    return {
        "requestBody": {"required": True, "content": {"multipart/form-data": {"schema": schema}}}
    }


def install(app: FastAPI) -> None:
    def build() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(
            title=app.title, version=app.version, description=app.description, routes=app.routes
        )
        _, defs = models_json_schema(
            [(m, "validation") for m in _REQUEST_MODELS.values()],
            ref_template="#/components/schemas/{model}",
        )
        components = schema.setdefault("components", {}).setdefault("schemas", {})
        for name, definition in defs.get("$defs", {}).items():
            components.setdefault(name, definition)
        app.openapi_schema = schema
        return schema

    app.openapi = build  # type: ignore[method-assign]
