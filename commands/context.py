"""What every command handler is given: who asked, where, with which role, and a client.

Built by ``bot/`` for each request; handlers never look anything up in Slack or the
database themselves, which keeps them testable against the emulator alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from zoneinfo import ZoneInfo

from callcenter import CallCenter
from storage import Workspace


@dataclass
class CommandContext:
    team_id: str
    user_id: str
    channel_id: str | None
    role: str
    tz: ZoneInfo = field(default_factory=lambda: ZoneInfo("UTC"))
    cc: CallCenter | None = None
    """``None`` when the workspace is not connected; handlers that need it ask ``client()``."""
    workspace: Workspace | None = None
    """The stored connection, when there is one (single-workspace mode may have none)."""
    base_url: str | None = None
    """Where the service is, for ``status``; never the key."""
    offset: int = 0
    """Where a paged listing starts; set when someone clicks Next or Previous."""

    def client(self) -> CallCenter:
        if self.cc is None:
            raise NotConnectedError
        return self.cc


class NotConnectedError(Exception):
    """The workspace has no call-center connection yet."""
