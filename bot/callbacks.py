"""``POST /callbacks/{token}``: the service's call-record callbacks, received.

The service's callback is not specified beyond its URL (spec section 6); the emulator
sends the CDR object of section 2.9, and anything else must be survived. So the receiver
is strict and quick: an unknown token is a 404 with nothing stored; a body over 64 KB is
a 413 (read no further than that); a body that is not JSON (nested deeper than 16 levels
or holding more than 5,000 values included) or not a call record is a 400, logged by its
shape only (a payload carries customers' numbers and names); a record seen before is a
200 and nothing more.  The database is asked off the event loop (``off_loop``), so a
slow or locked database never holds up the other requests of the process; storing waits
at most about two seconds for another writer's lock.  When the database cannot take the
record (locked, read-only, gone) the answer is 503 with ``Retry-After``, never a 500:
nothing was stored, and the service may send it again.  An accepted record is queued
durably, in the same transaction that marks it seen, and the answer goes back at once:
posting to Slack happens afterwards, in ``bot.call_feed``, at Slack's pace.  An outbound
campaign call is also noted, in the same trip, for the calling rules' watch to judge
(``commands/rules/watch_jobs.py``), once however often it is sent: what the families do
with a record they declare (``Family.on_record``, run before the record is queued).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from aiohttp import web
from pydantic import ValidationError

from bot import bounded_json, logs
from bot.call_feed import CallFeed
from callcenter.models import Cdr
from commands.kernel.family import RecordObserver
from storage import NotificationRoute, Storage, patience
from storage.offload import off_loop

log = logging.getLogger(__name__)

CALLBACK_ROUTE = "/callbacks/{token}"
MAX_BODY = 64 * 1024
"""A call record is about 2 KB; 64 KB leaves room for big ``additional`` objects."""
MAX_DEPTH = 16
MAX_VALUES = 5000
RETRY_AFTER = "5"
LOCK_WAIT = 1.0
"""Seconds storing a record waits for another writer's lock, per try, before the 503."""
LOCK_TRIES = 2
_TOKEN = re.compile(r"^[A-Za-z0-9_\-]{16,128}$")
_RECORD_ID = re.compile(r"^[^\s\x00-\x1f]{1,128}$")


def _answer(status: int, error: str | None = None, **extra: Any) -> web.Response:
    body: dict[str, Any] = {"ok": error is None, **extra}
    if error is not None:
        body["error"] = error
    return web.json_response(body, status=status)


