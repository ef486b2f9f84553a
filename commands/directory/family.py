"""The directory family: users, groups and the service's other listings."""

from __future__ import annotations

from commands.directory import groups, listings, users
from commands.kernel.actions import APPROVAL, ActionSpec
from commands.kernel.catalog import CommandSpec
from commands.kernel.family import Family
from commands.kernel.forms import Form
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
            ("users",),
            handler=listings.users,
        ),
        CommandSpec(
            "groups",
            "nhom",
            "groups",
            N_("Groups of users."),
            Role.VIEWER,
            ("groups",),
            handler=listings.groups,
        ),
        CommandSpec(
            "templates",
            "mau-loi-thoai",
            "templates",
            N_("Call templates and their placeholders."),
            Role.VIEWER,
            ("templates",),
            handler=listings.templates,
        ),
        CommandSpec(
            "carriers",
            "nha-mang",
            "carriers",
            N_("Carriers and their free capacity."),
            Role.VIEWER,
            ("carriers",),
            handler=listings.carriers,
        ),
        CommandSpec(
            "gateways",
            "cong-ket-noi",
            "gateways",
            N_("SIP gateways."),
            Role.VIEWER,
            ("gateways",),
            handler=listings.gateways,
        ),
        CommandSpec(
            "blacklist",
            "danh-sach-chan",
            "blacklist",
            N_("Blocked numbers."),
            Role.VIEWER,
            ("blacklist",),
            handler=listings.blacklist,
        ),
        CommandSpec(
            "group add",
            "nhom them",
            N_("group add <name> [-- <description>]"),
            N_("Create a group."),
            Role.OPERATOR,
            ("group add Telesale HN -- Nhóm telesale Hà Nội",),
            handler=groups.group_add,
        ),
        CommandSpec(
            "group edit",
            "nhom sua",
            N_("group edit <name>"),
            N_("Edit a group (opens a form)."),
            Role.OPERATOR,
            ("group edit Telesale",),
            handler=groups.group_edit,
        ),
        CommandSpec(
            "user edit",
            "nguoi-dung sua",
            N_("user edit <username>"),
            N_("Edit a user (opens a form)."),
            Role.ADMIN,
            ("user edit agent.mai",),
            handler=users.user_edit,
        ),
    ),
    actions=(
        ActionSpec(
            kind=groups.CREATE_KIND,
            policy=APPROVAL,
            title=N_("Create a group"),
            confirm_label=N_("Create the group"),
            params=groups.GroupCreateParams,
            describe=groups.describe_group_create,
            execute=groups.execute_group_create,
            unknown_outcome=N_("the group may or may not have been created"),
        ),
        ActionSpec(
            kind=groups.UPDATE_KIND,
            policy=APPROVAL,
            title=N_("Change a group"),
            confirm_label=N_("Save the group"),
            params=groups.GroupUpdateParams,
            describe=groups.describe_group_update,
            execute=groups.execute_group_update,
            unknown_outcome=N_("the group may or may not have been changed"),
        ),
        ActionSpec(
            kind=users.UPDATE_KIND,
            policy=APPROVAL,
            title=N_("Change a user"),
            confirm_label=N_("Save the user"),
            params=users.UserUpdateParams,
            describe=users.describe_user_update,
            execute=users.execute_user_update,
            unknown_outcome=N_("the user may or may not have been changed"),
        ),
    ),
    forms=(
        Form(groups.GROUP_CALLBACK, groups.check_group_form, groups.build_group_form),
        Form(users.USER_CALLBACK, users.check_user_form, users.build_user_form, role=Role.ADMIN),
    ),
)
