"""The rules family: calling rules (hours, advertising, frequency) and do-not-call."""

from __future__ import annotations

from commands.kernel.catalog import CommandSpec
from commands.kernel.family import Family
from commands.kernel.i18n import N_
from commands.kernel.interactions import OnClick
from commands.rules import card, dnc, manage
from storage import Role

FAMILY = Family(
    "rules",
    commands=(
        CommandSpec(
            "rules",
            "quy-dinh",
            "rules",
            N_("The calling rules: hours, calls per number, do-not-call list (Decree 91)."),
            Role.VIEWER,
            handler=manage.show,
        ),
        CommandSpec(
            "rules hours",
            "quy-dinh gio",
            N_("rules hours HH:MM-HH:MM [campaign]"),
            N_("When advertising calls may be made, for all or one campaign."),
            Role.ADMIN,
            ("rules hours 08:00-17:00",),
            handler=manage.hours,
        ),
        CommandSpec(
            "rules advertising",
            "quy-dinh quang-cao",
            N_("rules advertising <campaign> on|off"),
            N_("Whether the calling rules apply to a campaign."),
            Role.ADMIN,
            handler=manage.advertising,
        ),
        CommandSpec(
            "rules frequency",
            "quy-dinh tan-suat",
            "rules frequency <N>",
            N_("Advertising calls one number may get in 24 hours."),
            Role.ADMIN,
            handler=manage.frequency,
        ),
        CommandSpec(
            "dnc add",
            "khong-goi them",
            N_("dnc add <phone> ..."),
            N_("Put numbers on the do-not-call list."),
            Role.OPERATOR,
            ("dnc add 0912 345 678",),
            handler=dnc.add,
        ),
        CommandSpec(
            "dnc remove",
            "khong-goi xoa",
            N_("dnc remove <phone> ..."),
            N_("Take numbers off the do-not-call list."),
            Role.ADMIN,
            handler=dnc.remove,
        ),
        CommandSpec(
            "dnc check",
            "khong-goi kiem-tra",
            N_("dnc check <phone> ..."),
            N_("Whether numbers may be called."),
            Role.VIEWER,
            handler=dnc.check,
        ),
        CommandSpec(
            "dnc upload",
            "khong-goi tai-len",
            "dnc upload",
            N_("Add every number of the CSV you shared here to the do-not-call list."),
            Role.ADMIN,
            handler=dnc.upload,
        ),
    ),
    clicks=(OnClick(card.SWITCH, card.switch_clicked, role=Role.ADMIN),),
)
