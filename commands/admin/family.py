"""The admin family: connecting the workspace, its settings, roles and approval policy."""

from __future__ import annotations

from commands.admin import connection, policy, settings
from commands.kernel.family import Family
from commands.kernel.interactions import OnClick, OnSubmit
from storage import Role

FAMILY = Family(
    "admin",
    commands={
        "connect": connection.connect,
        "disconnect": connection.disconnect,
        "status": connection.status,
        "language": settings.language,
        "settings": settings.settings,
        "policy": policy.show_policy,
        "policy set": policy.set_policy,
        "policy channel": policy.policy_channel,
        "role": policy.role,
    },
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
