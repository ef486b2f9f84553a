"""The rules family: calling rules (hours, advertising, frequency) and do-not-call."""

from __future__ import annotations

from commands.kernel.catalog import CommandSpec
from commands.kernel.family import Family
from commands.kernel.i18n import N_
from commands.kernel.interactions import OnClick
from commands.rules import card, check, compliance, dnc, enforce, manage, watch
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
            N_("rules advertising <campaign> [<campaign> ...] on|off"),
            N_(
                "Classify campaigns as advertising (on) or service (off); match=<text> "
                "shows the campaigns whose name has it first."
            ),
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
            "rules channel",
            "quy-dinh kenh",
            N_("rules channel <#channel>|off"),
            N_("Where rule events go: calls the service placed against the rules, pauses."),
            Role.ADMIN,
            ("rules channel #compliance",),
            handler=watch.channel,
        ),
        CommandSpec(
            "rules enforce",
            "quy-dinh cuong-che",
            N_("rules enforce on|off"),
            N_("Pause advertising campaigns outside the calling hours, start them again after."),
            Role.ADMIN,
            handler=enforce.enforce,
        ),
        CommandSpec(
            "rules brand",
            "quy-dinh thuong-hieu",
            N_('rules brand "<registered brand name>"|off'),
            N_("The brand name advertising autocalls should say in their first sentence."),
            Role.ADMIN,
            handler=manage.brand,
        ),
        CommandSpec(
            "compliance",
            "tuan-thu",
            N_("compliance [today|yesterday|week|month|DD/MM/YYYY-DD/MM/YYYY]"),
            N_("Advertising calls, refusals by rule and looser settings, with a CSV export."),
            Role.ADMIN,
            ("compliance week",),
            handler=compliance.compliance,
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
            N_("dnc check <phone>"),
            N_("Every calling rule for a number now, and whether it may be called."),
            Role.VIEWER,
            handler=check.check,
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
    clicks=(
        OnClick(card.SWITCH, card.switch_clicked, role=Role.ADMIN),
        OnClick(watch.PAUSE_BUTTON, watch.pause_clicked, role=Role.OPERATOR),
        OnClick(manage.CONFIRM_LOOSER, manage.looser_confirmed, role=Role.ADMIN),
        OnClick(manage.CLASSIFY, manage.classify_clicked, role=Role.ADMIN),
        OnClick(compliance.EXPORT, compliance.export_clicked, role=Role.ADMIN),
    ),
)
