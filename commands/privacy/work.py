"""The privacy worker: rewrites the messages and deletes the files that showed a number
being erased (or aged out), then reports.

Each run claims a few posts marked in ``storage.privacy_posts`` (a lease in the
database: one process works on a post at a time, and a post whose worker died is taken
again once its lease lapses, so work resumes after a restart), rewrites each message
once through the paced outbox (Slack's one message a second per channel, a 429's
``Retry-After`` honoured) and deletes each file, and notes what became of it.  A request
whose posts are all done is finished, once, and its report goes to the admin who asked.
It is the family's job ``privacy.work`` (``JOBS``), run once a minute where the scheduler
runs, after the masking notice (``notice.py``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from commands.kernel.audiences import for_channel, for_person
from commands.kernel.i18n import use_audience
from commands.kernel.jobs import SCHEDULER, Job, JobEnv, JobOutbox, SlackRefused
from commands.privacy.erase import erase_report, removed_note
from commands.privacy.requests import reminder
from storage import Storage, off_loop
from storage.personal_data import Erased, age_out
from storage.privacy_posts import PostedNumber

log = logging.getLogger(__name__)

LEASE_SECONDS = 120.0
"""How long a claimed post is this worker's (a minute's run fits well within it)."""
BATCH = 30
"""Posts claimed per run: at one message a second per channel, one minute's work."""
RETENTION = "retention"
"""The ``erase_request`` of posts aged out."""
EVERY = 60.0
"""Once a minute, as on the scheduler's tick it ran on before."""
GONE = frozenset({"message_not_found", "channel_not_found", "file_not_found", "file_deleted"})


class PrivacyWorker:
    def __init__(self, storage: Storage, outbox: JobOutbox) -> None:
        self._storage = storage
        self._outbox = outbox

    async def run(self, now: datetime | None = None) -> int:
        """One run: the day's retention (once a day per workspace), the posts due, then
        the requests they finish; returns posts handled."""
        await off_loop(self._age_out)
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
        await self._remind()
        return done

    async def _remind(self) -> None:
        """Two working days before a request is due, its admins are reminded, once: in the
        workspace's approvals channel (else the handler's DMs)."""
        storage = self._storage
        now = storage.clock()
        for request in await off_loop(storage.privacy_requests.all_open):
            if now < remind_at(request.due_at):
                continue
            key = f"privacy-reminder:{request.id}"
            if not await off_loop(storage.dedup.mark_event, request.team_id, key):
                continue
            if not await self._outbox.reachable(request.team_id):
                continue
            workspace = await off_loop(storage.workspaces.get, request.team_id)
            target = (workspace.approvals_channel if workspace else None) or request.handled_by
            if not target:
                continue
            with use_audience(for_channel(workspace)):
                reply = reminder(request)
            try:
                await self._outbox.post(request.team_id, target, reply)
            except SlackRefused as exc:
                log.info("privacy reminder not delivered: %s", exc.error)

    def _age_out(self) -> int:
        """Mark for rewriting the posts older than each workspace keeps customers' data,
        once a day per workspace across processes, and again the day its retention is
        changed (blocking)."""
        storage = self._storage
        now = storage.clock()
        today = datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%d")
        marked = 0
        for workspace in storage.workspaces.list():
            key = f"privacy-retention:{today}:{workspace.retention_days}"
            if not storage.dedup.mark_event(workspace.team_id, key):
                continue
            before = now - workspace.retention_days * 86400
            marked += storage.privacy_posts.mark_older(workspace.team_id, before, RETENTION)
            age_out(storage.db, storage.box, workspace.team_id, before)
        return marked

    async def _handle(
        self, team: str, channel: str, ts: str | None, file_id: str | None, why: str | None
    ) -> str | None:
        if not await self._outbox.reachable(team):
            return None
        try:
            if file_id:
                await self._outbox.delete_file(team, file_id)
                return "deleted"
            if ts:
                await self._rewrite(team, channel, ts, why)
                return "rewritten"
        except SlackRefused as exc:
            if exc.rate_limited:
                return None
            return ("gone:" if exc.error in GONE else "failed:") + exc.error
        except (OSError, TimeoutError) as exc:
            log.info("privacy worker: Slack unreachable (%s); retried later", type(exc).__name__)
            return None
        return "failed:nothing"

    async def _rewrite(self, team: str, channel: str, ts: str, why: str | None) -> None:
        workspace = await off_loop(self._storage.workspaces.get, team)
        with use_audience(for_channel(workspace)):
            note = removed_note(retention=why == RETENTION)
        await self._outbox.update(team, channel, ts, note)

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
        if not await self._outbox.reachable(team):
            return
        workspace = await off_loop(self._storage.workspaces.get, team)
        person = await off_loop(self._storage.people.get, team, admin)
        with use_audience(for_person(person, workspace)):
            reply = erase_report(request_id, tables, posts)
        try:
            await self._outbox.post(team, admin, reply)
        except SlackRefused as exc:
            log.warning("privacy worker: the report was not delivered (%s)", exc.error)


async def work(env: JobEnv) -> int:
    """One run of the worker on the process's outbox; posts handled."""
    return await PrivacyWorker(env.storage, env.outbox).run()


JOB = Job(name="privacy.work", run=work, every=EVERY, probe="scheduler", where=SCHEDULER)


def remind_at(due_at: float) -> float:
    """Two working days (Monday to Friday) before ``due_at``, in UTC days."""
    moment = datetime.fromtimestamp(due_at, UTC)
    left = 2
    while left:
        moment -= timedelta(days=1)
        if moment.weekday() < 5:
            left -= 1
    return moment.timestamp()


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
