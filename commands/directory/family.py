"""The directory family: users, groups and the service's other listings."""

from __future__ import annotations

from commands.directory import groups, listings, users
from commands.kernel.family import Family

FAMILY = Family(
    "directory",
    commands={
        "users": listings.users,
        "groups": listings.groups,
        "templates": listings.templates,
        "carriers": listings.carriers,
        "gateways": listings.gateways,
        "blacklist": listings.blacklist,
        "group add": groups.group_add,
        "group edit": groups.group_edit,
        "user edit": users.user_edit,
    },
    actions=(groups.GROUP_CREATE_ACTION, groups.GROUP_UPDATE_ACTION, users.USER_ACTION),
    forms=(groups.GROUP_FORM, users.USER_FORM),
)
