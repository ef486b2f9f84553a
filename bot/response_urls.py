"""Answers through ``response_url``: one kept-alive HTTP session, the body serialised
once with orjson.

Bolt's ``respond`` builds an ``AsyncWebhookClient`` without a session, so every answer
opens an aiohttp session and a new connection to Slack and closes both: about a tenth of
the CPU of a ``/callops`` command (``benchmarks/ack.py``).  ``ResponseUrls.pool``
puts a ``PooledRespond`` in Bolt's context instead.

``PooledRespond`` builds the message exactly as Bolt's ``respond`` does (Bolt's
``_build_message``; see ``answer_body`` for what the client adds) and posts it as
``AsyncWebhookClient`` does, with the same single retry on a dropped connection (its own
default handler, ``AsyncConnectionErrorRetryHandler``).  What it leaves out is the
client's per-answer work that changes nothing on the wire: a client object per answer,
its User-Agent and proxy looked up again each time, its retry bookkeeping built before
anything failed, its blocks tested again for objects Bolt has already turned into dicts,
and ``json.dumps`` of the whole message.  A campaigns page is some 5 KB
of JSON with a hundred table cells; orjson writes it in a fraction of the time.  Together
these were about 7 % of the CPU of ``/callops campaigns`` (``benchmarks/ack.py``).

Unlike ``AsyncWebhookClient`` given a session, an answer has a time limit (the client's
own default, 30 s), and an answer Slack refuses (an expired ``response_url``, more than
five answers to one) is logged instead of vanishing unseen.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from ssl import SSLContext
from typing import Any

import aiohttp
import orjson
from slack_bolt.async_app import AsyncBoltContext, AsyncRespond
from slack_bolt.context.respond.internals import _build_message
from slack_sdk.http_retry.builtin_async_handlers import AsyncConnectionErrorRetryHandler
from slack_sdk.http_retry.request import HttpRequest as RetryRequest
from slack_sdk.http_retry.state import RetryState
from slack_sdk.models.attachments import Attachment
from slack_sdk.models.blocks import Block
from slack_sdk.proxy_env_variable_loader import load_http_proxy_from_env
from slack_sdk.web.internal_utils import get_user_agent
from slack_sdk.webhook import WebhookResponse

log = logging.getLogger(__name__)

ANSWER_TIMEOUT = aiohttp.ClientTimeout(total=30)
"""``AsyncWebhookClient``'s default time limit, which it applies only to sessions it
opens itself."""
_RETRY = AsyncConnectionErrorRetryHandler()
"""``AsyncWebhookClient``'s default: one more try when the connection was dropped or
refused (a kept-alive connection Slack had just closed, say)."""


def answer_body(message: dict[str, Any]) -> bytes:
    """A message built by Bolt's ``_build_message`` as the JSON ``AsyncWebhookClient``
    would send: without the fields left None, keys that are not strings written as
    strings (as ``json.dumps`` writes them).  That is all ``slack_sdk``'s ``_build_body``
    does to such a message: ``_build_message`` has already turned its blocks and
    attachments into dicts, and ``_build_body`` would only test each of them again
    against six abstract classes (about 2 % of a campaigns command in cProfile)."""
    present = {key: value for key, value in message.items() if value is not None}
    return orjson.dumps(present, option=orjson.OPT_NON_STR_KEYS)


class PooledRespond(AsyncRespond):
    """Bolt's ``respond`` (same arguments, same message), through a shared session."""

    def __init__(
        self,
        *,
        response_url: str,
        session: Callable[[], aiohttp.ClientSession],
        headers: dict[str, str],
        proxy: str | None = None,
        ssl: SSLContext | None = None,
    ) -> None:
        super().__init__(response_url=response_url, proxy=proxy, ssl=ssl)
        self._session = session
        self._headers = headers

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
        if isinstance(text, dict):
            message = _build_message(**text)
        else:
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
        return await self._post(self.response_url, answer_body(message))

    async def _post(self, url: str, body: bytes) -> WebhookResponse:
        state = RetryState()
        while True:
            try:
                async with self._session().post(
                    url,
                    data=body,
                    headers=self._headers,
                    proxy=self.proxy,
                    ssl=self.ssl if self.ssl is not None else True,
                    timeout=ANSWER_TIMEOUT,
                ) as res:
                    text = await res.text()
                    answered = WebhookResponse(
                        url=url, status_code=res.status, body=text, headers=dict(res.headers)
                    )
            except Exception as exc:
                request = RetryRequest(
                    method="POST", url=url, headers=dict(self._headers), data=body
                )
                if not await _RETRY.can_retry_async(state=state, request=request, error=exc):
                    raise
                await _RETRY.prepare_for_next_attempt_async(state=state, request=request, error=exc)
                continue
            if not 200 <= answered.status_code < 300:
                # The URL itself is a credential for answers: never logged.
                log.warning(
                    "response_url refused an answer: HTTP %s %s",
                    answered.status_code,
                    answered.body[:200],
                )
            return answered


class ResponseUrls:
    """The session every ``response_url`` answer of this process goes through."""

    def __init__(self) -> None:
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        # What ``AsyncWebhookClient`` works out again for every answer: the same for all.
        self._headers = {
            "Content-Type": "application/json;charset=utf-8",
            "User-Agent": get_user_agent(),
        }
        self._proxy = load_http_proxy_from_env(log)

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
            context["respond"] = self.respond_to(
                given.response_url, proxy=given.proxy, ssl=given.ssl
            )

    def respond_to(
        self, response_url: str, *, proxy: str | None = None, ssl: SSLContext | None = None
    ) -> PooledRespond:
        """A ``respond`` answering ``response_url`` through this process's session."""
        return PooledRespond(
            response_url=response_url,
            session=self.session,
            headers=self._headers,
            proxy=proxy or self._proxy,
            ssl=ssl,
        )

    async def close(self) -> None:
        session, self._session = self._session, None
        if session is not None and self._loop is asyncio.get_running_loop():
            await session.close()
