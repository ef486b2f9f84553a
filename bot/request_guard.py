"""The door: what Slack never sends is refused before Bolt or the callback receiver reads
a body (an aiohttp middleware), and each request is acted on once, by any process: Bolt's
middleware (``bot.listeners.context``) claims a command or interaction by its signature
and an event by its ``event_id`` (which Slack's resends share), in the database and in
the same trip as who asks, before any listener runs.  A claim the busy database refused
is made in the background, and the listener waits for it.  Each refusal gets one log
line (docs/door.md: each guarantee, with its test)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestPayloadError
from slack_bolt.async_app import AsyncBoltRequest
from slack_sdk.signature import SignatureVerifier

from bot import bounded_json, slack_shapes
from bot.runtime import Runtime
from commands.dispatch import database_busy
from commands.kernel.reply import Reply
from storage import Requester, Storage, off_loop, off_loop_quick, patience
from storage.errors import StorageBusyError

log = logging.getLogger(__name__)

MAX_SKEW = 300  # seconds a timestamp may be off (Slack's rule, and Bolt's)
MAX_DEPTH = 32  # Slack's own payloads stay far below (a modal's state is about 6 deep)
MAX_VALUES = 20_000  # a 100-block modal with its state is a few thousand
MAX_FORM_FIELDS = 100
SLASH_COMMAND_FIELDS = ("command", "team_id", "user_id", "response_url")
RETRY_AFTER = "5"
QUICK_LOCK_WAIT = 0.2  # seconds a claim waits for another writer's lock (one try)
CLAIM_WINDOW = 10.0  # seconds after signing by which a claim must be made for the work to run
SUBMISSION_LOCK_WAIT = 0.5  # a form's pending claim waits this long: its answer is due in 3
KEEP_SECONDS = 330.0  # a claim left to the background is held this long once made
Claim = asyncio.Task[bool | None]  # made in the background: True, False (a replay), None
_TIMESTAMP = re.compile(r"^[0-9]{1,12}$")
_SIGNATURE = re.compile(r"^v0=[0-9a-f]{64}$")
SERVER_LOG = logging.getLogger("callops.http")  # aiohttp's (``AppRunner(logger=...)``)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _parser_refusal(record: logging.LogRecord) -> bool:
    """What aiohttp's HTTP parser refused is the sender's mistake: one line, no traceback."""
    exc = record.exc_info[1] if record.exc_info else None
    if isinstance(exc, RequestPayloadError):
        return False  # a body left unread or cut short: its request was answered (a 415)
    if not isinstance(exc, HttpProcessingError):
        return True
    reason = exc.message.splitlines()[0] if exc.message else type(exc).__name__
    record.msg = "refused a malformed HTTP request (%s %s): %s"
    record.args = (exc.code, type(exc).__name__, reason[:200])
    record.levelno, record.levelname = logging.INFO, "INFO"
    record.exc_info = record.exc_text = None
    return True


SERVER_LOG.addFilter(_parser_refusal)


class Refused(Exception):
    """The answer to a request that must go no further, and its one log line."""

    def __init__(self, status: int, error: str, why: str = "") -> None:
        super().__init__(status, error, why)
        self.status, self.error, self.why = status, error, why
        self.body = json.dumps({"ok": False, "error": error})
        retry = {"Retry-After": RETRY_AFTER} if status == 503 else {}
        self.headers = {"Content-Type": "application/json", **retry}

    def log(self, where: str) -> None:  # a 5xx is ours to look into
        level = logging.WARNING if self.status >= 500 else logging.INFO
        log.log(level, "refused %s: %s%s", where, self.error, self.why and f" ({self.why})")


def _check_body(text: str, content_type: str) -> None:
    """400 unless the body is as Slack sends it, read as Bolt reads it
    (``slack_bolt.request.internals.parse_body``)."""
    payload = text
    if content_type != "application/json" and not text.startswith("{"):
        try:
            form = parse_qsl(text, keep_blank_values=True, max_num_fields=MAX_FORM_FIELDS)
        except ValueError:
            raise Refused(400, "too_many_form_fields") from None
        fields, payloads = dict(form), [value for key, value in form if key == "payload"]
        if "command" in fields and not all(fields.get(f) for f in SLASH_COMMAND_FIELDS):
            raise Refused(400, "slash_command_without_team_user_or_response_url")
        if len(payloads) > 1:
            raise Refused(400, "payload_not_a_json_object")
        if "payload" not in fields:
            return
        payload = fields["payload"]
    try:  # a form's payload, or the JSON body
        data = bounded_json.loads(payload, max_depth=MAX_DEPTH, max_values=MAX_VALUES)
    except bounded_json.JsonRefused as exc:
        raise Refused(400, "malformed_json: " + exc.reason) from None
    if not isinstance(data, dict):
        raise Refused(400, "payload_not_a_json_object")
    if wrong := slack_shapes.problem(data):
        raise Refused(400, "malformed_payload: " + wrong)


@dataclass
class SlackRequestGuard:
    """The aiohttp middleware on ``path`` (Slack) and under ``callbacks`` (their encoding)."""

    signing_secret: str | None
    path: str
    callbacks: str

    async def check(self, request: web.Request) -> None:
        """``Refused`` unless Bolt may see the request."""
        if "Content-Encoding" in request.headers:  # verified as sent: aiohttp would undo it
            raise Refused(415, "content_encoding_not_accepted")
        if request.path != self.path:
            return
        timestamp = request.headers.get("X-Slack-Request-Timestamp", "")
        signature = request.headers.get("X-Slack-Signature", "")
        if not _TIMESTAMP.match(timestamp):
            raise Refused(401, "missing_or_malformed_timestamp")
        if abs(time.time() - int(timestamp)) > MAX_SKEW:
            raise Refused(401, "stale_timestamp")
        if not _SIGNATURE.match(signature):
            raise Refused(401, "missing_or_malformed_signature")
        try:
            text = (await request.read()).decode("utf-8")  # at most client_max_size
        except UnicodeDecodeError:
            raise Refused(401, "invalid_signature") from None  # Slack signs UTF-8 only
        secret = self.signing_secret
        if not secret or not SignatureVerifier(secret).is_valid(text, timestamp, signature):
            raise Refused(401, "invalid_signature")
        _check_body(text, request.content_type)

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        path = request.path
        if request.method != "POST" or not (path == self.path or path.startswith(self.callbacks)):
            return await handler(request)
        try:
            await self.check(request)
        except Refused as refused:
            shown = path if path == self.path else self.callbacks + "…"  # not the token
            refused.log(f"POST {shown} from {request.remote}")
            reply = web.Response(status=refused.status, text=refused.body, headers=refused.headers)
            if refused.status == 415:
                reply.force_close()  # its body is not read: the client's next request waits not
            return reply
        return await handler(request)


def claim(
    storage: Storage, team: str, key: str, asker: tuple[str, str] | None, *, quick: bool = True
) -> tuple[bool, Requester | None]:
    """True the first time any process claims ``key``, with what the context reads of
    ``asker`` (``Storage.first_request``); ``quick`` waits at most ``QUICK_LOCK_WAIT`` for
    another writer's lock, once.  Blocking (a database write)."""
    with patience(QUICK_LOCK_WAIT, tries=1) if quick else contextlib.nullcontext():
        return storage.first_request(team, key, asker)


