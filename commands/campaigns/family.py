"""The campaigns family: listings and cards, start / pause / stop, and their steps."""

from __future__ import annotations

from commands.campaigns import cards, control, steps, switch
from commands.kernel.family import Family
from commands.kernel.interactions import OnClick, OnStep
from storage import Role

FAMILY = Family(
    "campaigns",
    commands={
        "campaigns": cards.list_campaigns,
        "campaign": cards.show_campaign,
        "start": control.start,
        "pause": control.pause,
        "stop": control.stop,
        "pause all": control.pause_all,
    },
    actions=(*control.CONTROL_ACTIONS, control.PAUSE_ALL_ACTION),
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
            "Start a campaign",
            "Start a callops campaign dialing (with the approval your workspace asks for).",
            (steps.CAMPAIGN,),
            steps.OUTPUTS,
            role=Role.OPERATOR,
        ),
        OnStep(
            steps.PAUSE_STEP,
            steps.pause,
            "Pause a campaign",
            "Pause a callops campaign: no new calls; calls in progress finish.",
            (steps.CAMPAIGN,),
            steps.OUTPUTS,
            role=Role.OPERATOR,
        ),
        OnStep(
            steps.STOP_STEP,
            steps.stop,
            "Stop a campaign",
            "Stop a callops campaign; starting it again begins a new run.",
            (steps.CAMPAIGN,),
            steps.OUTPUTS,
            role=Role.OPERATOR,
        ),
    ),
)
