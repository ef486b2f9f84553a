"""The notifications family: where call events are told, and the callback URL."""

from __future__ import annotations

from commands.kernel.catalog import CommandSpec
from commands.kernel.family import Family
from commands.kernel.i18n import N_
from commands.notifications import notify
from storage import Role

FAMILY = Family(
    "notifications",
    commands=(
        CommandSpec(
            "notify",
            "thong-bao",
            "notify [add|list|remove|attach|detach|rotate]",
            N_("Post call records from the service's callbacks to channels."),
            Role.ADMIN,
            "notifications",
            handler=notify.notify_command,
        ),
    ),
    actions=(notify.ROTATE_ACTION, notify.ATTACH_ACTION),
)
