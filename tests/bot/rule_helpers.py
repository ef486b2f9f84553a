"""Calling hours for the tests of the calling rules: written and read on Vietnam's clock
(the decree's, which the rules read whatever zone the workspace shows), and set as an
admin types them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from commands.rules.guard import DECREE_TZ
from commands.rules.manage import CONFIRM_LOOSER
from emulators.slack import SUPERVISOR, SlackStandIn
from tests.bot.approval_helpers import ask, button_ids

JSON = dict[str, Any]


def hhmm(moment: datetime) -> str:
    return moment.strftime("%H:%M")


def vietnam_now() -> datetime:
    """Now on the decree's clock, which the rules read whatever the workspace shows."""
    return datetime.now(UTC).astimezone(DECREE_TZ)


def hours_ahead() -> tuple[datetime, datetime]:
    """Calling hours that open two hours from now and close an hour later: now is
    outside them, and the next allowed time is their start."""
    now = vietnam_now()
    return now + timedelta(hours=2), now + timedelta(hours=3)


def minutes(start: datetime, end: datetime) -> tuple[int, int]:
    """Hours as the calling rules store them: minutes of the day, start and end."""
    return start.hour * 60 + start.minute, end.hour * 60 + end.minute


async def set_rule(slack: SlackStandIn, text: str) -> JSON:
    """Type a ``rules`` change as an admin; one looser than the decree asks first, and
    its "Set it anyway" is clicked.  The reply that says what was set."""
    reply = await ask(slack, text)
    if CONFIRM_LOOSER not in button_ids(reply):
        return reply
    seen = {m["ts"] for m in slack.ephemerals(SUPERVISOR)}
    await slack.driver.block_action(
        user=SUPERVISOR, action_id=CONFIRM_LOOSER, ephemeral_ts=reply["ts"]
    )
    return await slack.wait_for(
        lambda: next((m for m in slack.ephemerals(SUPERVISOR) if m["ts"] not in seen), None)
    )


async def hours_opening_later(slack: SlackStandIn) -> datetime:
    """Set the hours of ``hours_ahead`` as an admin types them; when they open."""
    later, after = hours_ahead()
    await set_rule(slack, f"rules hours {hhmm(later)}-{hhmm(after)}")
    return later
