"""``/callops``: acknowledge at once, then run the command and answer via ``response_url``.

Bolt returns the HTTP response the moment ``ack()`` is called and lets the rest of the
listener run after it, so a slow call-center service never makes Slack show
"operation timed out".
"""

from __future__ import annotations

import json
import logging
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from bot.delivery import deliver
from bot.runtime import Runtime
from commands.dispatch import dispatch

log = logging.getLogger(__name__)


def register(app: AsyncApp, rt: Runtime) -> None:
    @app.command("/callops")
    async def callops(
        ack: AsyncAck, command: dict[str, Any], respond: AsyncRespond, client: AsyncWebClient
    ) -> None:
        await ack()
        ctx = await rt.context(
            client,
            team_id=command["team_id"],
            user_id=command["user_id"],
            channel_id=command.get("channel_id"),
        )
        outcome = await dispatch(ctx, command.get("text") or "")
        metadata = json.dumps({"channel": command.get("channel_id")})
        await deliver(
            outcome,
            respond=respond,
            client=client,
            trigger_id=command.get("trigger_id"),
            private_metadata=metadata,
        )
