"""The digests family: scheduled digests, alerts, and the buttons on what they post."""

from __future__ import annotations

from commands.digests import alerts, content, manage
from commands.kernel.family import Family
from commands.kernel.interactions import OnClick
from storage import Role

FAMILY = Family(
    "digests",
    commands={
        "digest add": manage.add,
        "digest list": manage.list_digests,
        "digest remove": manage.remove,
        "digest pause": manage.pause,
        "digest resume": manage.resume,
        "digest run": manage.run,
        "digest preview": manage.preview,
        "alert add": alerts.add,
        "alert list": alerts.list_alerts,
        "alert remove": alerts.remove,
    },
    clicks=(
        OnClick(manage.UP_TO_NOW_ACTION, manage.up_to_now_clicked, role=Role.OPERATOR),
        OnClick(alerts.SNOOZE_HOUR_ACTION, alerts.snooze_clicked, role=Role.OPERATOR),
        OnClick(alerts.SNOOZE_TOMORROW_ACTION, alerts.snooze_clicked, role=Role.OPERATOR),
        OnClick(content.FULL_REPORT_ACTION, content.full_report_clicked),
    ),
)
