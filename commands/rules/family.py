"""The rules family: calling rules (hours, advertising, frequency) and do-not-call."""

from __future__ import annotations

from commands.kernel.catalog import CommandSpec
from commands.kernel.family import Family
from commands.kernel.i18n import N_
from commands.kernel.interactions import OnClick
from commands.rules import (
    card,
    check,
    compliance,
    consent,
    dnc,
    enforce,
    lists,
    manage,
    refusals,
    watch,
)
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
            N_("dnc add <phone> ... [reason=<text>]"),
            N_("Put numbers on the company's opt-out list: no campaign calls them."),
            Role.OPERATOR,
            ("dnc add 0912 345 678 reason=asked on the phone",),
            handler=dnc.add,
        ),
        CommandSpec(
            "dnc remove",
            "khong-goi xoa",
            N_("dnc remove <phone> ... [reason=<text>]"),
            N_("Take numbers off the company's opt-out list."),
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
            N_("Make the CSV you shared here the national registry's new version."),
            Role.ADMIN,
            handler=dnc.upload,
        ),
        CommandSpec(
            "dnc list",
            "khong-goi danh-sach",
            "dnc list",
            N_("Both do-not-call lists: counts, latest changes, registry versions."),
            Role.VIEWER,
            handler=lists.show_lists,
        ),
        CommandSpec(
            "dnc export",
            "khong-goi xuat",
            N_("dnc export [version=N]"),
            N_("Send yourself both lists as a CSV by direct message."),
            Role.ADMIN,
            handler=lists.export,
        ),
        CommandSpec(
            "consent add",
            "dong-y them",
            N_("consent add <phone> [campaign] [until=DD/MM/YYYY] source=<text>"),
            N_("Record a customer's consent to advertising calls despite the registry."),
            Role.OPERATOR,
            ("consent add 0912 345 678 until=31/12/2026 source=signed form",),
            handler=consent.add,
        ),
        CommandSpec(
            "consent remove",
            "dong-y xoa",
            N_("consent remove <phone> [campaign]"),
            N_("End a customer's consents."),
            Role.OPERATOR,
            handler=consent.remove,
        ),
        CommandSpec(
            "consent check",
            "dong-y kiem-tra",
            N_("consent check <phone>"),
            N_("A number's consents and whether advertising calls may reach it."),
            Role.VIEWER,
            handler=consent.check,
        ),
        CommandSpec(
            "consent list",
            "dong-y danh-sach",
            "consent list",
            N_("Consents in force, soonest to end first."),
            Role.VIEWER,
            handler=consent.show,
        ),
    ),
    clicks=(
        OnClick(card.SWITCH, card.switch_clicked, role=Role.ADMIN),
        OnClick(refusals.REFUSED_BUTTON, refusals.refused_clicked, role=Role.OPERATOR),
        OnClick(refusals.REFUSED_SELECT, refusals.refused_clicked, role=Role.OPERATOR),
        OnClick(watch.PAUSE_BUTTON, watch.pause_clicked, role=Role.OPERATOR),
        OnClick(manage.CONFIRM_LOOSER, manage.looser_confirmed, role=Role.ADMIN),
        OnClick(manage.CLASSIFY, manage.classify_clicked, role=Role.ADMIN),
        OnClick(compliance.EXPORT, compliance.export_clicked, role=Role.ADMIN),
    ),
)
