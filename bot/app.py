"""The one place the Slack app is put together: client, authorization mode, listeners.

Two ways to authorize, as Bolt offers them:
- single workspace: ``SLACK_BOT_TOKEN`` (and ``SLACK_SIGNING_SECRET``);
- distribution: ``SLACK_CLIENT_ID``/``SLACK_CLIENT_SECRET`` with Bolt's OAuth flow, the
  installations kept encrypted in callops' database. With Slack token rotation on, the
  tokens Bolt authorizes with are refreshed by the same `bot.token_rotation.TokenRefresher`
  as those of digests and call cards, never by Bolt's per-process rotator.
"""

from __future__ import annotations

import logging

from slack_bolt.async_app import AsyncApp
from slack_bolt.authorization.async_authorize import AsyncInstallationStoreAuthorize
from slack_bolt.oauth.async_oauth_settings import AsyncOAuthSettings
from slack_sdk.web.async_client import AsyncWebClient

from bot.installation_store import (
    EncryptedInstallationStore,
    RefreshedByStore,
    StoredOAuthStateStore,
)
from bot.listeners import register_all
from bot.listeners.context import name_the_work
from bot.metrics import Metrics, slack_retry_handlers
from bot.runtime import Runtime

log = logging.getLogger(__name__)

BOT_SCOPES = (
    "commands",
    "chat:write",
    "users:read",
    "channels:read",
    "groups:read",
    "files:read",
    "files:write",
    "im:write",
    "channels:history",
    "groups:history",
)
"""Must match ``app-manifest.yml`` (a test checks)."""


class ConfigurationError(Exception):
    """The environment does not describe a runnable Slack app."""


def authorize_url(api_url: str) -> str:
    """Slack's authorize page lives beside its Web API: ``…/api/`` -> ``…/oauth/v2/authorize``,
    which also points the OAuth flow at the Slack stand-in when ``SLACK_API_URL`` does."""
    base = api_url.rstrip("/")
    if base.endswith("/api"):
        base = base[: -len("/api")]
    return base + "/oauth/v2/authorize"


def web_client(
    api_url: str, token: str | None = None, *, metrics: Metrics | None = None
) -> AsyncWebClient:
    """Every Web API client of the app: Slack's 429s are retried after Retry-After, and
    each call is counted in ``metrics`` (Bolt's per-request clients copy the handlers)."""
    return AsyncWebClient(
        token=token, base_url=api_url, retry_handlers=slack_retry_handlers(metrics)
    )


def create_app(rt: Runtime) -> AsyncApp:
    settings = rt.settings
    signing_secret = (
        settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else None
    )
    if not signing_secret and settings.slack_app_token is None:
        raise ConfigurationError("SLACK_SIGNING_SECRET is required to verify requests from Slack.")
    bot_token = settings.slack_bot_token.get_secret_value() if settings.slack_bot_token else None
    oauth = settings.slack_client_id and settings.slack_client_secret
    if bot_token:
        app = AsyncApp(
            client=web_client(settings.slack_api_url, bot_token, metrics=rt.metrics),
            signing_secret=signing_secret,
            before_authorize=name_the_work(rt.registry),
        )
    elif oauth and settings.slack_client_id and settings.slack_client_secret is not None:
        client_secret = settings.slack_client_secret.get_secret_value()
        oauth_settings = AsyncOAuthSettings(
            client_id=settings.slack_client_id,
            client_secret=client_secret,
            scopes=list(BOT_SCOPES),
            installation_store=EncryptedInstallationStore(rt.storage, rt.tokens),
            state_store=StoredOAuthStateStore(rt.storage),
            authorization_url=authorize_url(settings.slack_api_url),
            redirect_uri=settings.slack_redirect_uri,
        )
        # The store refreshes under the database's claim; Bolt must not refresh on its own.
        authorize = oauth_settings.authorize
        if isinstance(authorize, AsyncInstallationStoreAuthorize):
            authorize.token_rotator = RefreshedByStore(
                client_id=settings.slack_client_id, client_secret=client_secret
            )
        app = AsyncApp(
            client=web_client(settings.slack_api_url, metrics=rt.metrics),
            signing_secret=signing_secret,
            before_authorize=name_the_work(rt.registry),
            oauth_settings=oauth_settings,
        )
    else:
        raise ConfigurationError(
            "Set SLACK_BOT_TOKEN (one workspace) or SLACK_CLIENT_ID and SLACK_CLIENT_SECRET "
            "(installable app)."
        )
    register_all(app, rt)
    return app
