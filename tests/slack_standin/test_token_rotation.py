"""Token rotation as Slack documents it: an app with rotation on gets 12-hour ``xoxe.xoxb-``
tokens and a refresh token; ``oauth.v2.access`` with ``grant_type=refresh_token`` gives a
new pair; each refresh token works once; an expired access token is refused."""

from __future__ import annotations

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from emulators.slack import TEAM, SlackStandIn
from emulators.slack.journal import REDACTED

# slack_sdk itself still passes aiohttp.BasicAuth for oauth.v2.access
pytestmark = pytest.mark.filterwarnings("ignore:BasicAuth is deprecated:DeprecationWarning")


async def refresh(slack: SlackStandIn, refresh_token: str) -> dict[str, object]:
    anonymous = AsyncWebClient(base_url=slack.api_url)
    response = await anonymous.oauth_v2_access(
        client_id=slack.client_id,
        client_secret=slack.client_secret,
        grant_type="refresh_token",
        refresh_token=refresh_token,
    )
    return dict(response.data)  # type: ignore[arg-type]


async def install(slack: SlackStandIn) -> dict[str, object]:
    anonymous = AsyncWebClient(base_url=slack.api_url)
    response = await anonymous.oauth_v2_access(
        client_id=slack.client_id, client_secret=slack.client_secret, code=slack.approve_install()
    )
    return dict(response.data)  # type: ignore[arg-type]


async def auth_test_error(slack: SlackStandIn, token: str) -> str | None:
    try:
        await AsyncWebClient(token=token, base_url=slack.api_url).auth_test()
    except SlackApiError as exc:
        return str(exc.response["error"])
    return None


async def test_without_rotation_an_install_gets_a_lasting_token(slack: SlackStandIn) -> None:
    granted = await install(slack)
    assert str(granted["access_token"]).startswith("xoxb-")
    assert "refresh_token" not in granted and "expires_in" not in granted
    slack.clock.advance(30 * 24 * 3600)
    assert await auth_test_error(slack, str(granted["access_token"])) is None


async def test_rotation_gives_expiring_tokens_that_refresh_once() -> None:
    async with SlackStandIn(token_rotation=True) as slack:
        granted = await install(slack)
        access, refresh_token = str(granted["access_token"]), str(granted["refresh_token"])
        assert access.startswith("xoxe.xoxb-1-") and refresh_token.startswith("xoxe-1-")
        assert granted["expires_in"] == 43200 and granted["token_type"] == "bot"
        assert await auth_test_error(slack, access) is None

        slack.clock.advance(3600)  # an hour on, the app refreshes
        renewed = await refresh(slack, refresh_token)
        assert renewed["team"] == {"id": TEAM, "name": slack.team().name}
        new_access, new_refresh = str(renewed["access_token"]), str(renewed["refresh_token"])
        assert new_access.startswith("xoxe.xoxb-1-") and new_access != access
        assert new_refresh.startswith("xoxe-1-") and new_refresh != refresh_token
        assert renewed["expires_in"] == 43200

        with pytest.raises(SlackApiError) as reused:  # a refresh token works once
            await refresh(slack, refresh_token)
        assert reused.value.response["error"] == "invalid_refresh_token"
        with pytest.raises(SlackApiError) as unknown:
            await refresh(slack, "xoxe-1-not-issued")
        assert unknown.value.response["error"] == "invalid_refresh_token"

        # 12 hours after the install (the stand-in's clock) the first token is dead; the
        # new one, issued an hour later, is not yet.
        assert await auth_test_error(slack, access) is None  # still valid after the refresh
        slack.clock.advance(43200 - 3600)
        assert await auth_test_error(slack, access) == "token_expired"
        assert await auth_test_error(slack, new_access) is None
        slack.clock.advance(3600)
        assert await auth_test_error(slack, new_access) == "token_expired"
        # The refresh token of an expired access token still works, once.
        assert str((await refresh(slack, new_refresh))["access_token"]).startswith("xoxe.xoxb")

        exchanges = slack.journal("oauth.v2.access")
        refreshes = [e for e in exchanges if e.params.get("grant_type") == "refresh_token"]
        assert [e.error for e in refreshes] == [
            None,
            "invalid_refresh_token",
            "invalid_refresh_token",
            None,
        ]
        for entry in exchanges:  # the journal never keeps a secret
            for name in ("client_secret", "refresh_token", "code"):
                assert entry.params.get(name) in (None, REDACTED)
            for name in ("access_token", "refresh_token"):
                assert entry.response.get(name) in (None, REDACTED)
        assert refresh_token not in repr(exchanges) and new_access not in repr(exchanges)


async def test_refresh_needs_the_apps_credentials_and_a_known_grant_type() -> None:
    async with SlackStandIn(token_rotation=True) as slack:
        refresh_token = str((await install(slack))["refresh_token"])
        anonymous = AsyncWebClient(base_url=slack.api_url)
        with pytest.raises(SlackApiError) as wrong_secret:
            await anonymous.oauth_v2_access(
                client_id=slack.client_id,
                client_secret="not-the-secret",
                grant_type="refresh_token",
                refresh_token=refresh_token,
            )
        assert wrong_secret.value.response["error"] == "bad_client_secret"
        with pytest.raises(SlackApiError) as wrong_grant:
            await anonymous.oauth_v2_access(
                client_id=slack.client_id,
                client_secret=slack.client_secret,
                grant_type="password",
                refresh_token=refresh_token,
            )
        assert wrong_grant.value.response["error"] == "invalid_grant_type"
        # Neither attempt used the refresh token up.
        assert str((await refresh(slack, refresh_token))["refresh_token"]).startswith("xoxe-1-")


async def test_uninstalling_kills_the_refresh_token() -> None:
    async with SlackStandIn(token_rotation=True) as slack:
        refresh_token = str((await install(slack))["refresh_token"])
        slack.core.state.revoke_tokens(TEAM)
        with pytest.raises(SlackApiError) as revoked:
            await refresh(slack, refresh_token)
        assert revoked.value.response["error"] == "invalid_refresh_token"
