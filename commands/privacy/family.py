"""The privacy family: where callops holds a customer's number, and who sees it."""

from __future__ import annotations

from commands.kernel.actions import ADMIN_APPROVAL, ActionSpec
from commands.kernel.catalog import CommandSpec
from commands.kernel.family import Family, Reveal
from commands.kernel.i18n import N_
from commands.kernel.interactions import OnClick
from commands.privacy import erase, find, notice, overview, requests, reveal, work
from storage import Role

FAMILY = Family(
    "privacy",
    commands=(
        CommandSpec(
            "privacy",
            "rieng-tu",
            "privacy",
            N_("Customers' personal data: masking, where it goes, how to find and erase it."),
            Role.ADMIN,
            ("privacy",),
            handler=overview.overview,
        ),
        CommandSpec(
            "privacy find",
            "rieng-tu tim",
            N_("privacy find <phone>"),
            N_("Every record, message and file of callops that holds a customer's number."),
            Role.ADMIN,
            ("privacy find 0912345678",),
            handler=find.find,
        ),
        CommandSpec(
            "privacy erase",
            "rieng-tu xoa",
            N_("privacy erase <phone>"),
            N_(
                "Erase a customer's number from callops's records, messages and files "
                "(another admin approves; it cannot be undone)."
            ),
            Role.ADMIN,
            ("privacy erase 0912345678",),
            handler=erase.erase,
        ),
        CommandSpec(
            "privacy requests",
            "rieng-tu yeu-cau",
            "privacy requests",
            N_("Customers' requests about their data, with their due dates."),
            Role.ADMIN,
            ("privacy requests",),
            handler=requests.listing,
        ),
        CommandSpec(
            "privacy request add",
            "rieng-tu ghi-nhan",
            N_("privacy request add <phone> access|erase [received=DD/MM/YYYY]"),
            N_("Record a customer's request that came by phone or letter."),
            Role.ADMIN,
            ("privacy request add 0912345678 access received=20/11/2026",),
            handler=requests.add,
        ),
    ),
    actions=(
        ActionSpec(
            kind=erase.ERASE_KIND,
            policy=ADMIN_APPROVAL,
            title=N_("Erase a customer's data"),
            confirm_label=N_("Erase"),
            params=erase.EraseParams,
            describe=erase.describe_erase,
            execute=erase.execute_erase,
            unknown_outcome=N_("the erasure may or may not have been done"),
        ),
    ),
    clicks=(
        # Anyone may click: a viewer is answered with the number masked.
        OnClick(reveal.SHOW_NUMBER_BUTTON, reveal.show_number_clicked, role=Role.VIEWER),
    ),
    reveal=Reveal(role=reveal.REVEAL_ROLE, button=reveal.show_number_block),
    # Once a minute where the scheduler runs: the notice first, then the worker.
    jobs=(notice.JOB, work.JOB),
)
