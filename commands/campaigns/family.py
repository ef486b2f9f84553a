"""The campaigns family: listings and cards, start / pause / stop, and their steps."""

from __future__ import annotations

from commands.campaigns import cards, control, steps, switch
from commands.kernel.actions import APPROVAL, CONFIRM, ActionSpec
from commands.kernel.catalog import CommandSpec
from commands.kernel.family import Family
from commands.kernel.i18n import N_
from commands.kernel.interactions import OnClick, OnStep
from storage import Role

FAMILY = Family(
    "campaigns",
    commands=(
        CommandSpec(
            "campaigns",
            "chien-dich",
            "campaigns [autocall|autodialer|inbound|manual]",
            N_("List campaigns, optionally of one type."),
            Role.VIEWER,
            ("campaigns", "campaigns autocall"),
            handler=cards.list_campaigns,
        ),
        CommandSpec(
            "campaign",
            "xem-chien-dich",
            N_("campaign <name>"),
            N_("A campaign's card: settings, schedule and live statistics."),
            Role.VIEWER,
            ('campaign "Telesale thẻ tín dụng HCM"', "campaign telesale"),
            handler=cards.show_campaign,
        ),
        CommandSpec(
            "start",
            "chay",
            N_("start <campaign>"),
            N_("Start a campaign (needs approval)."),
            Role.OPERATOR,
            ('start "Telesale thẻ tín dụng HCM đợt 3"',),
            handler=control.start,
        ),
        CommandSpec(
            "pause",
            "tam-dung",
            N_("pause <campaign>"),
            N_("Pause a campaign."),
            Role.OPERATOR,
            ('pause "Telesale thẻ tín dụng HCM đợt 3"',),
            handler=control.pause,
        ),
        CommandSpec(
            "pause all",
            "tam-dung tat-ca",
            "pause all",
            N_("Emergency brake: pause every started campaign."),
            Role.OPERATOR,
            ("pause all",),
            handler=control.pause_all,
        ),
        CommandSpec(
            "stop",
            "dung",
            N_("stop <campaign>"),
            N_("Stop a campaign."),
            Role.OPERATOR,
            ('stop "Telesale thẻ tín dụng HCM đợt 3"',),
            handler=control.stop,
        ),
    ),
    actions=(
        *tuple(
            ActionSpec(
                kind=kind,
                policy=policy,
                title=title,
                confirm_label=label,
                params=control.ControlParams,
                describe=control.describe_control,
                execute=control.execute_control,
                unknown_outcome=unknown,
                observe=control.observe_control,
            )
            for kind, policy, title, label, unknown in (
                (
                    control.START_KIND,
                    APPROVAL,
                    N_("Start campaign"),
                    N_("Start"),
                    N_("the campaign may or may not have started"),
                ),
                (
                    control.PAUSE_KIND,
                    CONFIRM,
                    N_("Pause campaign"),
                    N_("Pause"),
                    N_("the campaign may or may not be paused"),
                ),
                (
                    control.STOP_KIND,
                    CONFIRM,
                    N_("Stop campaign"),
                    N_("Stop"),
                    N_("the campaign may or may not be stopped"),
                ),
            )
        ),
        ActionSpec(
            kind=control.PAUSE_ALL_KIND,
            policy=CONFIRM,
            title=N_("Pause all campaigns"),
            confirm_label=N_("Pause all"),
            params=control.PauseAllParams,
            describe=control.describe_pause_all,
            execute=control.execute_pause_all,
            unknown_outcome=N_("some campaigns may or may not be paused"),
            observe=control.observe_pause_all,
        ),
    ),
    clicks=(
        OnClick(cards.OPEN_ACTION, cards.open_clicked, numbered=True),
        OnClick(cards.REFRESH_ACTION, cards.refresh_clicked),
        OnClick(cards.CHOOSE_ACTION, cards.choose_clicked, numbered=True),
        OnClick(
            cards.CONTROL_ACTION,
            switch.switch_clicked,
            role=cards.CONTROL_ROLE,
            suffixes=("start", "pause", "stop"),
        ),
    ),
    steps=(
        OnStep(
            steps.START_STEP,
            steps.start,
            N_("Start a campaign"),
            "Start a callops campaign dialing (with the approval your workspace asks for).",
            (steps.CAMPAIGN,),
            steps.OUTPUTS,
            role=Role.OPERATOR,
        ),
        OnStep(
            steps.PAUSE_STEP,
            steps.pause,
            N_("Pause a campaign"),
            "Pause a callops campaign: no new calls; calls in progress finish.",
            (steps.CAMPAIGN,),
            steps.OUTPUTS,
            role=Role.OPERATOR,
        ),
        OnStep(
            steps.STOP_STEP,
            steps.stop,
            N_("Stop a campaign"),
            "Stop a callops campaign; starting it again begins a new run.",
            (steps.CAMPAIGN,),
            steps.OUTPUTS,
            role=Role.OPERATOR,
        ),
    ),
)
