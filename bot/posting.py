"""Posting as the bot outside any Slack request: whose token, and how fast per channel.

A listener gets its client from Bolt; the scheduler, the call feed and the approval
sweeper have no request, so ``BotClients`` looks the bot token up for them: the
workspace's OAuth installation when there is one, else the single ``SLACK_BOT_TOKEN``.
With Slack token rotation an installation's token is refreshed before it expires, by the
same `bot.token_rotation.TokenRefresher` Bolt's requests use (one process refreshes, under
the database's claim), and the lookup runs off the event loop.
Every client carries the same 429 handler as ``bot.app.web_client``
(Slack's 429s are retried after ``Retry-After``) and shares one aiohttp session, so a
minute with hundreds of digests reuses connections instead of opening one per call;
``ChannelPace`` keeps to Slack's posting pace of about one message per second per channel
before a 429 is ever needed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import aiohttp
from slack_sdk.web.async_client import AsyncWebClient

from bot.metrics import Metrics
from bot.metrics_hooks import slack_retry_handlers
from bot.settings import Settings
from bot.token_rotation import TokenRefresher
from storage import Storage, off_loop

DEFAULT_SPACING = 1.0
"""Seconds between two posts to the same channel (Slack: about one message per second)."""
DEFAULT_BURST = 3
"""Posts to one channel that may go at once before the spacing applies (Slack allows
short bursts)."""


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
    ``spacing`` seconds; other channels never wait.  (A digest is two posts, its message
    and its chart, which a burst lets through together.)"""

    def __init__(
        self,
        spacing: float = DEFAULT_SPACING,
        *,
        burst: int = DEFAULT_BURST,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._spacing = spacing
        self._burst = max(1, burst)
        self._clock = clock
        self._sleep = sleep
        self._next: dict[str, float] = {}
        """When the bucket of a channel is next full enough for one post (its 'debt')."""

    async def wait(self, channel: str) -> None:
        now = self._clock()
        # The channel's schedule may run ahead of now by at most (burst - 1) spacings.
        earliest = self._next.get(channel, now) - (self._burst - 1) * self._spacing
        turn = max(now, earliest)
        self._next[channel] = max(self._next.get(channel, now), now) + self._spacing
        if len(self._next) > 10_000:
            self._next = {c: t for c, t in self._next.items() if t > now}
        if turn > now:
            await self._sleep(turn - now)
