"""Putting one digest in its channel, and saying once when a workspace can't.

``DigestPoster`` is what ``digest run`` calls through ``ctx.app.digests`` and what
the scheduler calls for each due slot: have the digests family build the content against
the workspace's service (``Registry.digests``, a ``commands.kernel.scheduled.Digests``
the family declares), post the message (the chart in it, when Slack draws it), upload the
chart's PNG right after it when the workspace reads charts as images or the chart does
not fit Slack's own, both through the process's ``SlackOutbox`` at the channel's pace.

Each digest message carries Slack message metadata naming its digest and slot
(``DIGEST_EVENT``), so the scheduler can tell, for a slot claimed by a process that died,
whether its post went out (``find_posted``, in the outbox's history) before posting it
again.

Failures come in two kinds.  A workspace-wide one (its API key refused, the service
unreachable or failing, no connection at all) would repeat for every slot of every digest,
so it is told once, in the workspace's digest channel, and remembered in storage until a
later attempt succeeds (the family says which and how: ``Digests.held_up``,
``tell_failure``).  Anything else (Slack refusing one channel, say) belongs to that
one post and is recorded with its slot.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from apscheduler.triggers.cron import CronTrigger
from slack_sdk.errors import SlackApiError

from bot.jobs import BotOutbox
from bot.metrics import Metrics
from bot.posting import BotClients, SlackOutbox
from bot.service_clients import ServiceClients
from callcenter import CallCenter
from commands.kernel.audiences import for_channel
from commands.kernel.context import DigestPostError, NotConnectedError
from commands.kernel.i18n import N_, _, use_audience
from commands.kernel.reply import Reply
from commands.kernel.scheduled import Chart, Digests
from commands.kernel.text import escape
from storage import DigestSchedule, Storage, Workspace
from storage.offload import off_loop

log = logging.getLogger(__name__)

DIGEST_EVENT = "callops_digest"
"""The message metadata ``event_type`` of a digest; its payload names ``digest_id`` and
``slot``."""
BURST = 3
"""Posts to one channel that may go at once before the pace applies: a digest is two
posts, its message and its chart, which Slack's short bursts let through together."""

_SLACK_WORDS = {
    "not_in_channel": N_("I am not in <#{channel}> any more; invite me back (/invite @CallOps)"),
    "channel_not_found": N_("the channel <#{channel}> is gone or I cannot see it"),
    "is_archived": N_("the channel <#{channel}> is archived"),
    "token_revoked": N_("this workspace removed the app's access"),
    "invalid_auth": N_("Slack refused the app's token"),
    "account_inactive": N_("Slack refused the app's token"),
    "ratelimited": N_("Slack asked us to slow down and kept refusing"),
}
"""Why Slack refused a post, by its error code (marked for the catalog, shown with _)."""
NO_BOT_TOKEN = N_("I have no bot token for this workspace; reinstall the app")


@dataclass(frozen=True)
class Posted:
    channel: str
    ts: str
    chart_uploaded: bool
    chart_inline: bool = False
    """The chart went in the message itself (Slack's data_visualization block)."""


def digest_metadata(digest_id: str, slot: str) -> dict[str, Any]:
    return {"event_type": DIGEST_EVENT, "event_payload": {"digest_id": digest_id, "slot": slot}}


def slack_failure(exc: SlackApiError, channel: str) -> DigestPostError:
    code = str(exc.response.get("error") or "unknown_error")
    known = _SLACK_WORDS.get(code)
    if known is None:
        return DigestPostError(_("Slack refused the post ({code})").format(code=escape(code)))
    return DigestPostError(_(known).format(channel=channel))


