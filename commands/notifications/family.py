"""The notifications family: where call events are told, and the callback URL."""

from __future__ import annotations

from commands.kernel.actions import APPROVAL, CONFIRM, ActionSpec
from commands.kernel.catalog import CommandSpec
from commands.kernel.family import Family
from commands.kernel.feed import Feed
from commands.kernel.i18n import N_
from commands.notifications import call_card, fold_card, notify
from storage import Role

FAMILY = Family(
    "notifications",
    commands=(
        CommandSpec(
            "notify",
            "thong-bao",
            "notify [add|list|remove|attach|detach|rotate]",
            N_("Post call records from the service's callbacks to channels."),
            Role.ADMIN,
            (
                "notify",
                "notify add #call-feed status=answered,busy",
                'notify attach "Nhắc thanh toán HN đợt 3"',
            ),
            handler=notify.notify_command,
        ),
    ),
    actions=(
        ActionSpec(
            kind=notify.ROTATE_KIND,
            policy=CONFIRM,
            title=N_("New callback URL"),
            confirm_label=N_("Rotate the URL"),
            params=notify.RotateParams,
            describe=notify.describe_rotate,
            execute=notify.execute_rotate,
            unknown_outcome=N_("some campaigns may or may not point at the new URL"),
        ),
        ActionSpec(
            kind=notify.ATTACH_KIND,
            policy=APPROVAL,
            title=N_("Campaign call-record callbacks"),
            confirm_label=N_("Apply"),
            params=notify.AttachParams,
            describe=notify.describe_attach,
            execute=notify.execute_attach,
            unknown_outcome=N_("the campaign's callback may or may not have changed"),
            observe=notify.observe_attach,
        ),
    ),
    feed=Feed(
        channels=notify.matching_channels,
        kinds=notify.feed_kinds,
        card=call_card.call_card,
        outcome=call_card.outcome_card,
        fold=fold_card.fold_card,
        day=call_card.call_day,
        subject=call_card.thread_subject,
        fold_rows=fold_card.FOLD_ROWS,
        metadata_budget=fold_card.METADATA_BUDGET,
    ),
)
