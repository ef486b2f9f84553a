"""The admin family: connecting the workspace, its settings, roles and approval policy."""

from __future__ import annotations

from commands.admin import connection, policy, settings
from commands.kernel.catalog import CommandSpec
from commands.kernel.family import Family
from commands.kernel.i18n import N_
from commands.kernel.interactions import OnClick, OnSubmit
from storage import Role

FAMILY = Family(
    "admin",
    commands=(
        CommandSpec(
            "connect",
            "ket-noi",
            "connect",
            N_("Connect this workspace to the call-center service."),
            Role.ADMIN,
            ("connect",),
            family="general",
            handler=connection.connect,
        ),
        CommandSpec(
            "disconnect",
            "ngat-ket-noi",
            "disconnect",
            N_("Forget this workspace's API key and tokens."),
            Role.ADMIN,
            ("disconnect",),
            family="general",
            handler=connection.disconnect,
        ),
        CommandSpec(
            "status",
            "trang-thai",
            "status",
            N_("Show the connection: domain and user behind the key."),
            Role.VIEWER,
            ("status",),
            family="general",
            handler=connection.status,
        ),
        CommandSpec(
            "policy",
            "chinh-sach",
            "policy",
            N_("Show or change who must approve what."),
            Role.ADMIN,
            ("policy",),
            handler=policy.show_policy,
        ),
        CommandSpec(
            "policy set",
            "chinh-sach dat",
            N_(
                "policy set <kind> mode=approval|confirm|none approvers=admins|@a,@b self=yes|no "
                "expiry=30m"
            ),
            N_("Change what one kind of action needs."),
            Role.ADMIN,
            ("policy set campaign.start approvers=admins self=no expiry=30m",),
            handler=policy.set_policy,
        ),
        CommandSpec(
            "policy channel",
            "chinh-sach kenh",
            "policy channel #channel|none",
            N_("Where approval cards are posted."),
            Role.ADMIN,
            ("policy channel #approvals",),
            handler=policy.policy_channel,
        ),
        CommandSpec(
            "role",
            "vai-tro",
            "role @user|workflows admin|operator|viewer",
            N_("Give a Slack user, or workflows run without a person, a role."),
            Role.ADMIN,
            ("role @mai operator", "role workflows viewer"),
            handler=policy.role,
        ),
        CommandSpec(
            "language",
            "ngon-ngu",
            "language vi|en|auto",
            N_("The language callops answers you in (auto: your Slack language)."),
            Role.VIEWER,
            ("language vi", "language auto"),
            family="general",
            handler=settings.language,
        ),
        CommandSpec(
            "settings",
            "cai-dat",
            N_(
                "settings [language vi|en [#channel]] [timezone <IANA name>] "
                "[names family-first|given-first] [mask-phones on|off] [retention <days>] "
                "[charts native|image]"
            ),
            N_(
                "Show or change the workspace's language, time zone, names, masked numbers, "
                "how long customers' data stay in messages, and how charts are sent."
            ),
            Role.ADMIN,
            (
                "settings language vi",
                "settings language en #support",
                "settings timezone Asia/Ho_Chi_Minh",
                "settings mask-phones on",
                "settings charts image",
            ),
            handler=settings.settings,
        ),
    ),
    clicks=(
        OnClick(
            connection.DISCONNECT_ACTION,
            connection.disconnect_clicked,
            role=Role.ADMIN,
            audit_as="workspace.disconnect",
        ),
        OnClick(connection.HOME_CONNECT_ACTION, connection.home_connect_clicked, role=Role.ADMIN),
    ),
    submissions=(
        OnSubmit(
            connection.CONNECT_CALLBACK,
            connection.connected,
            role=Role.ADMIN,
            validate=connection.accept_connection,
            audit_as="workspace.connect",
        ),
    ),
)
