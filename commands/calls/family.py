"""The calls family: live calls, transfer, the automated call, listening and records."""

from __future__ import annotations

from commands.calls import autocall, callback, listen, live, records, steps, transfer
from commands.kernel.family import Family
from commands.kernel.interactions import OnClick, OnShortcut, OnStep
from storage import Role

FAMILY = Family(
    "calls",
    commands={
        "calls": live.live_calls,
        "transfer": transfer.transfer,
        "autocall": autocall.autocall,
        "listen": listen.listen,
    },
    actions=(transfer.TRANSFER_ACTION, autocall.AUTOCALL_ACTION),
    forms=(transfer.TRANSFER_FORM, autocall.AUTOCALL_FORM),
    clicks=(
        OnClick(
            transfer.TRANSFER_BUTTON,
            transfer.transfer_clicked,
            role=transfer.TRANSFER_ROLE,
            numbered=True,
        ),
        OnClick(listen.LISTEN_BUTTON, listen.listen_clicked, role=Role.VIEWER),
        OnClick(records.FIND_RECORDS_BUTTON, records.find_records_clicked),
        OnClick(callback.PICK_ACTION, callback.picked, role=Role.OPERATOR),
    ),
    shortcuts=(
        OnShortcut(
            callback.CALL_BACK_SHORTCUT,
            callback.call_back,
            "message",
            "Call back with callops",
            "Push an autocall to the phone number in this message.",
            role=Role.OPERATOR,
        ),
    ),
    steps=(
        OnStep(
            steps.AUTOCALL_STEP,
            steps.push,
            "Push an autocall",
            "Call a customer now from a callops autocall campaign, with the template's values.",
            steps.INPUTS,
            steps.OUTPUTS,
            role=Role.OPERATOR,
        ),
    ),
)
