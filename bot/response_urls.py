"""Answers through ``response_url`` over one kept-alive HTTP session.

Bolt's ``respond`` builds an ``AsyncWebhookClient`` without a session, so every answer
opens an aiohttp session and a new connection to Slack and closes both: about a tenth of
the CPU of a ``/callops`` command (``benchmarks/ack.py``).  ``ResponseUrls.pool``
puts a ``PooledRespond`` in Bolt's context instead: the same message, built by Bolt's own
``_build_message``, posted by the same ``AsyncWebhookClient``, through one session that
keeps its connections open between answers and is closed with the runtime.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from ssl import SSLContext
from typing import Any

import aiohttp
from slack_bolt.async_app import AsyncBoltContext, AsyncRespond
from slack_bolt.context.respond.internals import _build_message
from slack_sdk.models.attachments import Attachment
from slack_sdk.models.blocks import Block
from slack_sdk.webhook import WebhookResponse
from slack_sdk.webhook.async_client import AsyncWebhookClient


class PooledRespond(AsyncRespond):
    """Bolt's ``respond`` (same arguments, same message), through a shared session."""

    def __init__(
        self,
        *,
        response_url: str,
        session: Callable[[], aiohttp.ClientSession],
        proxy: str | None = None,
        ssl: SSLContext | None = None,
    ) -> None:
        super().__init__(response_url=response_url, proxy=proxy, ssl=ssl)
        self._session = session

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
        if self.response_url is None:
            raise ValueError("respond is unsupported here as there is no response_url")
        client = AsyncWebhookClient(
            url=self.response_url, proxy=self.proxy, ssl=self.ssl, session=self._session()
        )
        if isinstance(text, dict):
            return await client.send_dict(_build_message(**text))
        message = _build_message(
            text=text,
            blocks=blocks,
            attachments=attachments,
            response_type=response_type,
            replace_original=replace_original,
            delete_original=delete_original,
            unfurl_links=unfurl_links,
            unfurl_media=unfurl_media,
            thread_ts=thread_ts,
            metadata=metadata,
        )
        return await client.send_dict(message)


class ResponseUrls:
    """The session every ``response_url`` answer of this process goes through."""

    def __init__(self) -> None:
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def session(self) -> aiohttp.ClientSession:
        """The shared session, opened on first use by the event loop that uses it (a
        session belongs to one loop; a runtime driven by a new loop gets a new one)."""
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._loop is not loop:
            self._session = aiohttp.ClientSession()
            self._loop = loop
        return self._session

    def pool(self, context: AsyncBoltContext) -> None:
        """Put a ``PooledRespond`` in Bolt's context in place of Bolt's own, when the
        request has a ``response_url`` (called by the callops context middleware, so the
        swap costs no middleware of its own)."""
        given = context.respond
        if given is not None and given.response_url is not None:
            context["respond"] = PooledRespond(
                response_url=given.response_url,
                session=self.session,
                proxy=given.proxy,
                ssl=given.ssl,
            )

    async def close(self) -> None:
        session, self._session = self._session, None
        if session is not None and self._loop is asyncio.get_running_loop():
            await session.close()
