"""One exception hierarchy for everything that can go wrong talking to the service.

Callers catch by *what went wrong* (the field was bad, the extension is not registered,
the service is down), not by HTTP status: the spec gives no status codes (7.9), so
``callcenter._responses`` classifies by body shape first and status second.

No exception ever carries the API key, the token, or a request body: ``message`` is
built from the response's error text or the transport's own message, and the
request is identified by method and path only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict, Unpack


class Where(TypedDict, total=False):
    """Which request failed: its method and path, and the status it got, if any."""

    status_code: int | None
    method: str | None
    path: str | None


class CallCenterError(Exception):
    """Base of every error raised by the client."""

    def __init__(self, message: str, **where: Unpack[Where]) -> None:
        super().__init__(message)
        self.message = message
        self.status_code = where.get("status_code")
        self.method = where.get("method")
        self.path = where.get("path")

    def __str__(self) -> str:
        where = f" ({self.method} {self.path})" if self.method and self.path else ""
        status = f" [HTTP {self.status_code}]" if self.status_code is not None else ""
        return f"{self.message}{status}{where}"

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(message={self.message!r}, status_code={self.status_code!r}, "
            f"method={self.method!r}, path={self.path!r})"
        )


# --- no usable response ------------------------------------------------------------------


class APIConnectionError(CallCenterError):
    """The transport failed (connect, read, write...).  The request may or may not have
    reached the service, which is why effectful writes are not retried on it."""


class APITimeoutError(APIConnectionError):
    """The request timed out; the service may still have acted on it."""


# --- a response arrived ------------------------------------------------------------------


class APIStatusError(CallCenterError):
    """A response arrived and it is a failure.  ``body`` is the parsed JSON, if any."""

    def __init__(self, message: str, *, body: Any = None, **where: Unpack[Where]) -> None:
        super().__init__(message, **where)
        self.body = body


class FieldValidationError(APIStatusError):
    """``{"error": [{"<field>": "<message>"}, ...]}`` (spec 7): one or more fields are bad.

    ``fields`` maps each field (``(root)`` included, for a missing top-level member) to
    its messages in the order the service gave them; ``items`` keeps the raw list.  The
    client raises the very same error before sending when its own checks
    (``callcenter.rules``) already know the answer; then ``status_code`` is None.
    """

    def __init__(
        self, items: Sequence[Mapping[str, str]], *, body: Any = None, **where: Unpack[Where]
    ) -> None:
        self.items: list[dict[str, str]] = [dict(item) for item in items]
        self.fields: dict[str, list[str]] = {}
        for item in self.items:
            for field, text in item.items():
                self.fields.setdefault(field, []).append(str(text))
        summary = "; ".join(f"{field}: {', '.join(msgs)}" for field, msgs in self.fields.items())
        super().__init__(
            f"invalid fields: {summary}" if summary else "invalid fields",
            body=body if body is not None else {"error": self.items},
            **where,
        )


class ServiceError(APIStatusError):
    """``{"error": "<message>"}``: the service refused the request and said why."""


class NotFoundError(ServiceError):
    """The thing named does not exist (HTTP 404, or an error string saying "not found")."""


class ConflictError(ServiceError):
    """A name is already used ("already exists" / "already taken")."""


class TransferFailedError(APIStatusError):
    """``{"status": "fail", "error": "<CODE>"}``: a call transfer failed; ``code`` says
    why (e.g. ``USER_NOT_REGISTERED``)."""

    def __init__(self, code: str, *, body: Any = None, **where: Unpack[Where]) -> None:
        super().__init__(f"transfer failed: {code}", body=body, **where)
        self.code = code


class AuthenticationError(APIStatusError):
    """HTTP 401/403, or the token endpoint refused the API key."""


class RateLimitError(APIStatusError):
    """HTTP 429.  ``retry_after`` is the wait the service asked for, in seconds."""

    def __init__(
        self,
        message: str,
        *,
        body: Any = None,
        retry_after: float | None = None,
        **where: Unpack[Where],
    ) -> None:
        super().__init__(message, body=body, **where)
        self.retry_after = retry_after


class ServerError(APIStatusError):
    """HTTP 5xx: the service failed; a read may succeed if asked again."""


class UnexpectedResponseError(APIStatusError):
    """The body is not JSON, or does not fit the expected model or any error shape."""


__all__ = [
    "APIConnectionError",
    "APIStatusError",
    "APITimeoutError",
    "AuthenticationError",
    "CallCenterError",
    "ConflictError",
    "FieldValidationError",
    "NotFoundError",
    "RateLimitError",
    "ServerError",
    "ServiceError",
    "TransferFailedError",
    "UnexpectedResponseError",
]
