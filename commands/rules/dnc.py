"""``dnc``: the two lists of Decree 91/2020/ND-CP.

    dnc add <phone> ... [reason=<text>]      the company's opt-out list (customers who
    dnc remove <phone> ... [reason=<text>]   refused further calls): typed, with who and why
    dnc check <phone> ...                    which list, if any, holds each number
    dnc upload                               the national registry ("Danh sách không quảng
                                             cáo"): the newest CSV you shared here, one
                                             number per row, its registration date beside
                                             it where the file has one; a new version
    dnc list, dnc export                     in ``commands/rules/lists.py``

Numbers are stored as the phone parser writes them, so ``+84 912 345 678`` and
``0912345678`` are one entry.  What the lists mean for a call is decided in one place,
``commands/rules/lists.py``; the service's own blacklist counts too, wherever calls are
checked.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date
from functools import partial
from pathlib import Path
from typing import BinaryIO

from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError, check_keys, split_options
from commands.kernel.i18n import N_, _, ngettext
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
from commands.rules.lists import OPTOUT, OPTOUT_NAME, REGISTRY, REGISTRY_NAME, decree
from storage import Storage
from storage.call_lists import TYPED, RegistryVersion
from storage.offload import off_loop

MAX_TYPED = 100
"""Numbers one typed command may name."""
MAX_REASON = 300
"""Characters of a reason kept."""
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


def _reason(args: list[str], command: str) -> tuple[list[str], str | None]:
    """The numbers' words and the ``reason=`` (free text to the end), if any."""
    words, options = split_options(args, spaced=("reason",))
    check_keys(options, ("reason",), what=N_("an option of this command"), usage=usage_of(command))
    reason = next((v.strip() for k, v in options.items() if k.lower() == "reason"), None)
    if reason is not None and not reason:
        raise UsageError(_("reason= needs a few words."), usage_of(command))
    return words, (reason[:MAX_REASON] if reason else None)


async def add(ctx: CommandContext, args: list[str]) -> Outcome:
    words, reason = _reason(args, "dnc add")
    numbers = typed_numbers(words, "dnc add")
    storage = ctx.storage
    added = await off_loop(
        partial(storage.call_lists.add_optout, source=TYPED, by=ctx.user_id, reason=reason),
        ctx.team_id,
        numbers,
    )
    await ctx.audit(
        "dnc.add", {"list": OPTOUT, "numbers": len(numbers), "added": len(added), "reason": reason}
    )
    already = len(numbers) - len(added)
    text = ngettext(
        "Added {n} number to {list}: no campaign will call it ({decree}).",
        "Added {n} numbers to {list}: no campaign will call them ({decree}).",
        len(added),
    ).format(n=number(len(added)), list=_(OPTOUT_NAME), decree=decree())
    if already:
        text += " " + ngettext("{n} was on it already.", "{n} were on it already.", already).format(
            n=number(already)
        )
    return notice(text, emoji=":no_entry_sign:")


async def remove(ctx: CommandContext, args: list[str]) -> Outcome:
    words, reason = _reason(args, "dnc remove")
    numbers = typed_numbers(words, "dnc remove")
    storage = ctx.storage
    removed = await off_loop(
        partial(storage.call_lists.remove_optout, by=ctx.user_id, reason=reason),
        ctx.team_id,
        numbers,
    )
    await ctx.audit(
        "dnc.remove",
        {"list": OPTOUT, "numbers": len(numbers), "removed": len(removed), "reason": reason},
    )
    text = ngettext(
        "Removed {n} number from {list}.",
        "Removed {n} numbers from {list}.",
        len(removed),
    ).format(n=number(len(removed)), list=_(OPTOUT_NAME))
    if len(removed) < len(numbers):
        text += " " + _(
            "The others were not on it (numbers of the national registry leave it only with "
            "its next upload)."
        )
    return notice(text)


@dataclass
class FileCount:
    """What reading a registry file found, counted as it streams by."""

    numbers: int = 0
    skipped: int = 0
    dated: int = 0
    problems: list[tuple[int, str]] = field(default_factory=list)

    def skip(self, line: int, reason: str) -> None:
        self.skipped += 1
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append((line, reason))


MAX_PROBLEMS = 10
"""Rows left out that the answer names with their line."""


_DAY_FIRST = re.compile(r"(\d{1,2})[/.\-](\d{1,2})[/.\-](\d{4})")
_YEAR_FIRST = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")


