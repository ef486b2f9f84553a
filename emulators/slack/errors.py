"""Slack's way of failing: HTTP 200 with ``{"ok": false, "error": code}``, except a few."""

from __future__ import annotations

from typing import Any


class SlackError(Exception):
    """Raised by a Web API method; the server turns it into Slack's error body.

    ``extra`` carries the additional keys Slack adds to some errors (``errors`` and
    ``response_metadata`` for ``invalid_blocks``, ``needed``/``provided`` for scopes).
    """

    def __init__(
        self,
        code: str,
        *,
        status: int = 200,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(code)
        self.code = code
        self.status = status
        self.headers = headers or {}
        self.extra = extra or {}

    def body(self) -> dict[str, Any]:
        return {"ok": False, "error": self.code, **self.extra}


def invalid_blocks(problems: list[str]) -> SlackError:
    """The error Slack answers when a message or view breaks Block Kit's schema or limits."""
    return SlackError(
        "invalid_blocks",
        extra={
            "errors": list(problems),
            "response_metadata": {"messages": [f"[ERROR] {p}" for p in problems]},
        },
    )
