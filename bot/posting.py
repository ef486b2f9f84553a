"""The one road to Slack: who posts as the bot, at what pace, and what is already there.

``SlackOutbox`` posts, updates and uploads for every sender (answers a handler sends
besides its reply, approval cards, digests, alerts, call cards and folded feed messages,
notices, DMs), carries the message metadata it is given, and reads a channel's history
for it (``history``), so "was it already posted" is answered in one place.  An outbox
with a ``ChannelPace`` keeps Slack's posting pace of about one message per second per
channel before a 429 is ever needed, and when Slack answers 429 anyway the channel waits
the ``Retry-After`` it named, so its posts stay in order.

A listener gets its client from Bolt; the scheduler, the call feed and the approval
sweeper have no request, so ``BotClients`` looks the bot token up for them: the
workspace's OAuth installation when there is one, else the single ``SLACK_BOT_TOKEN``.
With Slack token rotation an installation's token is refreshed before it expires, by the
same `bot.token_rotation.TokenRefresher` Bolt's requests use (one process refreshes, under
the database's claim), and the lookup runs off the event loop.
Every client carries the same 429 handler as ``bot.app.web_client``
(Slack's 429s are retried after ``Retry-After``) and shares one aiohttp session, so a
minute with hundreds of digests reuses connections instead of opening one per call.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.web.async_slack_response import AsyncSlackResponse

from bot.metrics import Metrics, slack_retry_handlers
from bot.post_ledger import PostLedger, Shown
from bot.settings import Settings
from bot.token_rotation import TokenRefresher
from commands.kernel.feed import Card
from commands.kernel.reply import Reply, block_dict, fit
from commands.kernel.text import fallback
from storage import Storage, off_loop
from storage.privacy_posts import new_ref

log = logging.getLogger(__name__)

DEFAULT_SPACING = 1.0
"""Seconds between two posts to the same channel (Slack: about one message per second)."""
HISTORY_PAGES = 5
"""Pages of 200 messages looked through for a message that may have been posted."""
HISTORY_MARGIN = 300.0
"""Seconds before the moment asked for that a look-up starts (clocks differ)."""

Lane = tuple[str, str]
"""A team's channel: what Slack's posting pace counts."""


class BotClients:
    def __init__(
        self,
        settings: Settings,
        storage: Storage,
        refresher: TokenRefresher | None = None,
        *,
        metrics: Metrics | None = None,
    ) -> None:
        self._settings = settings
        self._storage = storage
        self._refresher = refresher
        self._metrics = metrics
        self._clients: dict[str, AsyncWebClient] = {}
        """One client per team, replaced when the team's token changes (rotation)."""
        self._session: aiohttp.ClientSession | None = None

    async def token(self, team_id: str) -> str | None:
        """The bot token of ``team_id``, good for a while yet if it rotates."""
        if self._refresher is not None:
            record = await self._refresher.bot_installation(enterprise_id=None, team_id=team_id)
        else:
            record = await off_loop(
                self._storage.installations.find_bot, enterprise_id=None, team_id=team_id
            )
        if record is not None and record.bot_token:
            return record.bot_token
        if self._settings.slack_bot_token is not None:
            return self._settings.slack_bot_token.get_secret_value()
        return None

    async def get(self, team_id: str) -> AsyncWebClient | None:
        """The client that posts as the bot in ``team_id``; None when no token is known."""
        token = await self.token(team_id)
        if token is None:
            return None
        client = self._clients.get(team_id)
        if client is None or client.token != token:
            if self._session is None or self._session.closed:
                self._session = aiohttp.ClientSession()
            client = AsyncWebClient(
                token=token,
                base_url=self._settings.slack_api_url,
                session=self._session,
                retry_handlers=slack_retry_handlers(self._metrics),
            )
            self._clients[team_id] = client
        return client

    async def close(self) -> None:
        self._clients.clear()
        if self._session is not None:
            await self._session.close()
            self._session = None


