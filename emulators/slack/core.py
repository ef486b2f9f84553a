"""What every part of the stand-in shares, and the registry of Web API methods.

A Web API method is ``async def method(core, call) -> dict`` registered with
``@api_method("chat.postMessage")``; it returns the body without ``ok`` and raises
``SlackError`` for Slack's errors. The server adds ``ok``, journals, and answers.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from emulators.slack.bus import EventBus
from emulators.slack.clock import Clock
from emulators.slack.errors import SlackError
from emulators.slack.holds import Holds
from emulators.slack.ids import IdFactory
from emulators.slack.journal import Journal
from emulators.slack.model import JSON, Channel, Team, Token
from emulators.slack.ratelimit import RateLimits
from emulators.slack.state import State
from emulators.slack.workflows import Workflows

AuthKind = Literal["bot", "app", "none"]


@dataclass
class Core:
    state: State
    clock: Clock
    ids: IdFactory
    bus: EventBus
    journal: Journal
    limits: RateLimits
    app_id: str
    app_token: str
    client_id: str
    client_secret: str
    workflows: Workflows
    base_url: str = ""  # "http://127.0.0.1:PORT/" once bound
    loop: asyncio.AbstractEventLoop | None = None
    socket_tickets: dict[str, float] = field(default_factory=dict)
    holds: Holds = field(default_factory=Holds)
    token_rotation: bool = False
    """The app's ``settings.token_rotation_enabled``: installs get expiring tokens and a
    refresh token (``methods_info.oauth_v2_access``)."""
    token_lifetime: float = 43200.0
    """Seconds an expiring access token lives (Slack: 12 hours)."""


@dataclass
class ApiCall:
    method: str
    params: JSON
    token: Token | None
    team: Team | None
    basic_auth: tuple[str, str] | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def bot_team(self) -> Team:
        if self.team is None:
            raise SlackError("not_authed")
        return self.team

    def text(self, name: str, default: str | None = None) -> str | None:
        value = self.params.get(name, default)
        if value is None:
            return None
        return value if isinstance(value, str) else str(value)

    def required(self, name: str, error: str = "invalid_arguments") -> str:
        value = self.text(name)
        if not value:
            raise SlackError(error)
        return value

    def flag(self, name: str) -> bool:
        value = self.params.get(name)
        if isinstance(value, bool):
            return value
        return str(value).lower() in {"1", "true", "yes"}

    def structured(self, name: str, error: str = "invalid_arguments") -> Any:
        """A JSON-valued argument: form posts carry it as a string, JSON posts as-is."""
        value = self.params.get(name)
        if isinstance(value, str):
            if value == "":
                return None
            try:
                return json.loads(value)
            except json.JSONDecodeError:
                raise SlackError(error) from None
        return value


Handler = Callable[[Core, ApiCall], Awaitable[JSON]]


@dataclass(frozen=True)
class MethodSpec:
    name: str
    auth: AuthKind
    handler: Handler


METHODS: dict[str, MethodSpec] = {}


def api_method(name: str, *, auth: AuthKind = "bot") -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        METHODS[name] = MethodSpec(name=name, auth=auth, handler=handler)
        return handler

    return register


def resolve_channel(core: Core, call: ApiCall, ref: str | None) -> Channel:
    """The channel a bot-token call names, as the bot can see it.

    A user id opens (or finds) the DM with that user, as chat.postMessage does. A private
    channel the bot is not in does not exist for the bot: ``channel_not_found``.
    """
    team = call.bot_team
    if not ref:
        raise SlackError("channel_not_found")
    user = core.state.find_user(ref, team.id) if ref[:1] in {"U", "W"} else None
    if user is not None and user.team_id == team.id and ref == user.id:
        return core.state.open_im(team.id, user.id)
    channel = core.state.find_channel(ref, team.id)
    if channel is None or channel.team_id != team.id:
        raise SlackError("channel_not_found")
    if channel.is_private and team.bot_user_id not in channel.members:
        raise SlackError("channel_not_found")
    return channel


def require_bot_member(call: ApiCall, channel: Channel) -> None:
    if call.bot_team.bot_user_id not in channel.members:
        raise SlackError("not_in_channel")
