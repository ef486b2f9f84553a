"""Slack token rotation, one refresher for every use of a bot token.

With ``token_rotation_enabled`` in the app's settings, Slack's bot tokens expire after 12
hours and come with a refresh token that works once (oauth.v2.access,
``grant_type=refresh_token``: a new access token and a new refresh token). Bolt refreshes
only inside request handlers, each process on its own; callops posts digests, alerts,
call cards and sweeper updates outside any request, and runs as several replicas, so two
processes spending the same refresh token would break each other (the second gets
``invalid_refresh_token`` and the installation is dead until reinstalled; see
python-slack-sdk#1242, bolt-python#1332).

So every bot token, Bolt's included (``bot.installation_store``), is read through
`TokenRefresher`: a token expiring within `REFRESH_MARGIN` is refreshed first, and the
database decides who does it. The refresh is claimed by compare-and-set on the installation
row (`InstallationStore.claim_bot_refresh`, a lease), the HTTP exchange runs outside any
transaction, and the new tokens are written encrypted as the lease is released. A process
that loses the claim waits briefly and reads the token the winner wrote. A process that
dies holding the lease holds it only `REFRESH_LEASE` seconds; a refresh Slack refuses (or
that times out) is not tried again by anyone for `RETRY_PAUSE` seconds.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import secrets
import time
from collections.abc import Callable

import aiohttp
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.web.async_client import AsyncWebClient

from bot.metrics import Metrics, SlackCallCounter
from bot.settings import Settings
from storage import InstallationRecord, RefreshClaim, Storage, off_loop

log = logging.getLogger(__name__)

REFRESH_MARGIN = 2 * 3600
"""Seconds before its expiry a bot token is refreshed (Bolt's default, 120 minutes): work
that starts with the token has that long before Slack refuses it."""

EXCHANGE_TIMEOUT = 15
"""Seconds the refresh exchange with Slack may take."""

REFRESH_LEASE = 60.0
"""Seconds a process holds a claimed refresh: well above `EXCHANGE_TIMEOUT`, so a lease
runs out only when its holder died."""

RETRY_PAUSE = 30.0
"""Seconds after a failed refresh before any process tries again (Slack is not asked on
every use of a token it just refused to refresh)."""

WAIT_STEP = 0.1
"""Seconds between two looks at the row while another process refreshes it."""


class TokenRefresher:
    """Gives installations whose bot token is good for at least ``margin`` seconds,
    refreshing it first (once across every process on the database) when it is not."""

    def __init__(
        self,
        storage: Storage,
        *,
        client_id: str,
        client_secret: str,
        api_url: str,
        margin: float = REFRESH_MARGIN,
        lease: float = REFRESH_LEASE,
        clock: Callable[[], float] = time.time,
        metrics: Metrics | None = None,
    ) -> None:
        self._installations = storage.installations
        # Counted with every other Web API call (``slack_calls``); the counter never
        # retries, and nothing else may: see `_exchange`.
        self._counted: list[SlackCallCounter] = [SlackCallCounter(metrics)] if metrics else []
        self._client_id = client_id
        self._client_secret = client_secret
        self._api_url = api_url
        self._margin = margin
        self._lease = lease
        self._clock = clock

    @classmethod
    def from_settings(
        cls, settings: Settings, storage: Storage, *, metrics: Metrics | None = None
    ) -> TokenRefresher | None:
        """The refresher of an installable app (client id and secret); None otherwise: a
        single-workspace bot token does not rotate."""
        if not settings.slack_client_id or settings.slack_client_secret is None:
            return None
        return cls(
            storage,
            client_id=settings.slack_client_id,
            client_secret=settings.slack_client_secret.get_secret_value(),
            api_url=settings.slack_api_url,
            metrics=metrics,
        )

    async def bot_installation(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        is_enterprise_install: bool = False,
    ) -> InstallationRecord | None:
        """The team's latest installation with a bot token, its token refreshed if due."""
        record = await off_loop(
            self._installations.find_bot,
            enterprise_id=enterprise_id,
            team_id=team_id,
            is_enterprise_install=is_enterprise_install,
        )
        return None if record is None else await self.fresh(record)

    def due(self, record: InstallationRecord) -> bool:
        """Whether ``record``'s bot token rotates and expires within the margin."""
        expires_at = record.bot_token_expires_at
        return (
            record.bot_refresh_token is not None
            and expires_at is not None
            and expires_at <= self._clock() + self._margin
        )

    async def fresh(self, record: InstallationRecord) -> InstallationRecord:
        """``record`` with a bot token good for the margin: as it is, refreshed by this
        process, or as another process refreshed it meanwhile. If the refresh fails the
        record comes back as it was (its token may still work until it expires); the
        failure is logged and no process tries again for `RETRY_PAUSE` seconds."""
        deadline = time.monotonic() + self._lease + EXCHANGE_TIMEOUT
        while self.due(record):
            owner = secrets.token_hex(8)
            claim = await off_loop(
                self._installations.claim_bot_refresh,
                record,
                expiring_before=self._clock() + self._margin,
                owner=owner,
                lease=self._lease,
            )
            if claim is RefreshClaim.CLAIMED:
                return await self._exchange(record, owner)
            if claim in (RefreshClaim.PAUSED, RefreshClaim.GONE):
                return record
            if claim is RefreshClaim.BUSY:
                if time.monotonic() >= deadline:
                    log.error(
                        "the bot token of team %s is due for refresh and another process "
                        "has held the refresh too long; using the current token",
                        record.team_id,
                    )
                    return record
                await asyncio.sleep(WAIT_STEP)
            again = await off_loop(
                self._installations.find,
                enterprise_id=record.enterprise_id,
                team_id=record.team_id,
                user_id=record.user_id,
                is_enterprise_install=record.is_enterprise_install,
            )
            if again is None or again.bot_token is None:
                return record  # uninstalled meanwhile: the caller's call will say so
            record = again
        return record

    async def _exchange(self, record: InstallationRecord, owner: str) -> InstallationRecord:
        """Spend the refresh token (this process holds the claim) and store what Slack
        gives back."""
        spent = record.bot_refresh_token or ""
        # No retries: a request that reached Slack may have spent the refresh token even if
        # its answer was lost, and the same token sent again would be refused.
        client = AsyncWebClient(
            base_url=self._api_url,
            timeout=EXCHANGE_TIMEOUT,
            retry_handlers=list(self._counted),
        )
        try:
            response = await client.api_call(
                "oauth.v2.access",
                data={
                    "client_id": self._client_id,
                    "client_secret": self._client_secret,
                    "grant_type": "refresh_token",
                    "refresh_token": spent,
                },
            )
            access = str(response["access_token"])
            refresh = str(response["refresh_token"])
            expires_at = int(self._clock()) + int(response["expires_in"])
        except (
            SlackApiError,
            SlackClientError,
            aiohttp.ClientError,
            TimeoutError,
            KeyError,
        ) as exc:
            await off_loop(
                self._installations.release_bot_refresh, record, owner=owner, pause=RETRY_PAUSE
            )
            log.error(
                "could not refresh the bot token of team %s: %s",
                record.team_id,
                _reason(exc),
            )
            return record
        written = await off_loop(
            self._installations.finish_bot_refresh,
            record,
            owner=owner,
            spent_refresh_token=spent,
            bot_token=access,
            bot_refresh_token=refresh,
            expires_at=expires_at,
        )
        if not written:
            log.warning(
                "team %s was installed again during a token refresh; keeping the new install",
                record.team_id,
            )
            newer = await off_loop(
                self._installations.find,
                enterprise_id=record.enterprise_id,
                team_id=record.team_id,
                user_id=record.user_id,
                is_enterprise_install=record.is_enterprise_install,
            )
            return newer or record
        log.info("refreshed the bot token of team %s", record.team_id)
        return dataclasses.replace(
            record, bot_token=access, bot_refresh_token=refresh, bot_token_expires_at=expires_at
        )


def _reason(exc: Exception) -> str:
    """What went wrong, without the request (it carries the refresh token and secret)."""
    if isinstance(exc, SlackApiError):
        return str(exc.response.get("error") or exc.response.status_code)
    if isinstance(exc, KeyError):
        return f"Slack's answer has no {exc.args[0]}"
    return type(exc).__name__
