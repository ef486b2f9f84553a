"""The privacy family: where callops holds a customer's number, and who sees it."""

from __future__ import annotations

from commands.kernel.catalog import CommandSpec
from commands.kernel.family import Family
from commands.kernel.i18n import N_
from commands.kernel.interactions import OnClick
from commands.privacy import find, overview, reveal
from storage import Role

FAMILY = Family(
    "privacy",
    commands=(
        CommandSpec(
            "privacy",
            "rieng-tu",
            "privacy",
            N_("Customers' personal data: masking, where it goes, how to find and erase it."),
            Role.ADMIN,
            handler=overview.overview,
        ),
        CommandSpec(
            "privacy find",
            "rieng-tu tim",
            N_("privacy find <phone>"),
            N_("Every record, message and file of callops that holds a customer's number."),
            Role.ADMIN,
            ("privacy find 0912345678",),
            handler=find.find,
        ),
    ),
    clicks=(
        # Anyone may click: a viewer is answered with the number masked.
        OnClick(reveal.SHOW_NUMBER_BUTTON, reveal.show_number_clicked, role=Role.VIEWER),
    ),
)
