"""The door of the HTTP server: what reaches Bolt is signed, fresh, well-formed and
first-seen; everything else is answered here with one log line and no traceback.

``docs/door.md`` lists every guarantee and the test that shows it.  In short, on
``POST /slack/events`` (``SlackRequestGuard``): 401 for a timestamp or signature that is
missing, malformed, 5 minutes off or wrong (checked on the headers before the body is
read; the body is read no further than aiohttp's ``client_max_size``: 413), 400 for a
signed body Slack never sends (``_check_body``), 401 for a replay; on it and on
``/callbacks/…``, 415 for a ``Content-Encoding`` (``encoded_body_refusal``); and what
aiohttp's own parser refuses is logged as one line (``ParserRefusals``).

A replay is refused by every process: a slash command's or an interaction's signature
is claimed in the database (``DedupStore.mark_event``) before Bolt sees it.  An Events
API request is not claimed here: Slack resends events (signed anew) and the event dedup
(``bot.listeners.context``) acts on each ``event_id`` once, answering 503 with
``Retry-After`` while the database is busy.  The claim waits for another writer's lock
at most ``QUICK_LOCK_WAIT``; when the database is busy the request goes on, its claim
made in the background and held here (``HeldClaims``) until it is made or its
``CLAIM_WINDOW`` closes, and its work path waits for it before any work
(``ContextBuilder.claimed``).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs

from aiohttp import web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestPayloadError
from slack_sdk.signature import SignatureVerifier

from bot import bounded_json, slack_shapes
from storage import DedupStore, off_loop, off_loop_quick, patience
from storage.errors import StorageBusyError

log = logging.getLogger(__name__)

MAX_SKEW = 300
"""Seconds a request's timestamp may be off (Slack's rule, and Bolt's)."""
MAX_DEPTH = 32
"""Nesting Slack's own payloads stay far below (a modal's state is about 6 deep)."""
MAX_VALUES = 20_000
"""Values in one payload: a 100-block modal with its state is a few thousand."""
MAX_FORM_FIELDS = 100
SLASH_COMMAND_FIELDS = ("command", "team_id", "user_id", "response_url")
"""What every slash command from Slack carries, and the listener needs to answer it."""
REPLAY_TEAM = "*"
"""The dedup "team" of seen signatures (a signature is unique across teams)."""
RETRY_AFTER = "5"
QUICK_LOCK_WAIT = 0.2
"""Seconds the door's claim waits for another writer's lock (one try)."""
CLAIM_WINDOW = 10.0
"""Seconds after its signed timestamp within which a slash command or an interaction
must have its replay claim made to run: Slack sends each within a second or so of
signing it and never again, so only a replay is later, and "busy, nothing was changed"
stays true on every replica once the window has closed."""
SUBMISSION_LOCK_WAIT = 0.5
"""Seconds a form submission's pending claim may wait (one try): its answer is due in 3."""
KEEP_SECONDS = 330.0
"""How long a held signature matters: Slack's 5-minute window, and a little more."""

_TIMESTAMP = re.compile(r"^[0-9]{1,12}$")
_SIGNATURE = re.compile(r"^v0=[0-9a-f]{64}$")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

SERVER_LOG = logging.getLogger("callops.http")
"""The logger aiohttp's request handler writes to (``AppRunner(logger=...)``)."""


class ParserRefusals(logging.Filter):
    """A request aiohttp's parser refused (a header too long, an unknown HTTP version, a
    bad ``Content-Length``) is the sender's mistake: one line, without the traceback
    aiohttp logs with it.  A real error of the server keeps its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        raised = record.exc_info[1] if record.exc_info else None
        exc = raised
        for _ in range(4):  # the parser's refusal, or what it was raised from
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


SERVER_LOG.addFilter(ParserRefusals())


def encoded_body_refusal(*paths: str) -> Any:
    """A middleware answering 415 to a request with a ``Content-Encoding`` on ``paths`` (a
    path ending in ``/`` covers everything under it): a body is verified as sent, and
    aiohttp would decompress it while reading, before any check."""
    exact = frozenset(p for p in paths if not p.endswith("/"))
    prefixes = tuple(p for p in paths if p.endswith("/"))

    @web.middleware
    async def middleware(request: web.Request, handler: Handler) -> web.StreamResponse:
        path = request.path
        if "Content-Encoding" in request.headers and (path in exact or path.startswith(prefixes)):
            shown = path if path in exact else path.rsplit("/", 1)[0] + "/…"  # no token
            log.info(
                "refused %s %s from %s: content_encoding_not_accepted",
                request.method,
                shown,
                request.remote,
            )
            refusal = web.json_response(
                {"ok": False, "error": "content_encoding_not_accepted"}, status=415
            )
            refusal.force_close()  # its body is not read: the client's next request waits not
            return refusal
        return await handler(request)

    return middleware


class Refused(Exception):
    def __init__(self, status: int, error: str) -> None:
        super().__init__(error)
        self.status = status
        self.error = error


def _check_body(text: str, content_type: str) -> bool:
    """400 unless ``text`` is a JSON object, or a form whose ``payload`` (if any) is one,
    as Slack sends them; True for an Events API request (JSON)."""
    # Read as Bolt will read it (slack_bolt.request.internals.parse_body).
    if content_type == "application/json" or text.startswith("{"):
        _json_object(text)
        return True
    try:
        form = parse_qs(text, keep_blank_values=True, max_num_fields=MAX_FORM_FIELDS)
    except ValueError:
        raise Refused(400, "too_many_form_fields") from None
    if "command" in form and not all((form.get(f) or [""])[0] for f in SLASH_COMMAND_FIELDS):
        raise Refused(400, "slash_command_without_team_user_or_response_url")
    payloads = form.get("payload")
    if payloads is not None:
        if len(payloads) != 1:
            raise Refused(400, "payload_not_a_json_object")
        _json_object(payloads[0])
    return False


def _json_object(text: str) -> None:
    try:
        data = bounded_json.loads(text, max_depth=MAX_DEPTH, max_values=MAX_VALUES)
    except bounded_json.JsonRefused as exc:
        raise Refused(400, "malformed_json: " + exc.reason) from None
    if not isinstance(data, dict):
        raise Refused(400, "payload_not_a_json_object")
    wrong = slack_shapes.problem(data)
    if wrong:
        raise Refused(400, "malformed_payload: " + wrong)


Claim = asyncio.Task[bool | None]
"""A claim the door left to the background: True (run the request), False (a replay),
None (its claim window closed first: nothing may run it now, anywhere)."""


@dataclass
class HeldClaims:
    """Claims the database was too busy to take at the door, each made in the background
    until its claim window closes (``SlackRequestGuard._claim_until``): a replay of one is
    refused at once while it is held, and its work path waits for it
    (``ContextBuilder.claimed``).  Once Slack's 5 minutes are over it is stale anyway."""

    clock: Callable[[], float] = time.monotonic
    _held: dict[str, tuple[float, Claim]] = field(default_factory=dict)

    def hold(self, signature: str, claiming: Claim) -> None:
        now = self.clock()
        for old in [s for s, (until, _) in self._held.items() if until <= now]:
            del self._held[old]
        self._held[signature] = (now + KEEP_SECONDS, claiming)

    def get(self, signature: str) -> Claim | None:
        found = self._held.get(signature)
        return found[1] if found is not None and found[0] > self.clock() else None

    def holds(self, signature: str) -> bool:
        return self.get(signature) is not None


