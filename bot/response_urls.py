"""Every answer through a ``response_url`` (a command's reply, a click's rewrite) sent by
slack_sdk's own ``AsyncWebhookClient`` over one kept-alive session of this process.

Bolt's ``respond`` gives every answer a client of its own, which opens an aiohttp
session and a new connection to Slack and closes both; under a burst of commands that
work lands on the acks (``benchmarks/README.md`` keeps the run that decided it).
``ResponseUrls.pool`` puts a ``SharedRespond`` in Bolt's context instead: Bolt's
``respond`` arguments, sent through the library's public ``send_dict`` by a client given
the shared session; ``bot.messenger`` rewrites a clicked message through ``send`` here.
Only public API of Bolt and slack_sdk (``tests/test_public_library_api.py``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from ssl import SSLContext
from typing import Any

import aiohttp
from slack_bolt.async_app import AsyncBoltContext, AsyncRespond
from slack_sdk.models.attachments import Attachment
from slack_sdk.models.blocks import Block
from slack_sdk.webhook import WebhookResponse
from slack_sdk.webhook.async_client import AsyncWebhookClient

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
