"""Bolt's OAuth stores over ``storage``: installations (bot tokens encrypted) and states.

slack_sdk ships SQLite stores of its own, but they keep tokens in plain text; these
wrappers keep Bolt's interface and put the rows in callops' database, encrypted. Every
store call runs off the event loop (`storage.off_loop`).

With Slack token rotation, the installation Bolt finds has already been refreshed through
`bot.token_rotation.TokenRefresher`, under the database's claim, as it is for work outside
requests; Bolt's own rotator, which would refresh in each process on its own, is replaced
by `RefreshedByStore`, which finds nothing left to do.
"""

from __future__ import annotations

import logging
from dataclasses import asdict
from typing import Any

from slack_sdk.oauth.installation_store import Bot, Installation
from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore
from slack_sdk.oauth.state_store.async_state_store import AsyncOAuthStateStore
from slack_sdk.oauth.token_rotation.async_rotator import AsyncTokenRotator

from bot.token_rotation import TokenRefresher
from storage import InstallationRecord, Storage, off_loop, off_loop_quick

log = logging.getLogger(__name__)


class EncryptedInstallationStore(AsyncInstallationStore):
    def __init__(self, storage: Storage, refresher: TokenRefresher | None = None) -> None:
        self._storage = storage
        self._refresher = refresher

    @property
    def logger(self) -> logging.Logger:
        return log

    async def async_save(self, installation: Installation) -> None:
        record = InstallationRecord.from_object(installation)
        await off_loop(self._storage.installations.save, record)

    async def async_save_bot(self, bot: Bot) -> None:
        # Bolt calls this only after its own rotation, which `RefreshedByStore` turns off;
        # saving the bot as an installation row would keep the newest token either way.
        record = InstallationRecord.from_object(_BotAsInstallation(bot))
        await off_loop(self._storage.installations.save, record)

    async def _fresh(self, record: InstallationRecord) -> InstallationRecord:
        if self._refresher is None:
            return record
        return await self._refresher.fresh(record)

    async def async_find_bot(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        is_enterprise_install: bool | None = False,
    ) -> Bot | None:
        # Bolt's authorize runs before the acknowledgement: read on the threads kept for it.
        record = await off_loop_quick(
            self._storage.installations.find_bot,
            enterprise_id=enterprise_id,
            team_id=team_id,
            is_enterprise_install=bool(is_enterprise_install),
        )
        if record is None or record.bot_token is None:
            return None
        return Installation(**asdict(await self._fresh(record))).to_bot()

    async def async_find_installation(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None = None,
        is_enterprise_install: bool | None = False,
    ) -> Installation | None:
        record = await off_loop_quick(
            self._storage.installations.find,
            enterprise_id=enterprise_id,
            team_id=team_id,
            user_id=user_id,
            is_enterprise_install=bool(is_enterprise_install),
        )
        if record is None:
            return None
        if user_id is None:
            # The team's latest installation, whose bot token Bolt uses. A user's own
            # (older) row is returned as it is: callops asks for no user scopes, and Bolt
            # takes the bot token from the latest installation.
            record = await self._fresh(record)
        return Installation(**asdict(record))

    async def async_delete_bot(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        await off_loop(
            self._storage.installations.delete_bot, enterprise_id=enterprise_id, team_id=team_id
        )

    async def async_delete_installation(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None = None,
    ) -> None:
        await off_loop(
            self._storage.installations.delete,
            enterprise_id=enterprise_id,
            team_id=team_id,
            user_id=user_id,
        )

    async def async_delete_all(self, *, enterprise_id: str | None, team_id: str | None) -> None:
        await off_loop(
            self._storage.installations.delete, enterprise_id=enterprise_id, team_id=team_id
        )


class _BotAsInstallation:
    """Adapts slack_sdk's ``Bot`` to the attribute names of an installation."""

    def __init__(self, bot: Bot) -> None:
        self._bot = bot
        self.user_id = bot.bot_user_id

    def __getattr__(self, name: str) -> Any:
        return getattr(self._bot, name, None)


class StoredOAuthStateStore(AsyncOAuthStateStore):
    def __init__(self, storage: Storage, expiration_seconds: int = 600) -> None:
        self._storage = storage
        self._expiration_seconds = expiration_seconds

    @property
    def logger(self) -> logging.Logger:
        return log

    async def async_issue(self, *args: Any, **kwargs: Any) -> str:
        return await off_loop(self._storage.oauth_states.issue, expires_in=self._expiration_seconds)

    async def async_consume(self, state: str) -> bool:
        return await off_loop(self._storage.oauth_states.consume, state)


class RefreshedByStore(AsyncTokenRotator):
    """Bolt's token rotator, told that nothing is left to rotate: the installations Bolt
    finds come from `EncryptedInstallationStore`, already refreshed under the database's
    claim. Bolt would otherwise refresh on its own in each process (and its margin check,
    made a moment later than ours, could still fire), spending a single-use refresh token
    that another process is spending too."""

    async def perform_token_rotation(
        self, *, installation: Installation, minutes_before_expiration: int = 120
    ) -> Installation | None:
        return None

    async def perform_bot_token_rotation(
        self, *, bot: Bot, minutes_before_expiration: int = 120
    ) -> Bot | None:
        return None

    async def perform_user_token_rotation(
        self, *, installation: Installation, minutes_before_expiration: int = 120
    ) -> Installation | None:
        return None
