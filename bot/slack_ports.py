"""The Slack ports a command context carries, over the Web API, in one place.

- ``WebApiMessenger`` (the ``Messenger`` of ``commands``): Slack messages sent through
  the outbox (``bot.posting``), modals and App Home with the Web API, and the rewrite of
  an ephemeral prompt through the ``response_url`` Slack gave with its click.  Slack
  refusing a message (the bot is not in the channel, the message is gone, the trigger id
  expired) is logged and reported as ``None``/``False``: the action that wanted to say
  something has already happened, and must not be undone or retried for it.
- ``ResponseUrls``: every answer through a ``response_url`` (a command's reply, a click's
  rewrite) sent by slack_sdk's own ``AsyncWebhookClient`` over one kept-alive session of
  this process.  Bolt's ``respond`` gives every answer a client of its own, which opens
  an aiohttp session and a new connection to Slack and closes both; under a burst of
  commands that work lands on the acks (``benchmarks/README.md`` keeps the run that
  decided it).  ``ResponseUrls.pool`` puts a ``SharedRespond`` in Bolt's context
  instead: Bolt's ``respond`` arguments, sent through the library's public
  ``send_dict`` by a client given the shared session.  Only public API of Bolt and
  slack_sdk (``tests/test_public_library_api.py``).
- ``WebApiFiles`` (``SlackFiles``): find the CSV a person shared, download it with the
  bot token (``url_private_download`` answers a sign-in page to anyone else), post a
  file back (through the outbox, as every upload).  The download is streamed in chunks,
  so a large lead file never sits in memory whole.  Finding the file reads the channel's
  recent history (``channels:history``), the one place that says who shared which file
  where.
- ``WebApiLookup`` (``SlackLookup``): which channel a command names, and whether the bot
  is in it.  Commands that make the app post into a channel later (notification routes,
  digests) check this when they are set up, so the admin hears "invite me first" at once
  instead of the posts failing with ``not_in_channel`` in the middle of the night.

The messenger, the files and the look-up are thin objects over the request's
``AsyncWebClient`` (making one does no work); ``ResponseUrls`` is made once per process.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Sequence
from ssl import SSLContext
from typing import Any

import aiohttp
import httpx
from slack_bolt.async_app import AsyncBoltContext, AsyncRespond
from slack_sdk.errors import SlackApiError, SlackClientError
from slack_sdk.models.attachments import Attachment
from slack_sdk.models.blocks import Block
from slack_sdk.models.views import View
from slack_sdk.web.async_client import AsyncWebClient
from slack_sdk.webhook import WebhookResponse
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot.post_ledger import PostLedger
from bot.posting import SlackOutbox, answered
from commands.kernel.context import Posted, SlackChannel, StepExecution
from commands.kernel.i18n import _
from commands.kernel.phones import find_phones
from commands.kernel.reply import Reply
from commands.kernel.slack_files import FileDownloadError, SharedFile

log = logging.getLogger(__name__)

ANSWER_TIMEOUT = aiohttp.ClientTimeout(total=30)
"""``AsyncWebhookClient``'s own limit, which it leaves to a session it is given."""


class ResponseUrls:
    """The session every ``response_url`` answer of this process goes through, opened by
    the event loop that uses it (a session belongs to one loop), closed by
    ``Runtime.close``."""

    def __init__(self) -> None:
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def session(self) -> aiohttp.ClientSession:
        """The shared session, opened on first use by this loop (again after a close)."""
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._loop is not loop:
            self._session = aiohttp.ClientSession(timeout=ANSWER_TIMEOUT)
            self._loop = loop
        return self._session

    async def send(
        self,
        url: str,
        message: dict[str, Any],
        *,
        proxy: str | None = None,
        ssl: SSLContext | None = None,
    ) -> WebhookResponse:
        """``message`` as slack_sdk sends a webhook body (``None`` fields left out, Block
        Kit objects as dicts; one retry of a dropped connection, its default)."""
        client = AsyncWebhookClient(url, session=self.session(), proxy=proxy, ssl=ssl)
        return await client.send_dict(message)

    def pool(self, context: AsyncBoltContext) -> None:
        """Put a ``SharedRespond`` in Bolt's context where Slack gave a ``response_url``
        (called by the callops context middleware)."""
        given = context.respond
        if given is None or given.response_url is None:
            return
        context["respond"] = SharedRespond(given, self)

    async def close(self) -> None:
        session, self._session = self._session, None
        if session is not None and self._loop is asyncio.get_running_loop():
            await session.close()


