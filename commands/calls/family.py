"""The calls family: live calls, transfer, the automated call, listening and records."""

from __future__ import annotations

from commands.calls import autocall, callback, listen, live, records, steps, transfer
from commands.kernel.actions import APPROVAL, CONFIRM, ActionSpec
from commands.kernel.catalog import CommandSpec
from commands.kernel.family import Family
from commands.kernel.forms import Form
from commands.kernel.i18n import N_
from commands.kernel.interactions import OnClick, OnShortcut, OnStep
from storage import Role

FAMILY = Family(
    "calls",
    commands=(
        CommandSpec(
            "calls",
            "cuoc-goi",
            "calls",
            N_("Live calls, with Transfer buttons."),
            Role.VIEWER,
            ("calls",),
            handler=live.live_calls,
        ),
        CommandSpec(
            "transfer",
            "chuyen",
            N_("transfer <call_id> <ext> [aleg|bleg]"),
            N_("Transfer a live call to another extension."),
            Role.OPERATOR,
            ("transfer 7f3c… 1002 bleg",),
            handler=transfer.transfer,
        ),
        CommandSpec(
            "autocall",
            "goi-tu-dong",
            N_("autocall <campaign> <phone> [key=value ...]"),
            N_("Push one automated call (opens a form when values are missing)."),
            Role.OPERATOR,
            ("autocall reminders 0912345678 name=An amount=150000",),
            handler=autocall.autocall,
        ),
        CommandSpec(
            "listen",
            "nghe-thu",
            N_("listen <campaign> [key=value ...]"),
            N_("What a customer will hear from an autocall, without calling anyone."),
            Role.VIEWER,
            ('listen "Nhắc thanh toán HN" amount=1500000 due_date=31/12/2026',),
            handler=listen.listen,
        ),
    ),
    actions=(
        ActionSpec(
            kind=transfer.TRANSFER_KIND,
            policy=CONFIRM,
            title=N_("Transfer a live call"),
            confirm_label=N_("Transfer"),
            params=transfer.TransferParams,
            describe=transfer.describe_transfer,
            execute=transfer.execute_transfer,
            unknown_outcome=N_("the call may or may not have been transferred"),
        ),
        ActionSpec(
            kind=autocall.AUTOCALL_KIND,
            policy=APPROVAL,
            title=N_("Push an automated call"),
            confirm_label=N_("Push the call"),
            params=autocall.AutocallParams,
            describe=autocall.describe_autocall,
            execute=autocall.execute_autocall,
            unknown_outcome=N_("the call may or may not have been placed"),
            follow_ups=autocall.autocall_follow_ups,
        ),
    ),
    forms=(
        Form(
            transfer.TRANSFER_CALLBACK,
            transfer.check_form,
            transfer.build_form,
            verify=transfer.verify_form,
        ),
        Form(autocall.AUTOCALL_CALLBACK, autocall.check_form, autocall.build_form),
    ),
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
            N_("Push an autocall"),
            "Call a customer now from a callops autocall campaign, with the template's values.",
            steps.INPUTS,
            steps.OUTPUTS,
            role=Role.OPERATOR,
        ),
    ),
)
