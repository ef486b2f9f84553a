"""The notifications family: where call events are told, and the callback URL."""

from __future__ import annotations

from commands.kernel.family import Family
from commands.notifications import notify

FAMILY = Family(
    "notifications",
    commands={"notify": notify.notify_command},
    actions=(notify.ROTATE_ACTION, notify.ATTACH_ACTION),
)