async def _read_capped(request: web.Request, limit: int) -> bytes | None:
    """The body, or None as soon as it is longer than ``limit`` (the rest is never read)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = await request.content.read(limit + 1 - size)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        size += len(chunk)
        if size > limit:
            return None


def _shape_problems(exc: ValidationError) -> list[str]:
    """Which fields were wrong and how, never their values (they are personal data)."""
    return sorted(
        {f"{'.'.join(str(p) for p in e['loc']) or '(root)'}:{e['type']}" for e in exc.errors()}
    )


class RouteCache:
    """Each team's routes, read again only when they changed: a burst of callbacks must
    not parse every route for every record."""

    def __init__(self, storage: Storage) -> None:
        self._storage = storage
        self._cached: dict[str, tuple[tuple[int, float, int], list[NotificationRoute]]] = {}

    def routes(self, team_id: str) -> list[NotificationRoute]:
        version = self._storage.call_feed.routes_version(team_id)
        cached = self._cached.get(team_id)
        if cached is None or cached[0] != version:
            cached = (version, self._storage.routes.list(team_id))
            self._cached[team_id] = cached
        return cached[1]


def make_receiver(
    storage: Storage, feed: CallFeed, observers: Sequence[RecordObserver] = ()
) -> Any:
    """``observers``: what the app's families do with each record (``Registry.on_record``)."""
    routes = RouteCache(storage)
    declared = feed.feed  # which routes a record goes to (``Registry.feed``)

    def unavailable(what: str, exc: Exception) -> web.Response:
        log.warning("callback: cannot %s (%s); answered 503", what, type(exc).__name__)
        response = _answer(503, "unavailable")
        response.headers["Retry-After"] = RETRY_AFTER
        return response

    def store_record(team: str, record: Cdr, record_id: str) -> int | None:
        """Queue the record for its channels (blocking: on a database thread)."""
        store = storage.call_feed
        with patience(LOCK_WAIT, tries=LOCK_TRIES):
            matched = routes.routes(team)
            channels = declared.channels(matched, record) if declared else []
            outcome = record.app.strip().lower() == "autocall" and (
                store.pushed_message(team, record_id) is not None or store.push_in_flight(team)
            )
            # What the families take from the record (a route's opt-out key pressed is a
            # refusal; a campaign call is noted for the rules), before the record is
            # marked seen: if storing fails, the service's resend gives it to them again,
            # and each writes it once.
            for observe in observers:
                observe(storage, team, matched, record)
            queued = store.accept(
                team,
                record_id,
                record.model_dump(mode="json"),
                channels,
                outcome=outcome,
                kinds=declared.kinds(matched, record) if declared else None,
            )
            return queued

    async def receive(request: web.Request) -> web.Response:
        token = request.match_info.get("token", "")
        try:
            team = (
                await off_loop(storage.callback_tokens.team_for, token)
                if _TOKEN.match(token)
                else None
            )
        except Exception as exc:  # the database, whatever its engine, is unavailable
            return unavailable("look up the callback URL", exc)
        if team is None:
            log.info("callback to an unknown callback URL refused")
            return _answer(404, "unknown_callback_url")
        logs.describe(team=team, name="callback")
        if request.content_length is not None and request.content_length > MAX_BODY:
            log.info("team %s: callback of %d bytes refused", team, request.content_length)
            return _answer(413, "payload_too_large", limit=MAX_BODY)
        raw = await _read_capped(request, MAX_BODY)
        if raw is None:
            log.info("team %s: callback over %d bytes refused", team, MAX_BODY)
            return _answer(413, "payload_too_large", limit=MAX_BODY)
        try:
            data = bounded_json.loads(raw, max_depth=MAX_DEPTH, max_values=MAX_VALUES)
        except bounded_json.JsonRefused as exc:
            log.info("team %s: callback refused (%d bytes, %s)", team, len(raw), exc.reason)
            return _answer(400, "invalid_json", reason=exc.reason)
        if not isinstance(data, dict):
            log.info("team %s: callback is JSON %s, not a call record", team, type(data).__name__)
            return _answer(400, "not_a_call_record")
        try:
            record = Cdr.model_validate(data)
        except ValidationError as exc:
            problems = _shape_problems(exc)
            log.info("team %s: callback is not a call record: %s", team, ", ".join(problems))
            return _answer(400, "not_a_call_record", fields=problems)
        record_id = record.id.strip()
        if not _RECORD_ID.match(record_id):
            log.info("team %s: callback's call record has an unusable id", team)
            return _answer(400, "not_a_call_record", fields=["id:invalid"])
        try:
            # One trip off the event loop, waiting briefly for another writer's lock: a
            # sender told 503 sends again, a sender left hanging may give up.
            queued = await off_loop(store_record, team, record, record_id)
        except Exception as exc:  # the database, whatever its engine, is unavailable
            return unavailable("store the record", exc)
        if queued is None:
            return _answer(200, duplicate=True)
        if queued:
            feed.wake()
        return _answer(200, queued=queued)

    return receive


def install_call_feed(
    web_app: web.Application,
    storage: Storage,
    feed: CallFeed,
    observers: Sequence[RecordObserver] = (),
) -> None:
    """Add the receiver to the app's web server and run the poster while it serves."""
    web_app.router.add_post(CALLBACK_ROUTE, make_receiver(storage, feed, observers))

    async def start(_: web.Application) -> None:
        feed.start()

    async def stop(_: web.Application) -> None:
        await feed.stop()

    web_app.on_startup.append(start)
    web_app.on_shutdown.append(stop)
