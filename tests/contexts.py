"""Command contexts for tests that call handlers directly, with the app's real ports.

The database is the test's own SQLite file; Slack's ports are the bot's Web API
adapters, on the Slack stand-in when the test gives its client, else on a loopback
address where nothing listens (a handler that reached Slack unexpectedly fails the
test at once); the process's ports are those a real ``Runtime`` makes on the same
database.
"""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

from slack_sdk.web.async_client import AsyncWebClient

from bot.runtime import Runtime
from bot.settings import Settings
from bot.slack_ports import WebApiFiles, WebApiLookup, WebApiMessenger
from commands.kernel.context import CommandContext
from storage import Role, Storage

TZ = ZoneInfo("Asia/Ho_Chi_Minh")
NO_SLACK = "http://127.0.0.1:9/api/"
"""Where Slack is not: the discard port, closed on loopback (connection refused)."""


def command_context(
    storage: Storage,
    *,
    team_id: str = "T1",
    user_id: str = "U1",
    channel_id: str | None = "C1",
    role: Role = Role.VIEWER,
    tz: ZoneInfo = TZ,
    client: AsyncWebClient | None = None,
    **fields: Any,
) -> CommandContext:
    """A context as ``bot/`` builds one, for ``team_id``; ``fields`` sets the rest
    (``cc``, ``workspace``, ``offset``, ``audience``...)."""
    client = client or AsyncWebClient(base_url=NO_SLACK)
    runtime = Runtime.build(Settings(_env_file=None), storage)
    return CommandContext(
        team_id=team_id,
        user_id=user_id,
        channel_id=channel_id,
        role=role,
        tz=tz,
        storage=storage,
        slack=WebApiLookup(client),
        files=WebApiFiles(client, team=team_id),
        messenger=WebApiMessenger(client, responses=runtime.responses, team=team_id),
        app=runtime.app_ports,
        **fields,
    )