class SlackRequestGuard:
    def __init__(
        self,
        signing_secret: str | None,
        seen: DedupStore,
        *,
        path: str,
        held: HeldClaims,
        spawn: Callable[..., asyncio.Task[Any]],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._verifier = SignatureVerifier(signing_secret) if signing_secret else None
        self._seen = seen
        self._path = path
        self._held = held
        self._spawn = spawn
        """Starts a claim left to the background, held by the runtime's tasks."""
        self._clock = clock

    async def check(self, request: web.Request) -> None:
        """Raise ``Refused`` for a request Bolt must not see; a form request whose claim
        the busy database could not take goes on with its signature held."""
        timestamp = request.headers.get("X-Slack-Request-Timestamp", "")
        signature = request.headers.get("X-Slack-Signature", "")
        if not _TIMESTAMP.match(timestamp):
            raise Refused(401, "missing_or_malformed_timestamp")
        if abs(self._clock() - int(timestamp)) > MAX_SKEW:
            raise Refused(401, "stale_timestamp")
        if not _SIGNATURE.match(signature):
            raise Refused(401, "missing_or_malformed_signature")
        try:
            text = (await request.read()).decode("utf-8")  # at most client_max_size
        except UnicodeDecodeError:
            raise Refused(401, "invalid_signature") from None  # Slack signs UTF-8 only
        if self._verifier is None or not self._verifier.is_valid(text, timestamp, signature):
            raise Refused(401, "invalid_signature")
        if _check_body(text, request.content_type):
            return  # an event: its event_id is claimed by the event dedup
        run_by = int(timestamp) + CLAIM_WINDOW
        if self._clock() > run_by or self._held.holds(signature):
            raise Refused(401, "replayed_request")
        try:
            first = await off_loop_quick(self._claim_quickly, signature)
        except StorageBusyError:
            if self._held.holds(signature):  # the same request, sent twice at once
                raise Refused(401, "replayed_request") from None
            claiming = self._spawn(self._claim_until(signature, run_by), name="callops-claim")
            self._held.hold(signature, claiming)
            log.info("slack request: database busy; replay claim left to the background")
            return
        except Exception as exc:  # the database, whatever its engine, is unavailable
            log.warning("slack request: replay check unavailable (%s)", type(exc).__name__)
            raise Refused(503, "try_again_later") from None
        if not first:
            raise Refused(401, "replayed_request")

    def _claim_quickly(self, signature: str) -> bool:
        with patience(QUICK_LOCK_WAIT, tries=1):
            return claim(self._seen, signature)

    async def _claim_until(self, signature: str, run_by: float) -> bool | None:
        """The claim of a request let through while the database was busy, tried (with
        the store's usual patience) until its claim window closes: past it no process
        may claim it, so "busy, nothing was changed" stays true on every replica."""
        while True:
            try:
                first = await off_loop(claim, self._seen, signature)
            except StorageBusyError:
                if self._clock() >= run_by:
                    return None
                continue
            except Exception as exc:
                log.warning("slack request: claim not made (%s)", type(exc).__name__)
                return None
            # Made once its window had closed: another process would refuse it now.
            return None if first and self._clock() > run_by else first

    @web.middleware
    async def middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        if request.path != self._path or request.method != "POST":
            return await handler(request)
        try:
            await self.check(request)
        except Refused as refused:
            log.info(
                "refused %s %s from %s: %s",
                request.method,
                request.path,
                request.remote,
                refused.error,
            )
            headers = {"Retry-After": RETRY_AFTER} if refused.status == 503 else None
            return web.json_response(
                {"ok": False, "error": refused.error}, status=refused.status, headers=headers
            )
        return await handler(request)


def claim(seen: DedupStore, signature: str) -> bool:
    """Mark a request's signature seen: True the first time, False for a replay. Blocking
    (a database write): off the event loop."""
    return seen.mark_event(REPLAY_TEAM, "sig:" + signature)
