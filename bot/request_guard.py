"""The door in front of Bolt and the callback receiver: what passes is signed, fresh,
well-formed and first-seen; the rest gets one log line (docs/door.md: each guarantee)."""

from __future__ import annotations

import asyncio
import contextlib
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
from slack_sdk.signature import SignatureVerifier

from bot import bounded_json, slack_shapes
from storage import Requester, Storage, off_loop, off_loop_quick, patience
from storage.errors import StorageBusyError

log = logging.getLogger(__name__)

MAX_SKEW = 300  # seconds a timestamp may be off (Slack's rule, and Bolt's)
MAX_DEPTH = 32  # Slack's own payloads stay far below (a modal's state is about 6 deep)
MAX_VALUES = 20_000  # a 100-block modal with its state is a few thousand
MAX_FORM_FIELDS = 100
SLASH_COMMAND_FIELDS = ("command", "team_id", "user_id", "response_url")
RETRY_AFTER = "5"
QUICK_LOCK_WAIT = 0.2  # seconds the door's claim waits for another writer's lock (one try)
CLAIM_WINDOW = 10.0  # seconds after signing by which a claim must be made for the work to run
SUBMISSION_LOCK_WAIT = 0.5  # a form's pending claim waits this long: its answer is due in 3
KEEP_SECONDS = 330.0  # a claim left to the background is held this long once made
_TIMESTAMP = re.compile(r"^[0-9]{1,12}$")
_SIGNATURE = re.compile(r"^v0=[0-9a-f]{64}$")
SERVER_LOG = logging.getLogger("callops.http")  # aiohttp's (``AppRunner(logger=...)``)
Claim = asyncio.Task[bool | None]  # made in the background: True, False (a replay), None
Asker = tuple[str, str]  # the team and user a form request names (Bolt reads the same)
ReadAtDoor = tuple[Asker, Requester]  # read with the claim, in one trip off the loop
HeldClaims = dict[str, Claim | ReadAtDoor]  # by signature (``Runtime.held_claims``)
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _parser_refusal(record: logging.LogRecord) -> bool:
    """What aiohttp's HTTP parser refused is the sender's mistake: one line, no traceback."""
    raised = exc = record.exc_info[1] if record.exc_info else None
    for _ in range(4):  # the parser's refusal, or what it was raised from (no cycle)
        if exc is None or isinstance(exc, HttpProcessingError):
            break
        exc = exc.__cause__
    if not isinstance(exc, HttpProcessingError):
        return True
    if isinstance(raised, RequestPayloadError):
        return False  # the unread body of a request answered already (a 415)
    reason = exc.message.splitlines()[0] if exc.message else type(exc).__name__
    record.msg = "refused a malformed HTTP request (%s %s): %s"
    record.args = (exc.code, type(exc).__name__, reason[:200])
    record.levelno, record.levelname = logging.INFO, "INFO"
    record.exc_info = record.exc_text = None
    return True


SERVER_LOG.addFilter(_parser_refusal)


def claim(
    storage: Storage, team: str, key: str, asker: Asker | None = None, *, quick: bool = True
) -> tuple[bool, Requester | None]:
    """True the first time any process claims ``key``, with what the context reads of
    ``asker`` (``Storage.first_request``); ``quick`` waits at most ``QUICK_LOCK_WAIT`` for
    another writer's lock, once.  Blocking (a database write)."""
    with patience(QUICK_LOCK_WAIT, tries=1) if quick else contextlib.nullcontext():
        return storage.first_request(team, key, asker)


class Refused(Exception):
    """The answer to a request Bolt must not see: ``(status, error)``."""


