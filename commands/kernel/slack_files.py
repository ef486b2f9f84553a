"""Files people share in Slack, as the lead upload needs them: find, download, post back.

``bot/`` implements ``SlackFiles`` with the Web API and the bot token; ``commands/`` only
sees this protocol, so the CSV check can be tested with any byte source.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol

from commands.kernel.errors import MessageError


@dataclass(frozen=True)
class SharedFile:
    id: str
    name: str
    size: int
    download_url: str
    """``url_private_download``: only the bot token opens it."""
    user: str
    """Who shared it."""


class SlackFiles(Protocol):
    async def latest_csv(self, channel: str, user: str) -> SharedFile | None:
        """The newest CSV ``user`` shared in ``channel`` (None if there is none to see)."""
        ...

    async def find(self, file_id: str) -> SharedFile | None:
        """A file by id (files.info), to download it again when an upload is approved."""
        ...

    def download(self, file: SharedFile) -> AsyncIterator[bytes]:
        """The file's bytes in chunks, never all in memory."""
        ...

    async def post(
        self, channel: str, *, filename: str, path: str, comment: str, thread_ts: str | None
    ) -> bool:
        """Share the file at ``path`` in ``channel`` (files_upload_v2); False if Slack
        refused (the bot is not in the channel, ...)."""
        ...

    async def send_to(self, user: str, *, filename: str, path: str, comment: str) -> bool:
        """Share the file at ``path`` with ``user`` alone, in the app's direct messages
        with them: a file of customers' numbers made for one person is never shown to
        a channel.  False if Slack refused."""
        ...


class FileDownloadError(MessageError):
    """Slack would not hand the file over (plain-text reason)."""
