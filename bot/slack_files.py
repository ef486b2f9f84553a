"""``SlackFiles`` over the Web API: find the CSV a person shared, download it with the bot
token (``url_private_download`` answers a sign-in page to anyone else), post a file back
(through the outbox, as every upload).

The download is streamed in chunks, so a large lead file never sits in memory whole.
Finding the file reads the channel's recent history (``channels:history``), the one
place that says who shared which file where.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import httpx
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.web.async_client import AsyncWebClient

from bot.posting import SlackOutbox, answered
from commands.kernel.i18n import _
from commands.kernel.slack_files import FileDownloadError, SharedFile

log = logging.getLogger(__name__)

HISTORY_LIMIT = 100
"""Messages looked at for the newest CSV of the requester."""
CHUNK = 64 * 1024
DOWNLOAD_TIMEOUT = 60.0


def _is_csv(body: dict[str, Any]) -> bool:
    name = str(body.get("name") or "").lower()
    return body.get("filetype") == "csv" or name.endswith(".csv")


def _shared(body: dict[str, Any]) -> SharedFile:
    return SharedFile(
        id=str(body.get("id", "")),
        name=str(body.get("name") or "leads.csv"),
        size=int(body.get("size") or 0),
        download_url=str(body.get("url_private_download") or body.get("url_private") or ""),
        user=str(body.get("user") or ""),
    )


class WebApiFiles:
    def __init__(self, client: AsyncWebClient) -> None:
        self._client = client
        self._outbox = SlackOutbox()

    async def latest_csv(self, channel: str, user: str) -> SharedFile | None:
        response = await answered(
            self._client.conversations_history(channel=channel, limit=HISTORY_LIMIT),
            f"conversations.history {channel}",
        )
        if response is None:
            return None
        for message in response.get("messages") or []:
            if not isinstance(message, dict) or message.get("user") != user:
                continue
            for body in message.get("files") or []:
                if isinstance(body, dict) and _is_csv(body):
                    return _shared(body)
        return None

    async def find(self, file_id: str) -> SharedFile | None:
        response = await answered(self._client.files_info(file=file_id), f"files.info {file_id}")
        body = response.get("file") if response is not None else None
        return _shared(body) if isinstance(body, dict) else None

    async def download(self, file: SharedFile) -> AsyncIterator[bytes]:
        if not file.download_url.startswith(("http://", "https://")):
            raise FileDownloadError(_("{file} has no download address").format(file=file.name))
        headers = {"Authorization": f"Bearer {self._client.token or ''}"}
        async with (
            httpx.AsyncClient(timeout=DOWNLOAD_TIMEOUT, trust_env=False) as http,
            http.stream("GET", file.download_url, headers=headers) as response,
        ):
            kind = response.headers.get("content-type", "")
            if response.status_code != 200 or kind.startswith("text/html"):
                # Slack answers a sign-in page, not an error, when the token is not accepted.
                raise FileDownloadError(
                    _("Slack did not let me download {file}").format(file=file.name)
                )
            async for chunk in response.aiter_bytes(CHUNK):
                yield chunk

    async def post(
        self, channel: str, *, filename: str, path: str, comment: str, thread_ts: str | None
    ) -> bool:
        try:
            await self._outbox.upload(
                self._client,
                channel,
                file=path,
                filename=filename,
                title=filename,
                initial_comment=comment,
                thread_ts=thread_ts,
            )
        except SlackApiError as exc:
            log.info("files_upload_v2 to %s: %s", channel, exc.response.get("error"))
            return False
        except (SlackClientError, aiohttp.ClientError, OSError, TimeoutError) as exc:
            # The network failed on the way (the file may or may not be there): the
            # person is told it was not sent, never left with a traceback.
            log.warning("files_upload_v2 to %s failed: %s", channel, type(exc).__name__)
            return False
        return True

    async def send_to(self, user: str, *, filename: str, path: str, comment: str) -> bool:
        # A file is shared into a conversation, so the direct messages are opened first.
        try:
            opened = await answered(
                self._client.conversations_open(users=user), f"conversations_open with {user}"
            )
        except (SlackClientError, aiohttp.ClientError, OSError, TimeoutError) as exc:
            log.warning("conversations_open with %s failed: %s", user, type(exc).__name__)
            return False
        if opened is None:
            return False
        channel = (opened.get("channel") or {}).get("id")
        if not isinstance(channel, str) or not channel:
            return False
        return await self.post(
            channel, filename=filename, path=path, comment=comment, thread_ts=None
        )
