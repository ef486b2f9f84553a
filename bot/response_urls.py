"""Answers through ``response_url``: Bolt's ``respond``, sent by slack_sdk's own
``AsyncWebhookClient`` over one kept-alive session of this process.

Bolt's ``respond`` gives every answer a client of its own, which opens an aiohttp
session and a new connection to Slack and closes both; under a burst of commands that
work lands on the acks (``benchmarks/README.md`` keeps the run that decided it).
``ResponseUrls.pool`` puts a ``SharedRespond`` in Bolt's context instead: the message
built as Bolt builds it, sent by the library's client given the shared session.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import aiohttp
from slack_bolt.async_app import AsyncBoltContext, AsyncRespond
from slack_bolt.context.respond.internals import _build_message
from slack_sdk.webhook import WebhookResponse
from slack_sdk.webhook.async_client import AsyncWebhookClient

log = logging.getLogger(__name__)

ANSWER_TIMEOUT = aiohttp.ClientTimeout(total=30)
"""``AsyncWebhookClient``'s own limit, which it leaves to a session it is given."""


class SharedRespond(AsyncRespond):
    """Bolt's ``respond`` (same arguments, same message) through a shared session."""

    def __init__(self, given: AsyncRespond, session: aiohttp.ClientSession) -> None:
        super().__init__(response_url=given.response_url, proxy=given.proxy, ssl=given.ssl)
        self.session = session

    async def __call__(self, *args: Any, **kwargs: Any) -> WebhookResponse:
        """Bolt's arguments, in Bolt's order; a dict as ``text`` is the whole message."""
        if self.response_url is None:
            raise ValueError("respond is unsupported here as there is no response_url")
        whole = args[0] if args else kwargs.get("text")
        if isinstance(whole, dict):
            message = _build_message(**whole)
        else:
            message = _build_message(*args, **kwargs)
        client = AsyncWebhookClient(
            self.response_url, session=self.session, proxy=self.proxy, ssl=self.ssl
        )
        answer = await client.send_dict(message)
        if not 200 <= answer.status_code < 300:
            # The URL itself is a credential for answers: never logged.
            log.warning("response_url refused an answer: HTTP %s", answer.status_code)
        return answer


class ResponseUrls:
    """The session every ``response_url`` answer of this process goes through, opened by
    the event loop that uses it (a session belongs to one loop)."""

    def __init__(self) -> None:
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def pool(self, context: AsyncBoltContext) -> None:
        """Put a ``SharedRespond`` in Bolt's context where Slack gave a ``response_url``
        (called by the callops context middleware)."""
        given = context.respond
        if given is None or given.response_url is None:
            return
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._loop is not loop:
            self._session = aiohttp.ClientSession(timeout=ANSWER_TIMEOUT)
            self._loop = loop
        context["respond"] = SharedRespond(given, self._session)

    async def close(self) -> None:
        session, self._session = self._session, None
        if session is not None and self._loop is asyncio.get_running_loop():
            await session.close()