class DigestPoster:
    """Posts as the bot through ``bots`` (shared with the rest of the process, which
    closes it), against each team's service from ``services``."""

    def __init__(
        self,
        storage: Storage,
        services: ServiceClients,
        bots: BotClients,
        outbox: SlackOutbox,
        *,
        digests: Digests | None,
        metrics: Metrics | None = None,
    ) -> None:
        """``digests``: what the digests family says a schedule and a post are
        (``Registry.digests``; None: an app without digests, which posts none)."""
        self._storage = storage
        self.digests = digests
        self._metrics = metrics
        self._services = services
        self.bots = bots
        self.outbox = outbox

    @property
    def _family(self) -> Digests:
        if self.digests is None:
            raise LookupError("no family of this app declares the digests")
        return self.digests

    # --- ctx.app.digests (AppPorts) -----------------------------------------------------

    async def post_now(
        self,
        team_id: str,
        digest_id: str,
        *,
        at: datetime,
        up_to_now: bool = False,
        asked_by: str | None = None,
    ) -> str:
        digest = await off_loop(self._storage.digests.require, team_id, digest_id)
        workspace, own = await off_loop(self._workspace_and_channel, team_id, digest.channel)
        # The post is the channel's, whoever runs it: its title and its "why" are written
        # in the digest's language (else the channel's), not the language of the person.
        with use_audience(for_channel(workspace, digest.language, own)):
            request = self._family.for_now(digest, at, up_to_now=up_to_now, asked_by=asked_by)
        posted = await self.post_request(digest, request)
        return posted.channel

    # --- posting ------------------------------------------------------------------------

    async def service(self, team_id: str) -> CallCenter:
        cc = await self._services.get(team_id)
        if cc is None:
            raise NotConnectedError
        return cc

    async def post(self, digest: DigestSchedule, slot: datetime) -> Posted:
        """Build and post ``digest`` for the period that ends at ``slot``."""
        return await self.post_request(digest, self._family.for_slot(digest, slot), slot=slot)

    async def post_request(
        self, digest: DigestSchedule, request: object, *, slot: datetime | None = None
    ) -> Posted:
        """Build and post ``digest`` as ``request`` describes it, its chart after it; a
        scheduled slot's post names the slot in its metadata, so a post whose answer was
        lost can be found in the channel instead of posted again.  Counted in
        ``callops_digests`` by trigger (a slot: scheduled; else manual) and outcome."""
        trigger = "manual" if slot is None else "scheduled"
        try:
            posted = await self._post_request(digest, request, slot)
        except BaseException:
            if self._metrics is not None:
                self._metrics.digests.labels(trigger, "failed").inc()
            raise
        if self._metrics is not None:
            self._metrics.digests.labels(trigger, "posted").inc()
        return posted

    async def _post_request(
        self, digest: DigestSchedule, request: object, slot: datetime | None
    ) -> Posted:
        cc = await self.service(digest.team_id)
        workspace, own = await off_loop(self._workspace_and_channel, digest.team_id, digest.channel)
        # The channel's readers: the digest's own language, else the channel's, else the
        # workspace's.
        with use_audience(for_channel(workspace, digest.language, own)):
            content = await self._family.compose(cc, self._storage, workspace, digest, request)
        ts = await self.post_reply(
            digest.team_id,
            digest.channel,
            content.reply,
            metadata=(
                digest_metadata(digest.id, self._family.slot_key(slot))
                if slot is not None
                else None
            ),
        )
        uploaded = inline = False
        if content.chart is not None:
            inline = content.chart.native
            shown = await self.post_chart(digest.team_id, digest.channel, content.chart)
            uploaded = shown and not inline
        return Posted(channel=digest.channel, ts=ts, chart_uploaded=uploaded, chart_inline=inline)

    def _workspace_and_channel(
        self, team_id: str, channel: str
    ) -> tuple[Workspace | None, str | None]:
        """The workspace and the channel's own language, in one trip off the loop."""
        return (
            self._storage.workspaces.get(team_id),
            self._storage.channel_languages.get(team_id, channel),
        )

    async def post_reply(
        self,
        team_id: str,
        channel: str,
        reply: Reply,
        *,
        thread_ts: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> str:
        """Post as the bot, at the channel's pace; returns the message ts."""
        client = await self.bots.get(team_id)
        if client is None:
            raise DigestPostError(_(NO_BOT_TOKEN))
        try:
            response = await self.outbox.post(
                client, channel, reply, team=team_id, thread_ts=thread_ts, metadata=metadata,
                burst=BURST,
            )  # fmt: skip
        except SlackApiError as exc:
            raise slack_failure(exc, channel) from exc
        return str(response.get("ts") or "")

    async def find_posted(
        self, team_id: str, channel: str, digest_id: str, slot: str, *, since: float
    ) -> str | None:
        """The ts of the digest message of ``slot`` if it is in ``channel`` (posted from
        ``since`` on, Unix seconds); None when it is not.  Raises ``DigestPostError`` when
        Slack will not show the channel's history."""
        client = await self.bots.get(team_id)
        if client is None:
            raise DigestPostError(_(NO_BOT_TOKEN))
        try:
            async for message in self.outbox.history(client, channel, since=since):
                meta = message["metadata"]
                payload = meta.get("event_payload") or {}
                if meta.get("event_type") == DIGEST_EVENT and (
                    (payload.get("digest_id"), payload.get("slot")) == (digest_id, slot)
                ):
                    return str(message["ts"])
        except SlackApiError as exc:
            raise slack_failure(exc, channel) from exc
        return None

    async def post_chart(
        self, team_id: str, channel: str, chart: Chart, *, thread_ts: str | None = None
    ) -> bool:
        """What a chart needs after the message that carries its blocks (an alert's, an
        insight's, a digest's): its PNG uploaded when it is sent as an image; nothing when
        Slack draws it in the message.  True when the chart is shown."""
        if chart.png is None:
            return True
        return await self._upload(
            team_id, channel, chart.png, chart.filename, chart.title, thread_ts=thread_ts
        )

    async def _upload(
        self,
        team_id: str,
        channel: str,
        png: bytes,
        filename: str,
        title: str,
        *,
        thread_ts: str | None = None,
    ) -> bool:
        """The chart after its message; a failed upload leaves the posted digest standing."""
        client = await self.bots.get(team_id)
        if client is None:
            return False
        try:
            await self.outbox.upload(
                client, channel, team=team_id, burst=BURST, content=png, filename=filename,
                title=title, alt_txt=title, request_file_info=False,
                **({"thread_ts": thread_ts} if thread_ts else {}),
            )  # fmt: skip
        except SlackApiError as exc:
            log.warning(
                "chart upload to %s (team %s) failed: %s",
                channel,
                team_id,
                exc.response.get("error"),
            )
            return False
        return True

    # --- what the scheduler asks of the digests family -----------------------------------

    @property
    def schedules(self) -> bool:
        """Whether the app has digests to schedule (a family declares them)."""
        return self.digests is not None

    def trigger(self, digest: DigestSchedule) -> CronTrigger:
        """When ``digest`` fires, in its zone; raises ``ValueError`` for a schedule that
        cannot be read (stored by an older version, say)."""
        return self._family.trigger(digest)

    def latest_slot(self, trigger: CronTrigger, at: datetime) -> datetime | None:
        """The last fire time of ``trigger`` at or before ``at``."""
        return self._family.latest_slot(trigger, at)

    def slot_key(self, slot: datetime) -> str:
        """How a slot is recorded in the database (the UTC instant)."""
        return self._family.slot_key(slot)

    async def held_up(self, team_id: str, channel: str, exc: BaseException) -> bool:
        """Whether ``exc`` holds up every post of the workspace (the service refused or
        failed); if so the workspace's one notice is posted, unless it is open already."""
        if self.digests is None or not self.digests.held_up(exc):
            return False
        await self.tell_failure(team_id, channel, exc)
        return True

    # --- one notice per broken workspace ------------------------------------------------

    async def tell_failure(self, team_id: str, channel: str, exc: BaseException) -> bool:
        """Post the workspace's one notice about ``exc`` (if none is open); True if posted
        (``commands.digests.on_hold``)."""
        outbox = BotOutbox(self.bots, self.outbox)
        return await self._family.tell_failure(self._storage, outbox, team_id, channel, exc)

    def tell_recovery(self, team_id: str) -> bool:
        """The service works again for ``team_id``: the next failure is told afresh."""
        return self.digests is not None and self.digests.tell_recovery(self._storage, team_id)
