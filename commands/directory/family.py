"""The directory family: users, groups and the service's other listings."""

from __future__ import annotations

from commands.directory import groups, listings, users
from commands.kernel.catalog import CommandSpec
from commands.kernel.family import Family
from commands.kernel.i18n import N_
from storage import Role

FAMILY = Family(
    "directory",
    commands=(
        CommandSpec(
            "users",
            "nguoi-dung",
            "users",
            N_("Users of the call center."),
            Role.VIEWER,
            "directory",
            handler=listings.users,
        ),
        CommandSpec(
            "groups",
            "nhom",
            "groups",
            N_("Groups of users."),
            Role.VIEWER,
            "directory",
            handler=listings.groups,
        ),
        CommandSpec(
            "templates",
            "mau-loi-thoai",
            "templates",
            N_("Call templates and their placeholders."),
            Role.VIEWER,
            "directory",
            handler=listings.templates,
        ),
        CommandSpec(
            "carriers",
            "nha-mang",
            "carriers",
            N_("Carriers and their free capacity."),
            Role.VIEWER,
            "directory",
            handler=listings.carriers,
        ),
        CommandSpec(
            "gateways",
            "cong-ket-noi",
            "gateways",
            N_("SIP gateways."),
            Role.VIEWER,
            "directory",
            handler=listings.gateways,
        ),
        CommandSpec(
            "blacklist",
            "danh-sach-chan",
            "blacklist",
            N_("Blocked numbers."),
            Role.VIEWER,
            "directory",
            handler=listings.blacklist,
        ),
        CommandSpec(
            "group add",
            "nhom them",
            N_("group add <name> [-- <description>]"),
            N_("Create a group."),
            Role.OPERATOR,
            "directory",
            handler=groups.group_add,
        ),
        CommandSpec(
            "group edit",
            "nhom sua",
            N_("group edit <name>"),
            N_("Edit a group (opens a form)."),
            Role.OPERATOR,
            "directory",
            handler=groups.group_edit,
        ),
        CommandSpec(
            "user edit",
            "nguoi-dung sua",
            N_("user edit <username>"),
            N_("Edit a user (opens a form)."),
            Role.ADMIN,
            "directory",
            handler=users.user_edit,
        ),
    ),
    actions=(groups.GROUP_CREATE_ACTION, groups.GROUP_UPDATE_ACTION, users.USER_ACTION),
    forms=(groups.GROUP_FORM, users.USER_FORM),
)
