"""The door of ``POST /slack/events``: signed, fresh, well-formed and first-seen, or refused.

Bolt checks signatures too, but only after it has parsed the body and the timestamp, and
its parsers raise on what an attacker sends (``X-Slack-Request-Timestamp: abc``,
``payload=notjson``, a JSON list, 30,000 ``[``): a 500 with a traceback, from anyone,
for free.  This aiohttp middleware stands in front of Bolt's handler and answers such
requests itself, with one log line and no traceback:

- 401 when the timestamp or signature is missing, malformed, more than 5 minutes off, or
  does not match the body (Slack's v0 signature, checked with slack_sdk's
  ``SignatureVerifier``);
- 401 when the exact signature was seen before (a replay: the same bytes sent again
  within Slack's 5-minute window).  Seen signatures are kept in the database
  (``DedupStore.mark_event``), so every process of the app refuses a replay.  Slack
  itself never sends the same signature twice: a request it retries
  (``X-Slack-Retry-Num``) is signed again with a new timestamp, and the event dedup of
  ``bot.listeners.events`` handles it as before;
- 400 when the signed body is not what Slack sends: not UTF-8, form fields beyond reason,
  a ``payload`` or JSON body that is not a JSON object, nesting or value counts beyond
  ``bot.bounded_json``'s bounds, fields not of the type Slack sends
  (``bot.slack_shapes``);
- 503 (with ``Retry-After``) when the replay check cannot reach the database.

Everything else goes on to Bolt untouched.

The replay claim is a write, and Slack's acknowledgement must not wait on a write lock
(another process, a backup or an admin's ``sqlite3`` may hold it for many seconds).  So
the guard claims the signature with a short patience (`QUICK_LOCK_WAIT`, one try, off the
event loop on threads kept for acknowledgements: ``storage.off_loop_quick``) and, when
the database is busy:

- an Events API request (a JSON body: events, workflow steps) gets 503 with
  ``Retry-After``; Slack sends events again, signed anew, so nothing is lost;
- a slash command or an interaction (a form body: Slack never resends those) goes on to
  Bolt with its claim *pending*: its signature is held in ``bot.held_claims``, where the
  context middleware finds it (``bot.listeners.context``).  It is acknowledged at once
  like any other, and the work path claims the signature, with the usual retries, before it does
  anything else (``ContextBuilder.claimed`` in ``bot.listeners.context``): a replay found
  then does nothing; a claim that still cannot be made tells the person the database is
  busy and that nothing was done.  Such a signature is held in the process
  (``bot.held_claims``) from the door on, and written to the database by the first claim
  that finds it free, so its replays are refused during the lock and after it.  Only a
  form submission, whose answer is its
  acknowledgement, claims within Slack's 3 seconds (`SUBMISSION_LOCK_WAIT`) and says so
  on the form when it cannot.

So replay protection holds for every request, and no acknowledgement waits longer than
`QUICK_LOCK_WAIT` for the database.

"Nothing was changed" must stay true after the lock, on every replica and after a
restart, though the refused signature may be in no database yet (it was busy) and in
one process's memory only.  So a slash command or an interaction runs only when its
replay claim is made within `CLAIM_WINDOW` seconds of its signed timestamp: the door
refuses one older than that (Slack sends each within a second or so of signing it, and
never sends it again; only a replay is late), and a work path whose claim stays busy
keeps trying until the window has closed before it says "busy, nothing was changed".
From that moment no process can claim it and run it.  This asks the servers' clocks
to agree with Slack's within a few seconds (NTP), as Slack's own 5-minute rule does.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qs

from aiohttp import web
from slack_sdk.signature import SignatureVerifier

from bot import bounded_json, slack_shapes
from bot.held_claims import HeldClaims
from storage import DedupStore, off_loop_quick, patience
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
"""Seconds the guard's replay claim waits for another writer's lock (one try) before the
request is answered without it (see the module's docstring)."""
CLAIM_WINDOW = 10.0
"""Seconds after its signed timestamp within which a slash command or an interaction
must have its replay claim made to run (see the module's docstring)."""
SUBMISSION_LOCK_WAIT = 0.5
"""Seconds a form submission's pending claim may wait (one try): its answer is due in 3."""

_TIMESTAMP = re.compile(r"^[0-9]{1,12}$")
_SIGNATURE = re.compile(r"^v0=[0-9a-f]{64}$")

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class Refused(Exception):
    def __init__(self, status: int, error: str) -> None:
        super().__init__(error)
        self.status = status
        self.error = error


def _check_body(body: bytes, content_type: str) -> bool:
    """400 unless ``body`` is a JSON object, or a form whose ``payload`` (if any) is one;
    True for an Events API request (JSON)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(400, "body_not_utf8") from None
    # Read as Bolt will read it (slack_bolt.request.internals.parse_body).
    is_json = content_type == "application/json" or text.startswith("{")
    if is_json:
        _json_object(text)
        return True
    try:
        form = parse_qs(
            text, keep_blank_values=True, strict_parsing=False, max_num_fields=MAX_FORM_FIELDS
        )
    except ValueError:
        raise Refused(400, "too_many_form_fields") from None
    if "command" in form and not all(
        (form.get(field) or [""])[0] for field in SLASH_COMMAND_FIELDS
    ):
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


class SlackRequestGuard:
    def __init__(
        self,
        signing_secret: str | None,
        seen: DedupStore,
        *,
        path: str,
        clock: Callable[[], float] = time.time,
        held: HeldClaims | None = None,
    ) -> None:
        self._verifier = SignatureVerifier(signing_secret) if signing_secret else None
        self._seen = seen
        self._path = path
        self._clock = clock
        # Signatures let through or refused while the database was busy (`HeldClaims`).
        self._held = held if held is not None else HeldClaims()

    async def check(self, request: web.Request) -> None:
        """Raise ``Refused`` for a request Bolt must not see; a request whose replay claim
        is left pending (the database was busy) has its signature held."""
        timestamp = request.headers.get("X-Slack-Request-Timestamp", "")
        signature = request.headers.get("X-Slack-Signature", "")
        if not _TIMESTAMP.match(timestamp):
            raise Refused(401, "missing_or_malformed_timestamp")
        if abs(self._clock() - int(timestamp)) > MAX_SKEW:
            raise Refused(401, "stale_timestamp")
        if not _SIGNATURE.match(signature):
            raise Refused(401, "missing_or_malformed_signature")
        body = await request.read()
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused(401, "invalid_signature") from None  # Slack signs UTF-8 only
        if self._verifier is None or not self._verifier.is_valid(text, timestamp, signature):
            raise Refused(401, "invalid_signature")
        is_event = _check_body(body, request.content_type)
        run_by = int(timestamp) + CLAIM_WINDOW
        if not is_event and self._clock() > run_by:
            # Slack sent it long ago and never sends it twice: a replay, maybe of a
            # request another process refused as busy, which must never run now.
            raise Refused(401, "replayed_request")
        if self._held.holds(signature):
            raise Refused(401, "replayed_request")
        unwritten = self._held.to_write()
        try:
            first = await off_loop_quick(self._claim_quickly, signature, unwritten)
        except StorageBusyError:
            if is_event:
                log.info("slack request: database busy; event refused for Slack to resend")
                raise Refused(503, "try_again_later") from None
            if not self._held.hold(signature, run_by):
                raise Refused(401, "replayed_request") from None
            log.info("slack request: database busy; replay claim left to the work path")
            return
        except Exception as exc:  # the database, whatever its engine, is unavailable
            log.warning("slack request: replay check unavailable (%s)", type(exc).__name__)
            raise Refused(503, "try_again_later") from None
        self._held.written(unwritten)
        if not first:
            raise Refused(401, "replayed_request")

    def _claim_quickly(self, signature: str, unwritten: list[str]) -> bool:
        """The claim, after those of requests refused while the database was busy
        (``unwritten``): from now on every process knows them."""
        with patience(QUICK_LOCK_WAIT, tries=1):
            for held in unwritten:
                claim(self._seen, held)
            return claim(self._seen, signature)

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
    return seen.mark_event(REPLAY_TEAM, _replay_key(signature))


def _replay_key(signature: str) -> str:
    return "sig:" + signature