class ChannelPace:
    """Slack's pace per channel as a token bucket: ``burst`` posts at once, then one every
    ``spacing`` seconds; other channels never wait.  Time is injectable: tests and
    benchmarks pace on the Slack stand-in's clock and move it instead of waiting."""

    def __init__(self, spacing: float = DEFAULT_SPACING) -> None:
        self.spacing = spacing
        self._clock: Callable[[], float] = time.time
        self._sleep: Callable[[float], Awaitable[None]] = asyncio.sleep
        self._next: dict[Lane, float] = {}
        """When the bucket of a channel is next full enough for one post (its 'debt')."""
        self._held: dict[Lane, float] = {}
        """Until when Slack asked a channel to wait (429), bursts or not."""

    def use_clock(
        self, clock: Callable[[], float], sleep: Callable[[float], Awaitable[None]] | None
    ) -> None:
        """Pace on another clock; ``sleep`` moves that clock (None: wait in real time)."""
        self._clock = clock
        self._sleep = sleep or asyncio.sleep
        self._next.clear()
        self._held.clear()

    def free_at(self, lane: Lane, *, burst: int = 1) -> float:
        """When the channel next takes a post (0: at once)."""
        bucket = self._next.get(lane, 0.0) - (max(1, burst) - 1) * self.spacing
        return max(bucket, self._held.get(lane, 0.0))

    async def take(self, lane: Lane, *, burst: int = 1) -> None:
        """Wait for the channel's turn and spend it."""
        now = self._clock()
        turn = max(now, self.free_at(lane, burst=burst))
        self._next[lane] = max(self._next.get(lane, now), now) + self.spacing
        if len(self._next) > 10_000:
            self._next = {c: t for c, t in self._next.items() if t > now}
            self._held = {c: t for c, t in self._held.items() if t > now}
        if turn > now:
            await self._sleep(turn - now)

    def answered(self, lane: Lane) -> None:
        """Slack counts arrivals, and a post may have arrived late: the channel's next
        post waits a full spacing after Slack answered this one."""
        self._next[lane] = max(self._next.get(lane, 0.0), self._clock() + self.spacing)

    def hold(self, lane: Lane, seconds: float) -> None:
        """Slack asked this channel to wait (429): nothing goes there before then."""
        until = self._clock() + seconds
        self._held[lane] = until
        self._next[lane] = max(self._next.get(lane, 0.0), until)


def retry_after(exc: SlackApiError) -> float | None:
    """The seconds a 429 asks to wait, if it says."""
    headers = exc.response.headers or {}
    for key, value in headers.items():
        if key.lower() == "retry-after":
            raw = value[0] if isinstance(value, list) else value
            with contextlib.suppress(TypeError, ValueError):
                return max(0.0, float(raw))
    return None


def rate_limited(exc: SlackApiError) -> bool:
    return bool(exc.response.status_code == 429 or exc.response.get("error") == "ratelimited")


Message = Reply | Card
"""What a sender hands the outbox: an answer or notice, a call card, a folded message."""


