"""Bolt's OAuth stores over ``storage``: installations (bot tokens encrypted) and states.

slack_sdk ships SQLite stores of its own, but they keep tokens in plain text; these
wrappers keep Bolt's interface and put the rows in callops' database, encrypted.
"""

from __future__ import annotations

import logging
from dataclasses import asdict
from typing import Any

from slack_sdk.oauth.installation_store import Bot, Installation
from slack_sdk.oauth.installation_store.async_installation_store import AsyncInstallationStore
from slack_sdk.oauth.state_store.async_state_store import AsyncOAuthStateStore

from storage import InstallationRecord, Storage
from storage.offload import off_loop

log = logging.getLogger(__name__)


class EncryptedInstallationStore(AsyncInstallationStore):
    def __init__(self, storage: Storage) -> None:
        self._storage = storage

    @property
    def logger(self) -> logging.Logger:
        return log

    async def async_save(self, installation: Installation) -> None:
        await off_loop(
            self._storage.installations.save, InstallationRecord.from_object(installation)
        )

    async def async_save_bot(self, bot: Bot) -> None:
        # Bolt calls this only for token rotation, which the manifest leaves off; saving
        # the bot as an installation row keeps the newest token either way.
        await off_loop(
            self._storage.installations.save,
            InstallationRecord.from_object(_BotAsInstallation(bot)),
        )

    async def async_find_bot(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        is_enterprise_install: bool | None = False,
    ) -> Bot | None:
        record = await off_loop(
            self._storage.installations.find_bot,
            enterprise_id=enterprise_id,
            team_id=team_id,
            is_enterprise_install=bool(is_enterprise_install),
        )
        if record is None or record.bot_token is None:
            return None
        return Installation(**asdict(record)).to_bot()

    async def async_find_installation(
        self,
        *,
        enterprise_id: str | None,
        team_id: str | None,
        user_id: str | None = None,
        is_enterprise_install: bool | None = False,
    ) -> Installation | None:
        record = await off_loop(
            self._storage.installations.find,
            enterprise_id=enterprise_id,
            team_id=team_id,
            user_id=user_id,
            is_enterprise_install=bool(is_enterprise_install),
        )
        return None if record is None else Installation(**asdict(record))

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