async def _claim_until(rt: Runtime, signature: str, run_by: float) -> bool | None:
    """A claim the busy database refused, tried with its usual patience till ``run_by``."""
    try:
        while True:
            with contextlib.suppress(StorageBusyError):
                key = "sig:" + signature
                first, _ = await off_loop(claim, rt.storage, "*", key, None, quick=False)
                # Made once its window had closed: another process would refuse it now.
                return None if first and time.time() > run_by else first
            if time.time() >= run_by:
                return None
    except Exception as exc:
        log.warning("slack request: claim not made (%s)", type(exc).__name__)
        return None
    finally:
        asyncio.get_running_loop().call_later(KEEP_SECONDS, rt.held_claims.pop, signature, None)


async def first_time(
    rt: Runtime, req: AsyncBoltRequest, team: str | None, user: str | None
) -> tuple[Claim | None, Requester | None]:
    """``Refused`` unless no process has seen the request yet: its claim made (with who
    asks, when Bolt names them), or left to the background (``claimed`` waits for it)."""
    body, headers = req.body, req.headers
    asker = (team, user) if team and user else None
    if body.get("type") == "event_callback":
        signature, run_by, event_id = "", 0.0, body.get("event_id")
        key = str(event_id) if event_id and team else None
    else:  # a command or interaction over HTTP (Socket Mode's are not signed)
        team, signature = "*", (headers.get("x-slack-signature") or [""])[0]
        stamp = (headers.get("x-slack-request-timestamp") or [""])[0]
        run_by = (int(stamp) if stamp.isdigit() else 0) + CLAIM_WINDOW
        key = "sig:" + signature if signature else None
        if key and (time.time() > run_by or signature in rt.held_claims):
            raise Refused(401, "replayed_request")
    if key is None or team is None:
        return None, None
    try:
        first, known = await off_loop_quick(claim, rt.storage, team, key, asker)
    except StorageBusyError:
        if not signature:  # before the acknowledgement: Slack resends an event refused now
            raise Refused(503, "try_again_later", "database busy") from None
        if signature in rt.held_claims:  # the same request, sent twice at once
            raise Refused(401, "replayed_request") from None
        rt.held_claims[signature] = claiming = rt.background.spawn(
            _claim_until(rt, signature, run_by), name="callops-claim"
        )
        log.info("slack request: database busy; its claim left to the background")
        return claiming, None
    except Exception as exc:  # the database, whatever its engine, is unavailable
        raise Refused(503, "try_again_later", type(exc).__name__) from None
    if not first and not signature:  # Slack's resend of an event: answered, not acted on
        raise Refused(200, "already_handled", f"event {key}")
    if not first:
        raise Refused(401, "replayed_request")
    return None, known


async def claimed(
    claiming: Claim | None,
    tell: Callable[[Reply], Awaitable[Any]] | None,
    *,
    lock_wait: float | None = None,
) -> bool:
    """True if the request may go on: claimed before the ack, or by ``claiming`` within
    ``lock_wait`` s; else a replay, or busy (``tell`` is told so) and nothing was done."""
    if claiming is None:
        return True
    done, _ = await asyncio.wait([claiming], timeout=lock_wait)
    first = claiming.result() if done else None
    if first is None:
        log.warning("request refused: the database stayed busy; nothing was done")
        if tell is not None:
            await tell(database_busy())
    elif not first:
        log.info("replayed request ignored (its claim was made after the ack)")
    return bool(first)