class SlackOutbox:
    """Every post, edit and upload of the app, with the metadata the sender gives it;
    paced per channel when it has a ``pace`` (the process's background senders share
    one), straight through when it has none (answers within a request).  Slack's
    refusals are raised as ``SlackApiError``: each sender knows what one means to it."""

    def __init__(
        self, pace: ChannelPace | None = None, *, ledger: PostLedger | None = None
    ) -> None:
        self.pace = pace
        self.ledger = ledger
        """Notes the customers' numbers each post shows (None: a sender that posts none)."""

    async def post(
        self,
        client: AsyncWebClient,
        channel: str,
        message: Message,
        *,
        team: str = "",
        thread_ts: str | None = None,
        metadata: dict[str, Any] | None = None,
        burst: int = 1,
    ) -> AsyncSlackResponse:
        shown = None
        if self.ledger is not None:
            message, shown = await self.ledger.prepare(message, team=team, channel=channel)
        response = await self._paced(
            (team, channel),
            burst,
            lambda: client.chat_postMessage(
                channel=channel,
                thread_ts=thread_ts,
                unfurl_links=False,
                unfurl_media=False,
                metadata=metadata,
                **_content(message),
            ),
        )
        if self.ledger is not None and shown is not None:
            await self.ledger.posted(
                shown, team=team, channel=str(response.get("channel") or channel), ts=_ts(response)
            )
        return response

    async def update(
        self,
        client: AsyncWebClient,
        channel: str,
        ts: str,
        message: Message,
        *,
        team: str = "",
        metadata: dict[str, Any] | None = None,
    ) -> AsyncSlackResponse:
        shown = None
        if self.ledger is not None:
            message, shown = await self.ledger.prepare(message, team=team, channel=channel, ts=ts)
        response = await self._paced(
            (team, channel),
            1,
            lambda: client.chat_update(
                channel=channel, ts=ts, metadata=metadata, **_content(message)
            ),
        )
        if self.ledger is not None and shown is not None:
            await self.ledger.posted(shown, team=team, channel=channel, ts=ts)
        return response

    async def ephemeral(
        self, client: AsyncWebClient, channel: str, user: str, message: Message
    ) -> AsyncSlackResponse:
        """Shown to ``user`` only (Slack does not pace these per channel)."""
        return await client.chat_postEphemeral(channel=channel, user=user, **_content(message))

    async def upload(
        self,
        client: AsyncWebClient,
        channel: str,
        *,
        team: str = "",
        burst: int = 1,
        shows: Sequence[str] = (),
        **file: Any,
    ) -> None:
        """``files_upload_v2`` into ``channel`` (Slack's three-step external upload);
        the customers' numbers in the file (``shows``) are noted with its id."""
        response = await self._paced(
            (team, channel), burst, lambda: client.files_upload_v2(channel=channel, **file)
        )
        if self.ledger is not None and shows:
            ids = [
                str(body["id"])
                for body in response.get("files") or []
                if isinstance(body, dict) and body.get("id")
            ]
            await self.ledger.posted(
                Shown(phones=tuple(shows), masked=False, ref=new_ref()),
                team=team,
                channel=channel,
                file_ids=ids,
            )

    async def history(
        self,
        client: AsyncWebClient,
        channel: str,
        *,
        since: float,
        thread_ts: str | None = None,
    ) -> AsyncIterator[dict[str, Any]]:
        """The messages carrying metadata in ``channel`` (or the thread of ``thread_ts``)
        from a little before ``since`` (Unix seconds) on, newest first: where a sender
        whose answer was lost looks for what it posted before posting it again."""
        query: dict[str, Any] = {
            "channel": channel,
            "oldest": f"{since - HISTORY_MARGIN:.6f}",
            "include_all_metadata": True,
            "limit": 200,
        }
        for _page in range(HISTORY_PAGES):
            if thread_ts:
                page = await client.conversations_replies(ts=thread_ts, **query)
            else:
                page = await client.conversations_history(**query)
            for message in page.get("messages") or []:
                if isinstance(message, dict) and message.get("ts") and message.get("metadata"):
                    yield message
            cursor = (page.get("response_metadata") or {}).get("next_cursor")
            if not cursor:
                return
            query["cursor"] = cursor

    async def _paced(
        self, lane: Lane, burst: int, call: Callable[[], Awaitable[AsyncSlackResponse]]
    ) -> AsyncSlackResponse:
        if self.pace is None:
            return await call()
        await self.pace.take(lane, burst=burst)
        try:
            response = await call()
        except SlackApiError as exc:
            if rate_limited(exc):
                self.pace.hold(lane, retry_after(exc) or self.pace.spacing)
            raise
        self.pace.answered(lane)
        return response


def _ts(response: AsyncSlackResponse) -> str | None:
    ts = response.get("ts")
    return str(ts) if ts else None


def _content(message: Message) -> dict[str, Any]:
    # The fallback text goes out as safe as the blocks (no broadcast, no bidi controls).
    return {"text": fallback(message.text), "blocks": [block_dict(b) for b in fit(message.blocks)]}


async def answered(
    call: Awaitable[AsyncSlackResponse], what: str, *, level: int = logging.INFO
) -> AsyncSlackResponse | None:
    """Slack's answer, or None when it refused the call: the refusal is logged with
    Slack's error (``what`` says which call) and is not an exception for the caller, who
    has an answer to give either way."""
    try:
        return await call
    except SlackApiError as exc:
        log.log(level, "%s: %s", what, exc.response.get("error"))
        return None
