"""OAuth v2 install: the authorize page redirects with a code; oauth.v2.access trades it."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from emulators.slack import SUPERVISOR, SlackStandIn

# slack_sdk itself still passes aiohttp.BasicAuth for oauth.v2.access
pytestmark = pytest.mark.filterwarnings("ignore:BasicAuth is deprecated:DeprecationWarning")


async def test_install_flow_issues_a_working_bot_token(slack: SlackStandIn) -> None:
    query = {
        "client_id": slack.client_id,
        "scope": "commands,chat:write",
        "state": "s-123",
        "redirect_uri": "http://127.0.0.1:9/slack/oauth_redirect",
    }
    async with (
        aiohttp.ClientSession() as session,
        session.get(slack.oauth_authorize_url, params=query, allow_redirects=False) as page,
    ):
        assert page.status == 302
        location = page.headers["Location"]
    assert location.startswith(query["redirect_uri"])
    returned = parse_qs(urlsplit(location).query)
    assert returned["state"] == ["s-123"]
    anonymous = AsyncWebClient(base_url=slack.api_url)
    granted = await anonymous.oauth_v2_access(
        client_id=slack.client_id, client_secret=slack.client_secret, code=returned["code"][0]
    )
    assert granted["team"]["id"] == "T0001" and granted["authed_user"]["id"] == SUPERVISOR
    assert granted["bot_user_id"] == slack.team().bot_user_id
    bot = AsyncWebClient(token=granted["access_token"], base_url=slack.api_url)
    assert (await bot.auth_test())["team_id"] == "T0001"
    with pytest.raises(SlackApiError) as caught:  # a code is good once
        await anonymous.oauth_v2_access(
            client_id=slack.client_id, client_secret=slack.client_secret, code=returned["code"][0]
        )
    assert caught.value.response["error"] == "invalid_code"
    assert granted["access_token"] not in repr(slack.journal())
