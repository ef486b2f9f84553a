"""``SlackLookup`` over the Web API: which channel a command names, and whether the bot is in it.

Commands that make the app post into a channel later (notification routes, digests) check
this when they are set up, so the admin hears "invite me first" at once instead of the
posts failing with ``not_in_channel`` in the middle of the night.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from bot.posting import answered
from commands.kernel.context import SlackChannel

log = logging.getLogger(__name__)

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
        for _ in range(_LIST_PAGES):
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
