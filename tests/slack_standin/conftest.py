from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from emulators.slack import SlackStandIn
from tests.slack_standin.loopback import Receiver, connected_receiver


@pytest.fixture
def client(slack: SlackStandIn) -> AsyncWebClient:
    """The app's view of Slack: a real slack_sdk client pointed at the stand-in."""
    return AsyncWebClient(token=slack.bot_token(), base_url=slack.api_url)


@pytest.fixture
async def receiver(slack: SlackStandIn) -> AsyncIterator[Receiver]:
    """A bare request URL that checks signatures with slack_sdk and acks with 200."""
    async with connected_receiver(slack) as recv:
        yield recv