def _check_body(text: str, content_type: str) -> tuple[bool, Asker | None]:
    """400 unless the body is as Slack sends it, read as Bolt reads it
    (``slack_bolt.request.internals.parse_body``): whether it is an Events API request, and
    who a form request says is asking."""
    payload: str | None = text
    if is_form := content_type != "application/json" and not text.startswith("{"):
        try:
            form = parse_qsl(text, keep_blank_values=True, max_num_fields=MAX_FORM_FIELDS)
        except ValueError:
            raise Refused(400, "too_many_form_fields") from None
        fields, payloads = dict(form), [value for key, value in form if key == "payload"]
        if "command" in fields and not all(fields.get(f) for f in SLASH_COMMAND_FIELDS):
            raise Refused(400, "slash_command_without_team_user_or_response_url")
        if len(payloads) > 1:
            raise Refused(400, "payload_not_a_json_object")
        payload = fields.get("payload")
    if payload is None:
        return False, _asker(fields.get("team_id"), fields.get("user_id"))
    try:
        data = bounded_json.loads(payload, max_depth=MAX_DEPTH, max_values=MAX_VALUES)
    except bounded_json.JsonRefused as exc:
        raise Refused(400, "malformed_json: " + exc.reason) from None
    if not isinstance(data, dict):
        raise Refused(400, "payload_not_a_json_object")
    if wrong := slack_shapes.problem(data):
        raise Refused(400, "malformed_payload: " + wrong)
    return not is_form, _asker(_id(data.get("team")), _id(data.get("user")))


def _id(value: Any) -> Any:
    return value.get("id") if isinstance(value, dict) else value


def _asker(team: Any, user: Any) -> Asker | None:
    return (team, user) if isinstance(team, str) and isinstance(user, str) else None


@dataclass
class SlackRequestGuard:
    """The aiohttp middleware on ``path`` (Slack) and under ``callbacks`` (their encoding)."""

    signing_secret: str | None
    storage: Storage
    path: str
    callbacks: str
    held: HeldClaims
    spawn: Callable[..., asyncio.Task[Any]]  # runs a claim left to the background

    async def check(self, request: web.Request) -> None:
        """``Refused`` unless Bolt may see the request (its claim perhaps pending)."""
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
        is_event, asker = _check_body(text, request.content_type)
        if is_event:
            return  # an event: its event_id is claimed by bot.listeners.context
        run_by = int(timestamp) + CLAIM_WINDOW
        if time.time() > run_by or signature in self.held:
            raise Refused(401, "replayed_request")
        try:
            first, known = await off_loop_quick(claim, self.storage, "*", "sig:" + signature, asker)
        except StorageBusyError:
            if signature in self.held:  # the same request, sent twice at once
                raise Refused(401, "replayed_request") from None
            claiming = self.spawn(self._claim_until(signature, run_by), name="callops-claim")
            self.held[signature] = claiming
            log.info("slack request: database busy; replay claim left to the background")
            return
        except Exception as exc:  # the database, whatever its engine, is unavailable
            log.warning("slack request: replay check unavailable (%s)", type(exc).__name__)
            raise Refused(503, "try_again_later") from None
        if not first:
            raise Refused(401, "replayed_request")
        if asker and known:  # for the context (bot.listeners.context), while it may run
            self.held[signature] = (asker, known)
            asyncio.get_running_loop().call_later(CLAIM_WINDOW, self.held.pop, signature, None)

    async def _claim_until(self, signature: str, run_by: float) -> bool | None:
        """A claim the busy database refused, tried with its usual patience till ``run_by``."""
        try:
            while True:
                with contextlib.suppress(StorageBusyError):
                    first, _ = await off_loop(
                        claim, self.storage, "*", "sig:" + signature, quick=False
                    )
                    # Made once its window had closed: another process would refuse it now.
                    return None if first and time.time() > run_by else first
                if time.time() >= run_by:
                    return None
        except Exception as exc:
            log.warning("slack request: claim not made (%s)", type(exc).__name__)
            return None
        finally:
            asyncio.get_running_loop().call_later(KEEP_SECONDS, self.held.pop, signature, None)

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        path = request.path
        if request.method != "POST" or not (path == self.path or path.startswith(self.callbacks)):
            return await handler(request)
        try:
            await self.check(request)
        except Refused as refused:
            status, error = refused.args
            shown = path if path == self.path else self.callbacks + "…"  # not the token
            log.info("refused POST %s from %s: %s", shown, request.remote, error)
            headers = {"Retry-After": RETRY_AFTER} if status == 503 else None
            reply = web.json_response({"ok": False, "error": error}, status=status, headers=headers)
            if status == 415:
                reply.force_close()  # its body is not read: the client's next request waits not
            return reply
        return await handler(request)
