"""``dnc``: callops' own do-not-call list (Decree 91/2020/ND-CP).

    dnc add <phone> ...       numbers people asked never to be called
    dnc remove <phone> ...
    dnc check <phone>         every calling rule for the number (commands/rules/check.py)
    dnc upload                the newest CSV you shared here: one number per row (the
                              national registry hands advertisers its list as a file)

Numbers are stored as the phone parser writes them, so ``+84 912 345 678`` and
``0912345678`` are one entry.  The service's own blacklist counts too, wherever calls
are checked.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError
from commands.kernel.i18n import _, ngettext
from commands.kernel.phones import normalize_phone, phone_problem
from commands.kernel.reply import Outcome, error, notice
from commands.kernel.slack_files import FileDownloadError
from commands.kernel.text import escape, number
from commands.kernel.upload_reader import (
    BadLine,
    UploadRefused,
    check_size,
    read_rows,
    save_upload,
)
from storage import Storage
from storage.calling_rules import BATCH
from storage.offload import off_loop

MAX_TYPED = 100
"""Numbers one typed command may name."""
_SPLIT = str.maketrans({",": " ", ";": " "})


def typed_numbers(args: list[str], command: str) -> list[str]:
    """Numbers as people type them, several to a line: ``0912 345 678, +84 987 654 321``.
    Words are joined until they make a number the service accepts."""
    words = " ".join(args).translate(_SPLIT).split()
    numbers: list[str] = []
    pending = ""
    for word in words:
        pending += word
        phone = normalize_phone(pending)
        if not phone_problem(phone):
            numbers.append(phone)
            pending = ""
        elif sum(c.isdigit() for c in pending) > 12:
            raise UsageError(phone_problem(normalize_phone(pending)) or "", usage_of(command))
    if pending:
        raise UsageError(phone_problem(normalize_phone(pending)) or "", usage_of(command))
    if not numbers:
        raise UsageError(_("Give one or more phone numbers."), usage_of(command))
    if len(numbers) > MAX_TYPED:
        raise UsageError(
            _("At most {n} numbers at a time; upload a CSV for more (dnc upload).").format(
                n=MAX_TYPED
            ),
            usage_of(command),
        )
    return list(dict.fromkeys(numbers))


async def add(ctx: CommandContext, args: list[str]) -> Outcome:
    numbers = typed_numbers(args, "dnc add")
    storage = ctx.db()
    added = await off_loop(storage.calling_rules.add_dnc, ctx.team_id, numbers)
    await ctx.audit("dnc.add", {"numbers": len(numbers)})
    already = len(numbers) - added
    text = ngettext(
        "Added {n} number to the do-not-call list.",
        "Added {n} numbers to the do-not-call list.",
        added,
    ).format(n=number(added))
    if already:
        text += " " + ngettext("{n} was on it already.", "{n} were on it already.", already).format(
            n=number(already)
        )
    return notice(text, emoji=":no_entry_sign:")


async def remove(ctx: CommandContext, args: list[str]) -> Outcome:
    numbers = typed_numbers(args, "dnc remove")
    storage = ctx.db()
    removed = await off_loop(storage.calling_rules.remove_dnc, ctx.team_id, numbers)
    await ctx.audit("dnc.remove", {"numbers": len(numbers)})
    text = ngettext(
        "Removed {n} number from the do-not-call list.",
        "Removed {n} numbers from the do-not-call list.",
        removed,
    ).format(n=number(removed))
    if removed < len(numbers):
        text += " " + _("The others were not on it.")
    return notice(text)


@dataclass
class FileCount:
    """What reading a do-not-call file found, counted as it streams by: the numbers, the
    rows taken for none (each with its line and reason, the first few kept to show)."""

    numbers: int = 0
    skipped: int = 0
    problems: list[tuple[int, str]] = field(default_factory=list)

    def skip(self, line: int, reason: str) -> None:
        self.skipped += 1
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append((line, reason))


MAX_PROBLEMS = 10
"""Rows left out that the answer names with their line."""


def dnc_file_numbers(path: Path, count: FileCount) -> Iterator[str]:
    """The numbers of a do-not-call file (each row's first cell, of its first four, that
    reads as one), one at a time (a registry file has millions: none is kept), counting
    them and the rows left out with why (a first row without one is its header, and blank
    rows are nothing).  Read by the uploads' one reader; `UploadRefused` for a file that
    is not a text table."""
    with path.open("rb") as source:
        for item in read_rows(source):
            if isinstance(item, BadLine):
                count.skip(item.line, item.reason)
                continue
            phones = (normalize_phone(cell) for cell in item.cells[:4])
            phone = next((p for p in phones if p and not phone_problem(p)), None)
            if phone is not None:
                count.numbers += 1
                yield phone
            elif count.numbers or count.skipped or item.line > 1:
                count.skip(item.line, _("It has no phone number the service would accept."))


def add_dnc_file(storage: Storage, team_id: str, path: Path) -> tuple[int, FileCount]:
    """Read and store a whole file (blocking: run it off the loop), one short
    transaction per batch of numbers so other writers and readiness checks get the
    database between them; how many numbers were new, and what the file held.  Adding is
    idempotent: a file that stops half-way is completed by uploading it again."""
    count = FileCount()
    added = 0
    numbers = dnc_file_numbers(path, count)
    while batch := list(islice(numbers, BATCH)):
        added += storage.calling_rules.add_dnc(team_id, batch)
    return added, count


async def upload(ctx: CommandContext, args: list[str]) -> Outcome:
    if args:
        raise UsageError(
            _("dnc upload takes no words: share the CSV here, then run it."),
            usage_of("dnc upload"),
        )
    if ctx.files is None or not ctx.channel_id:
        return error(_("Run this in the channel where you shared the CSV."))
    shared = await ctx.files.latest_csv(ctx.channel_id, ctx.user_id)
    if shared is None:
        return notice(
            _(
                "Share the do-not-call list here as a CSV (one number per row; the first "
                "cell that reads as a phone number counts), then run `/callops dnc upload`."
            ),
            emoji=":page_facing_up:",
        )
    storage = ctx.db()
    with tempfile.TemporaryDirectory(prefix="callops-dnc-") as folder:
        path = Path(folder) / "dnc.csv"
        try:
            check_size(shared.size)
            with path.open("wb") as out:
                await save_upload(ctx.files.download(shared), out)
            added, count = await off_loop(add_dnc_file, storage, ctx.team_id, path)
        except (FileDownloadError, UploadRefused) as exc:
            return error(f"{escape(shared.name)}: {escape(exc.message)}")
    if not count.numbers:
        return error(
            _("{file} has no phone number the service would accept.").format(
                file=escape(shared.name)
            )
            + _problem_lines(count)
        )
    await ctx.audit("dnc.upload", {"file": shared.name, "numbers": count.numbers, "added": added})
    text = _(
        "Read {read} numbers from {file}: {added} new on the do-not-call list, {known} "
        "already there."
    ).format(
        read=number(count.numbers),
        file=escape(shared.name),
        added=number(added),
        known=number(count.numbers - added),
    )
    if count.skipped:
        text += " " + ngettext(
            "{n} row was left out:", "{n} rows were left out:", count.skipped
        ).format(n=number(count.skipped))
        text += _problem_lines(count)
    return notice(text, emoji=":no_entry_sign:")


def _problem_lines(count: FileCount) -> str:
    """The rows left out that the answer names, one a line, and how many more."""
    lines = [
        _("• Line {line}: {reason}").format(line=number(line), reason=escape(reason))
        for line, reason in count.problems
    ]
    more = count.skipped - len(count.problems)
    if more > 0:
        lines.append(
            ngettext("… and {n} more row.", "… and {n} more rows.", more).format(n=number(more))
        )
    return "".join("\n" + line for line in lines)
