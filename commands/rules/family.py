"""The rules family: calling rules (hours, advertising, frequency) and do-not-call."""

from __future__ import annotations

from commands.kernel.family import Family
from commands.kernel.interactions import OnClick
from commands.rules import card, dnc, manage
from storage import Role

FAMILY = Family(
    "rules",
    commands={
        "rules": manage.show,
        "rules hours": manage.hours,
        "rules advertising": manage.advertising,
        "rules frequency": manage.frequency,
        "dnc add": dnc.add,
        "dnc remove": dnc.remove,
        "dnc check": dnc.check,
        "dnc upload": dnc.upload,
    },
    clicks=(OnClick(card.SWITCH, card.switch_clicked, role=Role.ADMIN),),
)
