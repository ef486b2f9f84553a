"""Turn an HTTP response into a model or into the right exception.

The spec gives no status codes (7.9), so the body decides first: an ``error`` array
is a field validation failure and ``status: fail`` a failed transfer whatever the
status; for a plain ``error`` string the status then says whether it was the token
(401/403), the rate limit (429) or the service failing (5xx), and the text whether a
thing was missing or a name already taken.  A 2xx carrying an error body is still an
error: some services answer every request with 200.
"""

from __future__ import annotations

import json
import time
from email.utils import parsedate_to_datetime
from functools import lru_cache
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from callcenter import errors

M = TypeVar("M", bound=BaseModel)

_NOT_FOUND_MARKERS = ("not found", "not exist", "does not exist")
_CONFLICT_MARKERS = ("already", "duplicate", "exists")


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds from ``Retry-After``: delta-seconds or an HTTP date; None if absent/bad."""
    if value is None:
        return None
    text = value.strip()
    try:
        return max(float(text), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    current = time.time() if now is None else now
    return max(when.timestamp() - current, 0.0)


def _field_items(raw: list[Any]) -> list[dict[str, str]]:
    items: list[dict[str, str]] = []
    for entry in raw:
        if isinstance(entry, dict):
            items.append({str(k): str(v) for k, v in entry.items()})
        else:
            items.append({"(root)": str(entry)})
    return items


def classify(
    status_code: int,
    body: Any,
    *,
    method: str,
    path: str,
    token_endpoint: bool = False,
    retry_after: float | None = None,
    reason: str = "",
) -> errors.APIStatusError | None:
    """The error this response stands for, or None when it is a success."""
    where: dict[str, Any] = {"status_code": status_code, "method": method, "path": path}
    error_value = body.get("error") if isinstance(body, dict) else None

    if isinstance(body, dict) and body.get("status") == "fail" and isinstance(error_value, str):
        return errors.TransferFailedError(error_value, body=body, **where)
    if isinstance(error_value, list):
        return errors.FieldValidationError(_field_items(error_value), body=body, **where)

    text = error_value if isinstance(error_value, str) and error_value else None
    is_success = 200 <= status_code < 300
    fallback = text or reason or f"HTTP {status_code}"

    if status_code == 429:
        return errors.RateLimitError(fallback, body=body, retry_after=retry_after, **where)
    if status_code in (401, 403) or (token_endpoint and text is not None and status_code < 500):
        return errors.AuthenticationError(fallback, body=body, **where)
    if status_code >= 500:
        return errors.ServerError(fallback, body=body, **where)
    if text is not None:
        lowered = text.lower()
        if status_code == 404 or any(m in lowered for m in _NOT_FOUND_MARKERS):
            return errors.NotFoundError(text, body=body, **where)
        if any(m in lowered for m in _CONFLICT_MARKERS):
            return errors.ConflictError(text, body=body, **where)
        return errors.ServiceError(text, body=body, **where)
    if status_code == 404:
        return errors.NotFoundError(fallback, body=body, **where)
    if not is_success:
        return errors.UnexpectedResponseError(fallback, body=body, **where)
    return None


def _decode(content: bytes) -> tuple[bool, Any]:
    if not content.strip():
        return False, None
    try:
        return True, json.loads(content)
    except ValueError:
        return False, None


def _has_error_key(model: BaseModel) -> bool:
    return "error" in model.model_fields_set or "error" in (model.model_extra or {})


def read_response(
    response: httpx.Response,
    cast: type[M],
    *,
    method: str,
    path: str,
    token_endpoint: bool = False,
) -> M:
    """The parsed model for a success; raises the classified error otherwise.

    The fast path validates the raw bytes straight into the model (one pass in
    pydantic-core) when the body cannot be an error body; everything else is decoded
    once and classified.
    """
    content = response.content
    status_code = response.status_code
    if 200 <= status_code < 300:
        model = _read_fast(content, cast)
        if model is not None:
            return model

    is_json, body = _decode(content)
    failure = classify(
        status_code,
        body,
        method=method,
        path=path,
        token_endpoint=token_endpoint,
        retry_after=parse_retry_after(response.headers.get("retry-after")),
        reason=response.reason_phrase,
    )
    if failure is not None:
        raise failure
    where: dict[str, Any] = {"status_code": status_code, "method": method, "path": path}
    if not is_json:
        raise errors.UnexpectedResponseError("response is not JSON", body=None, **where)
    try:
        return cast.model_validate(body)
    except ValidationError as exc:
        raise errors.UnexpectedResponseError(
            f"response does not fit {cast.__name__}: {exc.error_count()} problem(s)",
            body=body,
            **where,
        ) from None


def _read_fast(content: bytes, cast: type[M]) -> M | None:
    """A 2xx body read straight into ``cast`` in one pass, or None when it may be an
    error body or does not fit (then it is decoded once and classified).

    A frozen ``cast`` (``models.RowPage``: nothing in it can change) is read once for
    the same bytes and the model handed to every caller: a campaign listing is some
    120 KB, and validating it was the largest single cost of ``/callops campaigns``,
    while hashing the bytes costs a tenth of that (``benchmarks/ack.py``)."""
    if cast.model_config.get("frozen"):
        return _read_shared(content, cast)
    return _read_once(content, cast)


@lru_cache(maxsize=16)
def _read_shared(content: bytes, cast: type[M]) -> M | None:
    """``_read_once``, keyed by the answer's own bytes (a few listings, the teams'
    campaigns, at some 120 KB each)."""
    return _read_once(content, cast)


def _read_once(content: bytes, cast: type[M]) -> M | None:
    """On a 2xx only a top-level "error" makes an error body (``classify``).  A model that
    keeps unknown fields shows whether it had one; any other model is not read this way
    when the body holds the word at all."""
    keeps_unknown = cast.model_config.get("extra") == "allow"
    if not keeps_unknown and (b'"error"' in content or b'"fail"' in content):
        return None
    try:
        model = cast.model_validate_json(content)
    except ValidationError:
        return None
    if keeps_unknown and _has_error_key(model):
        return None
    return model


__all__ = ["classify", "parse_retry_after", "read_response"]
