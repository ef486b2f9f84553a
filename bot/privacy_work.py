"""The privacy worker: rewrites the messages and deletes the files that showed a number
being erased (or aged out), then reports.

Each run claims a few posts marked in ``storage.privacy_posts`` (a lease in the
database: one process works on a post at a time, and a post whose worker died is taken
again once its lease lapses, so work resumes after a restart), rewrites each message
once through the paced outbox (Slack's one message a second per channel, a 429's
``Retry-After`` honoured) and deletes each file, and notes what became of it.  A request
whose posts are all done is finished, once, and its report goes to the admin who asked.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from datetime import datetime

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.posting import BotClients, SlackOutbox, rate_limited
from commands.kernel.audiences import for_channel, for_person
from commands.kernel.i18n import use_audience
from commands.privacy.erase import erase_report, removed_note
from storage import Storage, off_loop
from storage.personal_data import Erased
from storage.privacy_posts import PostedNumber

log = logging.getLogger(__name__)

LEASE_SECONDS = 120.0
"""How long a claimed post is this worker's (a minute's run fits well within it)."""
BATCH = 30
"""Posts claimed per run: at one message a second per channel, one minute's work."""
RETENTION = "retention"
"""The ``erase_request`` of posts aged out."""
GONE = frozenset({"message_not_found", "channel_not_found", "file_not_found", "file_deleted"})


class PrivacyWorker:
    def __init__(self, storage: Storage, bots: BotClients, outbox: SlackOutbox) -> None:
        self._storage = storage
        self._bots = bots
        self._outbox = outbox

    async def run(self, now: datetime | None = None) -> int:
        """One run: the posts due, then the requests they finish; returns posts handled."""
        claimed = await off_loop(
            self._storage.privacy_posts.claim_due, lease=LEASE_SECONDS, limit=BATCH
        )
        done = 0
        for place, rows in _places(claimed).items():
            team, channel, ts, file_id = place
            outcome = await self._handle(team, channel, ts, file_id, rows[0].erase_request)
            if outcome is None:
                continue  # rate limited or unreachable: the lease lapses, another run retries
            await off_loop(
                self._storage.privacy_posts.settle,
                team,
                channel,
                ts=ts,
                file_id=file_id,
                outcome=outcome,
            )
            done += 1
        await self._finish_requests()
        return done

    async def _handle(
        self, team: str, channel: str, ts: str | None, file_id: str | None, why: str | None
    ) -> str | None:
        client = await self._bots.get(team)
        if client is None:
            return None
        try:
            if file_id:
                await client.files_delete(file=file_id)
                return "deleted"
            if ts:
                await self._rewrite(client, team, channel, ts, why)
                return "rewritten"
        except SlackApiError as exc:
            error = str(exc.response.get("error") or "error")
            if rate_limited(exc):
                return None
            return ("gone:" if error in GONE else "failed:") + error
        except (OSError, TimeoutError) as exc:
            log.info("privacy worker: Slack unreachable (%s); retried later", type(exc).__name__)
            return None
        return "failed:nothing"

    async def _rewrite(
        self, client: AsyncWebClient, team: str, channel: str, ts: str, why: str | None
    ) -> None:
        workspace = await off_loop(self._storage.workspaces.get, team)
        with use_audience(for_channel(workspace)):
            note = removed_note(retention=why == RETENTION)
        await self._outbox.update(client, channel, ts, note, team=team)

    async def _finish_requests(self) -> None:
        storage = self._storage
        for request in await off_loop(storage.privacy_requests.all_open):
            if request.kind != "erase" or request.state != "working":
                continue
            posts = await off_loop(storage.privacy_posts.of_request, request.team_id, request.id)
            if any(p.redacted_at is None for p in posts):
                continue
            tables = _tables(request.report)
            summary = json.dumps({"tables": _raw(tables), "posts": len(posts)})
            if not await off_loop(
                storage.privacy_requests.finish, request.team_id, request.id, report=summary
            ):
                continue  # another process finished it
            await self._report(request.team_id, request.requested_by, request.id, tables, posts)

    async def _report(
        self,
        team: str,
        admin: str,
        request_id: str,
        tables: list[Erased],
        posts: list[PostedNumber],
    ) -> None:
        client = await self._bots.get(team)
        if client is None:
            return
        workspace = await off_loop(self._storage.workspaces.get, team)
        person = await off_loop(self._storage.people.get, team, admin)
        with use_audience(for_person(person, workspace)):
            reply = erase_report(request_id, tables, posts)
        try:
            await self._outbox.post(client, admin, reply, team=team)
        except SlackApiError as exc:
            log.warning(
                "privacy worker: the report was not delivered (%s)", exc.response.get("error")
            )


def _places(
    rows: Iterable[PostedNumber],
) -> dict[tuple[str, str, str | None, str | None], list[PostedNumber]]:
    places: dict[tuple[str, str, str | None, str | None], list[PostedNumber]] = {}
    for row in rows:
        key = (row.team_id, row.channel, None if row.file_id else row.ts, row.file_id)
        places.setdefault(key, []).append(row)
    return places


def _tables(report: str | None) -> list[Erased]:
    try:
        data = json.loads(report or "{}")
        return [Erased(str(t), int(n), str(h), str(w)) for t, n, h, w in data.get("tables", [])]
    except (ValueError, TypeError, AttributeError):
        return []


def _raw(tables: list[Erased]) -> list[list[object]]:
    return [[e.table, e.rows, e.how, e.why] for e in tables]
