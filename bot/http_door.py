"""What the HTTP server refuses before anything reads a body, with one log line each.

- ``Content-Encoding`` on ``/slack/events`` or ``/callbacks/…``: Slack and the call-center
  service send plain bodies, and a body is verified (signature, token) on the bytes as
  sent.  aiohttp would decompress a ``gzip`` or ``deflate`` body while reading it, before
  the signature is checked, and a body that is not compressed as it says raised out of
  the read as a 500 with a traceback, from anyone.  Such a request gets 415 at once.
- Requests aiohttp's own parser refuses (a header too long, an HTTP version it does not
  know, a bad ``Content-Length``, both ``Content-Length`` and ``Transfer-Encoding``) are
  answered 400 by aiohttp, which logged each with a traceback: ``SERVER_LOG`` is the
  server's logger, whose filter makes such a refusal one line.  A traceback that is a
  real error of the server stays.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestPayloadError

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

SERVER_LOG = logging.getLogger("callops.http")
"""The logger aiohttp's request handler writes to (``AppRunner(logger=...)``)."""


class ParserRefusals(logging.Filter):
    """A request the HTTP parser refused is the sender's mistake, not ours: the line says
    what was refused, without the parser's traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        raised = record.exc_info[1] if record.exc_info else None
        exc = _parser_error(raised)
        if isinstance(raised, RequestPayloadError) and exc is not None:
            # The unread body of a request already answered (a 415 above), which aiohttp
            # drains after the answer and cannot decode: the request has its line already.
            return False
        if exc is not None:
            reason = exc.message.splitlines()[0] if exc.message else type(exc).__name__
            record.msg = "refused a malformed HTTP request (%s %s): %s"
            record.args = (exc.code, type(exc).__name__, reason[:200])
            record.levelno, record.levelname = logging.INFO, "INFO"
            record.exc_info = None
            record.exc_text = None
        return True


def _parser_error(exc: BaseException | None) -> HttpProcessingError | None:
    """The parser's refusal ``exc`` is, or was raised from."""
    for _ in range(4):
        if exc is None or isinstance(exc, HttpProcessingError):
            return exc
        exc = exc.__cause__
    return None


SERVER_LOG.addFilter(ParserRefusals())


def encoded_body_refusal(*paths: str) -> Any:
    """A middleware answering 415 to a request with a ``Content-Encoding`` on ``paths`` (a
    path ending in ``/`` covers everything under it)."""
    exact = frozenset(p for p in paths if not p.endswith("/"))
    prefixes = tuple(p for p in paths if p.endswith("/"))

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        guarded = request.path in exact or request.path.startswith(prefixes)
        if guarded and "Content-Encoding" in request.headers:
            log.info(
                "refused %s %s from %s: content_encoding_not_accepted",
                request.method,
                request.path if request.path in exact else request.path.rsplit("/", 1)[0] + "/…",
                request.remote,
            )
            refusal = web.json_response(
                {"ok": False, "error": "content_encoding_not_accepted"}, status=415
            )
            # The unread body is not read on this connection: a client sends its next
            # request on a new one instead of waiting behind it.
            refusal.force_close()
            return refusal
        return await handler(request)

    return middleware
