"""Reading who clicked where out of an interaction payload, one way for every listener.

Block actions carry the team under ``team`` (or, in some Enterprise Grid payloads, only on
the user) and the channel under ``channel`` (absent for App Home and modals).
"""

from __future__ import annotations

from typing import Any


def where(body: dict[str, Any]) -> tuple[str, str, str | None]:
    """Team id, user id, and channel id (None outside a channel)."""
    team = (body.get("team") or {}).get("id") or body["user"].get("team_id")
    channel = (body.get("channel") or {}).get("id")
    return str(team), str(body["user"]["id"]), channel
