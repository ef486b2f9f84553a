"""Process configuration, read once from the environment (and ``.env``) by pydantic-settings.

Names are the public contract in DESIGN.md; nothing else in the code reads ``os.environ``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from callcenter.addresses import ServiceNetworks
from storage.validation import check_base_url


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore", hide_input_in_errors=True)
    """A refused value is never repeated in the error (a URL may carry a password)."""

    slack_bot_token: SecretStr | None = None
    slack_signing_secret: SecretStr | None = None
    slack_app_token: SecretStr | None = None
    slack_client_id: str | None = None
    slack_client_secret: SecretStr | None = None
    slack_redirect_uri: str | None = Field(
        default=None,
        description="OAuth redirect URL (https://<host>/slack/oauth_redirect); Slack uses the "
        "app's configured one when unset, the Slack stand-in needs it.",
    )
    slack_api_url: str = "https://slack.com/api/"

    callops_db: str = Field(
        default="callops.db",
        repr=False,
        description="A SQLite path or a postgresql:// URL (its password is a secret: kept "
        "out of the settings' repr, and the log filter blanks URL passwords).",
    )
    callops_secret_key: SecretStr | None = Field(
        default=None,
        description="Fernet key(s) for secrets at rest; comma-separated, newest first.",
    )
    callops_base_url: str | None = None
    """Single-workspace mode's service, checked by the rule every base URL follows."""
    callops_api_key: SecretStr | None = None
    callops_timezone: str = "UTC"
    callops_admins: str = ""
    callops_service_networks: str = Field(
        default="",
        description="Comma-separated CIDRs where the call-center service may be besides "
        "public addresses (the demo and the tests allow 127.0.0.0/8,::1/128).",
    )
    callops_public_url: str = Field(
        default="http://localhost:3000",
        description="Where the service can reach this app (the callback URL's base).",
    )

    callops_log_format: Literal["text", "json"] = Field(
        default="text",
        description="Log lines as text, or as JSON objects (one per line) for a collector.",
    )

    callops_drain_seconds: float = Field(
        default=25.0,
        gt=0,
        le=3600,
        description="Seconds a stopping process (SIGTERM, SIGINT) has to answer what it "
        "accepted before it exits: under Kubernetes' default grace period of 30.",
    )

    @field_validator("callops_base_url")
    @classmethod
    def _base_url(cls, value: str | None) -> str | None:
        return check_base_url(value) if value else value

    @field_validator("callops_service_networks")
    @classmethod
    def _networks(cls, value: str) -> str:
        ServiceNetworks.parse(value)  # a CIDR that does not parse stops the start
        return value

    @property
    def service_networks(self) -> ServiceNetworks:
        return ServiceNetworks.parse(self.callops_service_networks)

    def secret_values(self) -> list[str]:
        """Every secret value this process was given, for the log filter to blank out."""
        values = [*self.secret_keys]
        for secret in (
            self.slack_bot_token,
            self.slack_signing_secret,
            self.slack_app_token,
            self.slack_client_secret,
            self.callops_api_key,
        ):
            if secret is not None:
                values.append(secret.get_secret_value())
        return values

    @property
    def secret_keys(self) -> list[str]:
        """The Fernet keys, newest first (the first one encrypts; all of them decrypt)."""
        if self.callops_secret_key is None:
            return []
        raw = self.callops_secret_key.get_secret_value()
        return [k.strip() for k in raw.split(",") if k.strip()]

    @property
    def admin_ids(self) -> frozenset[str]:
        return frozenset(u.strip() for u in self.callops_admins.split(",") if u.strip())
