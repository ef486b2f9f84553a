"""The digests family: scheduled digests, alerts, and the buttons on what they post."""

from __future__ import annotations

from commands.digests import (
    alert_watch,
    alerts,
    anomaly_watch,
    content,
    manage,
    scheduled,
    snooze_ids,
)
from commands.kernel.catalog import CommandSpec
from commands.kernel.family import Family
from commands.kernel.i18n import N_
from commands.kernel.interactions import OnClick
from commands.reports import progress
from storage import Role

FAMILY = Family(
    "digests",
    commands=(
        CommandSpec(
            "digest add",
            "ban-tin them",
            N_(
                "digest add #channel <daily HH:MM|weekdays HH:MM|weekly <day> HH:MM|hourly|cron>"
                " [campaign ...] [sections=totals,campaigns,agents,chart,insights]"
                " [lang=vi|en]"
            ),
            N_("Schedule a statistics digest."),
            Role.OPERATOR,
            (
                "digest add #digests daily 08:00",
                'digest add #digests "0 8 * * 1-5" Telesale thẻ tín dụng HCM',
            ),
            handler=manage.add,
        ),
        CommandSpec(
            "digest list",
            "ban-tin danh-sach",
            "digest list",
            N_("Scheduled digests."),
            Role.VIEWER,
            ("digest list",),
            handler=manage.list_digests,
        ),
        CommandSpec(
            "digest remove",
            "ban-tin xoa",
            "digest remove <id>",
            N_("Delete a digest."),
            Role.OPERATOR,
            ("digest remove 3",),
            handler=manage.remove,
        ),
        CommandSpec(
            "digest pause",
            "ban-tin tam-dung",
            "digest pause <id>",
            N_("Pause a digest."),
            Role.OPERATOR,
            ("digest pause 3",),
            handler=manage.pause,
        ),
        CommandSpec(
            "digest resume",
            "ban-tin tiep-tuc",
            "digest resume <id>",
            N_("Resume a digest."),
            Role.OPERATOR,
            ("digest resume 3",),
            handler=manage.resume,
        ),
        CommandSpec(
            "digest run",
            "ban-tin gui",
            "digest run <id>",
            N_("Post a digest now."),
            Role.OPERATOR,
            ("digest run 3",),
            handler=manage.run,
        ),
        CommandSpec(
            "digest preview",
            "ban-tin xem-truoc",
            "digest preview [id]",
            N_("Show a digest to you only."),
            Role.VIEWER,
            ("digest preview", "digest preview 3"),
            handler=manage.preview,
        ),
        CommandSpec(
            "alert add",
            "canh-bao them",
            N_(
                "alert add #channel <metric> <op> <value> | anomaly [campaign ...] [window] "
                "[metric=<kpi>] [lang=vi|en]"
            ),
            N_(
                "Alert a channel when a statistic crosses a threshold, or when a KPI leaves "
                "its usual band."
            ),
            Role.OPERATOR,
            (
                "alert add #call-center dropped_rate > 5",
                "alert add #call-center anomaly metric=asr",
            ),
            handler=alerts.add,
        ),
        CommandSpec(
            "alert list",
            "canh-bao danh-sach",
            "alert list",
            N_("Threshold alerts."),
            Role.VIEWER,
            ("alert list",),
            handler=alerts.list_alerts,
        ),
        CommandSpec(
            "alert remove",
            "canh-bao xoa",
            "alert remove <id>",
            N_("Delete an alert."),
            Role.OPERATOR,
            ("alert remove 2",),
            handler=alerts.remove,
        ),
    ),
    clicks=(
        OnClick(manage.UP_TO_NOW_ACTION, manage.up_to_now_clicked, role=Role.OPERATOR),
        OnClick(snooze_ids.SNOOZE_HOUR_ACTION, alerts.snooze_clicked, role=Role.OPERATOR),
        OnClick(snooze_ids.SNOOZE_TOMORROW_ACTION, alerts.snooze_clicked, role=Role.OPERATOR),
        OnClick(content.FULL_REPORT_ACTION, content.full_report_clicked),
        OnClick(progress.STOP_ACTION, progress.stop_clicked),
    ),
    jobs=(alert_watch.JOB, anomaly_watch.JOB),
    digests=scheduled.DIGESTS,
)