def registration_date(cell: str) -> str | None:
    """A registration date as the registry's file writes it (``31/12/2025``,
    ``2025-12-31``, a time after it or not), as ``YYYY-MM-DD``; None if it is none."""
    text = cell.strip()
    found = _YEAR_FIRST.match(text)
    if found:
        year, month, day_ = (int(g) for g in found.groups())
    else:
        found = _DAY_FIRST.match(text)
        if not found:
            return None
        day_, month, year = (int(g) for g in found.groups())
    try:
        return date(year, month, day_).isoformat()
    except ValueError:
        return None


def registry_entries(path: Path, count: FileCount) -> Iterator[tuple[str, str | None]]:
    """The numbers of a registry file (each row's first cell that reads as one) with the
    first other cell that reads as a date, one at a time (a registry file has
    millions: none is kept), counting them and the rows without one (a first row
    without one is its header, and blank rows are nothing)."""
    with path.open("rb") as source:
        yield from _entries(source, count)


def _entries(source: BinaryIO, count: FileCount) -> Iterator[tuple[str, str | None]]:
    """Read by the uploads' one reader (``commands/kernel/upload_reader.py``): every row
    is taken or counted with its line and reason; `UploadRefused` for a file that is not
    a text table."""
    for item in read_rows(source):
        if isinstance(item, BadLine):
            count.skip(item.line, item.reason)
            continue
        row = item.cells
        phones = ((i, normalize_phone(cell)) for i, cell in enumerate(row[:4]))
        at, phone = next(((i, p) for i, p in phones if p and not phone_problem(p)), (0, None))
        if phone is None:
            if count.numbers or count.skipped or item.line > 1:
                count.skip(item.line, _("It has no phone number the service would accept."))
            continue
        others = (cell for i, cell in enumerate(row) if i != at)
        registered = next((d for d in map(registration_date, others) if d is not None), None)
        count.numbers += 1
        count.dated += registered is not None
        yield phone, registered


def upload_registry_file(
    storage: Storage, team_id: str, path: Path, *, by: str, file_name: str
) -> tuple[RegistryVersion | None, FileCount]:
    """Read a whole file and make it the registry's new version, in one transaction
    (blocking: run it off the loop)."""
    count = FileCount()
    made = storage.call_lists.upload_registry(
        team_id, registry_entries(path, count), by=by, file_name=file_name
    )
    return made, count


async def upload(ctx: CommandContext, args: list[str]) -> Outcome:
    if args:
        raise UsageError(
            _("dnc upload takes no words: share the CSV here, then run it."),
            usage_of("dnc upload"),
        )
    if not ctx.channel_id:
        return error(_("Run this in the channel where you shared the CSV."))
    shared = await ctx.files.latest_csv(ctx.channel_id, ctx.user_id)
    if shared is None:
        return notice(
            _(
                "Share the national Do Not Advertise registry's file here as a CSV (one "
                "number per row, its registration date beside it if the file has one), then "
                "run `/callops dnc upload`."
            ),
            emoji=":page_facing_up:",
        )
    storage = ctx.storage
    with tempfile.TemporaryDirectory(prefix="callops-dnc-") as folder:
        path = Path(folder) / "registry.csv"
        try:
            check_size(shared.size)
            with path.open("wb") as out:
                await save_upload(ctx.files.download(shared), out)
            made, count = await off_loop(
                partial(upload_registry_file, by=ctx.user_id, file_name=shared.name),
                storage,
                ctx.team_id,
                path,
            )
        except (FileDownloadError, UploadRefused) as exc:
            return error(f"{escape(shared.name)}: {escape(exc.message)}")
    if made is None:
        return error(
            _(
                "{file} has no phone number the service would accept; the registry is unchanged."
            ).format(file=escape(shared.name))
            + _problem_lines(count)
        )
    await ctx.audit(
        "dnc.upload",
        {
            "list": REGISTRY,
            "file": shared.name,
            "version": made.version,
            "numbers": made.numbers,
            "added": made.added,
            "removed": made.removed,
        },
    )
    text = _(
        "{file} is version {version} of {list}: {n} numbers, {added} added and {removed} "
        "removed since the version before."
    ).format(
        file=escape(shared.name),
        version=made.version,
        list=_(REGISTRY_NAME),
        n=number(made.numbers),
        added=number(made.added),
        removed=number(made.removed),
    )
    if count.dated:
        text += " " + ngettext(
            "{n} row had a registration date.", "{n} rows had a registration date.", count.dated
        ).format(n=number(count.dated))
    if count.skipped:
        text += " " + ngettext(
            "{n} row was left out:", "{n} rows were left out:", count.skipped
        ).format(n=number(count.skipped))
        text += _problem_lines(count)
    text += " " + _("The earlier versions stay readable (`dnc list`, `dnc export version=N`).")
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
