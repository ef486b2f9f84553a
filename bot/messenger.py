"""The ``Messenger`` of ``commands``: Slack messages sent through the outbox
(``bot.posting``), modals and App Home with the Web API, and the rewrite of an
ephemeral prompt through the ``response_url`` Slack gave with its click (over the one
session every ``response_url`` answer of the process shares: ``bot.response_urls``).

Slack refusing a message (the bot is not in the channel, the message is gone, the
trigger id expired) is logged and reported as ``None``/``False``: the action that wanted
to say something has already happened, and must not be undone or retried for it.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable
from typing import Any

import aiohttp
from slack_sdk.models.views import View
from slack_sdk.web.async_client import AsyncWebClient

from bot.post_ledger import PostLedger
from bot.posting import SlackOutbox, answered
from bot.response_urls import ResponseUrls
from commands.kernel.context import Posted, StepExecution
from commands.kernel.reply import Reply

log = logging.getLogger(__name__)


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