class SharedRespond(AsyncRespond):
    """Bolt's ``respond`` (same arguments, same message) through the shared session."""

    def __init__(self, given: AsyncRespond, urls: ResponseUrls) -> None:
        super().__init__(response_url=given.response_url, proxy=given.proxy, ssl=given.ssl)
        self.urls = urls

    async def __call__(
        self,
        text: str | dict[str, Any] = "",
        blocks: Sequence[dict[str, Any] | Block] | None = None,
        attachments: Sequence[dict[str, Any] | Attachment] | None = None,
        response_type: str | None = None,
        replace_original: bool | None = None,
        delete_original: bool | None = None,
        unfurl_links: bool | None = None,
        unfurl_media: bool | None = None,
        thread_ts: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> WebhookResponse:
        """As Bolt's: a dict as ``text`` is the whole message, given as arguments (so an
        unknown field is refused as Bolt refuses it); empty blocks or attachments are
        left out, as Bolt leaves them out."""
        if isinstance(text, dict):
            return await self(**text)
        if self.response_url is None:
            raise ValueError("respond is unsupported here as there is no response_url")
        message = {
            "text": text,
            "blocks": blocks or None,
            "attachments": attachments or None,
            "response_type": response_type,
            "replace_original": replace_original,
            "delete_original": delete_original,
            "unfurl_links": unfurl_links,
            "unfurl_media": unfurl_media,
            "thread_ts": thread_ts,
            "metadata": metadata,
        }
        answer = await self.urls.send(self.response_url, message, proxy=self.proxy, ssl=self.ssl)
        if not 200 <= answer.status_code < 300:
            # The URL itself is a credential for answers: never logged.
            log.warning("response_url refused an answer: HTTP %s", answer.status_code)
        return answer


class WebApiMessenger:
    def __init__(
        self,
        client: AsyncWebClient,
        *,
        responses: ResponseUrls,
        team: str = "",
        ledger: PostLedger | None = None,
    ) -> None:
        self._client = client
        self._responses = responses
        self._team = team
        self._outbox = SlackOutbox(ledger=ledger)

    async def post(
        self, channel: str, reply: Reply, *, thread_ts: str | None = None
    ) -> Posted | None:
        response = await answered(
            self._outbox.post(self._client, channel, reply, team=self._team, thread_ts=thread_ts),
            f"post to {channel}",
        )
        if response is None:
            return None
        return Posted(channel=str(response["channel"]), ts=str(response["ts"]))

    async def update(self, channel: str, ts: str, reply: Reply) -> bool:
        return await _ok(
            self._outbox.update(self._client, channel, ts, reply, team=self._team),
            f"update of {ts} in {channel}",
        )

    async def tell(self, user: str, channel: str | None, reply: Reply) -> None:
        if channel and await _ok(
            self._outbox.ephemeral(self._client, channel, user, reply),
            f"ephemeral to {user} in {channel}",
        ):
            return
        await _ok(
            self._outbox.post(self._client, user, reply),
            f"could not tell {user}",
            level=logging.WARNING,
        )

    async def rewrite(self, response_url: str, reply: Reply) -> bool:
        payload = reply.payload()
        payload["replace_original"] = True
        try:
            response = await self._responses.send(
                response_url, payload, ssl=self._client.ssl, proxy=self._client.proxy
            )
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            log.info("response_url rewrite failed: %s", type(exc).__name__)
            return False
        if response.status_code != 200:
            log.info("response_url rewrite refused: %s", response.status_code)
            return False
        return True

    async def open_view(self, trigger_id: str, view: View) -> str | None:
        response = await answered(
            self._client.views_open(trigger_id=trigger_id, view=view), "views.open"
        )
        if response is None:
            return None
        opened = response.get("view")
        return str(opened["id"]) if isinstance(opened, dict) and opened.get("id") else ""

    async def update_view(self, view_id: str, view: View) -> bool:
        return await _ok(
            self._client.views_update(view_id=view_id, view=view), f"views.update of {view_id}"
        )

    async def complete_step(
        self, execution: StepExecution, outputs: dict[str, Any] | None, *, error: str | None
    ) -> bool:
        """With the run's own token (Slack issues one per run and wants that one), on a
        client like the bot's (same Web API address, same 429 retries)."""
        client = AsyncWebClient(
            token=execution.token,
            base_url=self._client.base_url,
            retry_handlers=self._client.retry_handlers,
        )
        run = execution.function_execution_id
        return await _ok(
            client.functions_completeSuccess(function_execution_id=run, outputs=outputs or {})
            if error is None
            else client.functions_completeError(function_execution_id=run, error=error),
            f"completing step run {run}",
            level=logging.WARNING,
        )

    async def publish_home(self, user: str, view: View) -> bool:
        return await _ok(
            self._client.views_publish(user_id=user, view=view),
            f"views.publish failed for {user}",
            level=logging.WARNING,
        )


async def _ok(call: Awaitable[Any], what: str, *, level: int = logging.INFO) -> bool:
    return await answered(call, what, level=level) is not None


HISTORY_LIMIT = 100
"""Messages looked at for the newest CSV of the requester."""
CHUNK = 64 * 1024
DOWNLOAD_TIMEOUT = 60.0
MAX_SCANNED = 20 * 1024 * 1024
"""Characters of a posted file read for customers' numbers (a bad-rows file is small)."""


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


def _numbers_in(path: str) -> list[str]:
    """The customers' numbers a file callops is about to post holds (a bad-rows file),
    so the file can be found and deleted again by its numbers' keyed hashes."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fp:
            return find_phones(fp.read(MAX_SCANNED))
    except OSError:
        return []


class WebApiFiles:
    def __init__(
        self, client: AsyncWebClient, *, team: str = "", ledger: PostLedger | None = None
    ) -> None:
        self._client = client
        self._team = team
        self._outbox = SlackOutbox(ledger=ledger)

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
                team=self._team,
                shows=_numbers_in(path),
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


_CHANNEL_ID = re.compile(r"^[CG][A-Z0-9]{2,}$")
_LIST_PAGES = 20
"""At most this many pages of 200 channels are searched for a name (4,000 channels)."""


def _channel(body: dict[str, Any]) -> SlackChannel:
    return SlackChannel(
        id=str(body.get("id", "")),
        name=str(body.get("name", "")),
        is_member=bool(body.get("is_member")),
    )


class WebApiLookup:
    def __init__(self, client: AsyncWebClient) -> None:
        self._client = client

    async def channel(self, ref: str) -> SlackChannel | None:
        if _CHANNEL_ID.match(ref):
            response = await answered(
                self._client.conversations_info(channel=ref), f"conversations.info {ref}"
            )
            body = response.get("channel") if response is not None else None
            return _channel(body) if isinstance(body, dict) else None
        return await self._by_name(ref.lstrip("#").lower())

    async def permalink(self, channel: str, ts: str) -> str | None:
        response = await answered(
            self._client.chat_getPermalink(channel=channel, message_ts=ts),
            f"chat.getPermalink {channel}",
        )
        link = response.get("permalink") if response is not None else None
        return link if isinstance(link, str) and link.startswith("https://") else None

    async def _by_name(self, name: str) -> SlackChannel | None:
        cursor: str | None = None
        for _page in range(_LIST_PAGES):
            response = await answered(
                self._client.conversations_list(
                    types="public_channel,private_channel",
                    exclude_archived=True,
                    limit=200,
                    cursor=cursor,
                ),
                "conversations.list",
            )
            if response is None:
                return None
            for body in response.get("channels") or []:
                if isinstance(body, dict) and str(body.get("name", "")).lower() == name:
                    return _channel(body)
            cursor = (response.get("response_metadata") or {}).get("next_cursor") or None
            if not cursor:
                return None
        return None
