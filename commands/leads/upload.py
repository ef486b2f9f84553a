"""``leads upload <campaign|list_uuid>``: check a CSV shared in the channel, then upload its
good rows into the list (a campaign's is its default list, ``commands.leads.target``).

The command takes the newest CSV the requester shared in the channel, downloads it with
the bot token, and checks every row as a stream (``commands.leads.csv_check``).  The summary
(valid and invalid counts, the first problems with their line numbers) is the request
itself; the bad rows are sent as a CSV to fix and share again, to the person who ran the
command alone (a direct message from the app, with an ephemeral line that says where it
is): they are customers' numbers, and the check that found them is theirs alone.

The approval stores the file's id and SHA-256, not its rows: at execution the file is
downloaded again and must hash the same, so exactly the approved file is uploaded (after
a restart too), and a 100,000-row file never sits in the database.  The good rows go to
``POST /v3/lead/file`` as a streamed multipart upload; the list's totals follow.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from pydantic import Field

from callcenter import errors
from commands.approvals.cards import propose
from commands.kernel.actions import (
    ActionParams,
    ActionRefused,
    ActionResult,
    ExecutionEnv,
    Proposal,
)
from commands.kernel.catalog import usage_for_reader, usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError
from commands.kernel.i18n import _, ngettext
from commands.kernel.interactions import Click
from commands.kernel.phones import blocked_numbers
from commands.kernel.reply import Outcome, Reply, Rerun, context_line, error, notice
from commands.kernel.slack_files import FileDownloadError, SharedFile, SlackFiles
from commands.kernel.text import clip, code, escape, number, ratio_percent
from commands.kernel.upload_reader import UploadRefused, check_size, save_upload
from commands.kernel.values import token
from commands.leads.csv_check import (
    CsvFormatError,
    CsvReport,
    RowProblem,
    check_leads_csv,
    phones_in,
)
from commands.leads.target import ListTarget, find_list
from commands.rules.guard import DncLookup, dnc_for_list
from commands.rules.watch import list_warning, with_warning
from storage import Role

UPLOAD_KIND = "lead.upload"
"""The kind of action declared in this family's ``FAMILY``."""

UPLOAD_LEADS_BUTTON = "lead_list_upload"
"""A lead list's Upload leads button (on the campaign card); its value names the campaign."""
UPLOAD_LEADS_ROLE = Role.OPERATOR
"""The least role that may use it (a card shows it only to them)."""


def reason_words(kind: str, n: int) -> str:
    """How many rows were left out for one reason, in words with the right plural."""
    if kind == "pattern":
        text = ngettext(
            "{n} number the service does not accept",
            "{n} numbers the service does not accept",
            n,
        )
    elif kind == "missing":
        text = ngettext("{n} row without a number", "{n} rows without a number", n)
    elif kind == "duplicate":
        text = ngettext("{n} number given twice", "{n} numbers given twice", n)
    elif kind == "blacklisted":
        text = ngettext("{n} number on the blacklist", "{n} numbers on the blacklist", n)
    elif kind == "dnc":
        text = ngettext(
            "{n} number on the do-not-call list", "{n} numbers on the do-not-call list", n
        )
    elif kind == "unreadable":
        text = ngettext("{n} line that cannot be read", "{n} lines that cannot be read", n)
    elif kind == "columns":
        text = ngettext(
            "{n} row with the wrong number of columns",
            "{n} rows with the wrong number of columns",
            n,
        )
    else:
        return f"{number(n)} {escape(kind)}"
    return text.format(n=number(n))


def typed_target(found: ListTarget) -> str:
    """How to name the list in the command again: its campaign when it was named so
    (quoted when the name has spaces), else its UUID."""
    if found.campaign is None:
        return found.lead_list.list_uuid
    name = found.campaign.campaign_name
    return f'"{name}"' if any(c.isspace() for c in name) or not name else name


def how_to_share(found: ListTarget) -> str:
    list_name = clip(found.lead_list.list_name or found.lead_list.list_uuid, 150)
    return _(
        "I found no CSV from you in this channel to upload into *{list}*. Share the file "
        "here first (drag it into the message box, or attach it, and send it), then run "
        "{command} here again. The file needs a "
        "`phone_number` column; other columns are lead fields (`lead_name`, "
        "`contract_number`, …)."
    ).format(
        list=list_name,
        command=code("/callops " + usage_for_reader("leads upload " + typed_target(found))),
    )


class UploadParams(ActionParams):
    """The checked file, by its Slack id and SHA-256 (never its rows), and the summary of
    the check the approver decides on."""

    list_uuid: str
    list_name: str = ""
    file_id: str
    file_name: str = ""
    sha256: str
    rows: int = 0
    valid: int
    invalid: int = 0
    reasons: dict[str, int] = Field(default_factory=dict)
    """Rows left out per reason (``pattern``, ``blacklisted``...)."""
    problems: tuple[RowProblem, ...] = ()
    """The first rows left out, with their line numbers."""


def describe_upload(params: UploadParams) -> str:
    valid, invalid = params.valid, params.invalid
    total = valid + invalid
    upload = ngettext(
        "Upload *{n} lead* from *{file}* to the list *{list}*; the dialer will call these numbers.",
        "Upload *{n} leads* from *{file}* to the list *{list}*; the dialer will "
        "call these numbers.",
        valid,
    )
    checked = ngettext(
        "{n} row checked: :white_check_mark: {valid} valid ({share}) · :x: {invalid} left out.",
        "{n} rows checked: :white_check_mark: {valid} valid ({share}) · :x: {invalid} left out.",
        total,
    )
    lines = [
        upload.format(
            n=number(valid),
            file=clip(params.file_name, 120),
            list=clip(params.list_name or params.list_uuid, 150),
        ),
        checked.format(
            n=number(total),
            valid=number(valid),
            share=ratio_percent(valid, total),
            invalid=number(invalid),
        ),
    ]
    if params.reasons:
        reasons = ", ".join(reason_words(k, n) for k, n in params.reasons.items())
        lines.append(_("Left out: {reasons}.").format(reasons=reasons))
    for problem in params.problems[:10]:
        # One sentence per row; the reason names the number where it is the problem.
        lines.append(
            _("• Line {line}: {reason}").format(
                line=number(problem.line), reason=clip(problem.reason, 120)
            )
        )
    lines.append(
        _("List {uuid} · file {sha}").format(
            uuid=code(params.list_uuid), sha=code(params.sha256[:12])
        )
    )
    return "\n".join(lines)


async def download_and_check(
    files: SlackFiles,
    shared: SharedFile,
    blocked: set[str],
    folder: Path,
    dnc: DncLookup | None = None,
) -> tuple[str, CsvReport, Path, Path]:
    """Download ``shared`` into ``folder`` and check it; returns its hash, the report,
    and the paths of the valid rows (to upload) and the invalid rows (to show).  With
    ``dnc``, numbers on the do-not-call list are left out too."""
    original, valid, invalid = folder / "original.csv", folder / "valid.csv", folder / "invalid.csv"
    try:
        check_size(shared.size)
        with original.open("wb") as out:
            sha256 = await save_upload(files.download(shared), out)
    except UploadRefused as exc:
        raise CsvFormatError(exc.message) from None
    listed: set[str] = set()
    if dnc is not None:
        with original.open("rb") as source:
            phones = await asyncio.to_thread(phones_in, source)
        listed = await dnc(phones)

    def check() -> CsvReport:
        with (
            original.open("rb") as source,
            valid.open("w", encoding="utf-8", newline="") as good,
            invalid.open("w", encoding="utf-8", newline="") as bad,
        ):
            return check_leads_csv(source, blocked, dnc=listed, valid_out=good, invalid_out=bad)

    report = await asyncio.to_thread(check)
    return sha256, report, valid, invalid


async def send_rows_to_fix(
    ctx: CommandContext, files: SlackFiles, shared: SharedFile, report: CsvReport, path: Path
) -> str:
    """The bad rows, to the person who ran the check and nobody else; returns the line
    their (ephemeral) answer shows to say where the file went."""
    stem = os.path.splitext(shared.name)[0] or "leads"
    sent = await files.send_to(
        ctx.user_id,
        filename=f"{stem}-rows-to-fix.csv",
        path=str(path),
        comment=ngettext(
            "{n} row of {file} that will not be uploaded, "
            "with their line numbers and what is wrong.",
            "{n} rows of {file} that will not be uploaded, "
            "with their line numbers and what is wrong.",
            report.invalid,
        ).format(n=number(report.invalid), file=escape(shared.name)),
    )
    if sent:
        return _(
            ":lock: I sent you the rows of {file} to fix in a direct message from callops; "
            "only you can see them."
        ).format(file=escape(shared.name))
    return _(
        ":warning: I could not send you the rows of {file} to fix in a direct message."
    ).format(file=escape(shared.name))


async def upload(ctx: CommandContext, args: list[str]) -> Outcome:
    if not args:
        raise UsageError(
            _("Give the campaign (or the UUID of the list) to upload into."),
            usage_of("leads upload"),
        )
    if not ctx.channel_id:
        return error(_("Run this in the channel where you shared the CSV."))
    cc = ctx.client()
    found, _rest = await find_list(cc, args)
    if isinstance(found, Reply):
        return found
    lead_list = found.lead_list
    list_uuid = lead_list.list_uuid
    shared = await ctx.files.latest_csv(ctx.channel_id, ctx.user_id)
    if shared is None:
        here = await ctx.slack.channel(ctx.channel_id)
        if here is not None and not here.is_member:
            return error(
                _(
                    "I am not in this channel, so I cannot see the files shared here. Invite me "
                    "(/invite @callops), share the CSV, then run this again."
                )
            )
        return notice(how_to_share(found), emoji=":page_facing_up:")
    blocked = await blocked_numbers(cc)
    dnc = await dnc_for_list(cc, ctx.storage, ctx.team_id, list_uuid)
    with tempfile.TemporaryDirectory(prefix="callops-leads-") as folder:
        try:
            sha256, report, _valid, invalid_path = await download_and_check(
                ctx.files, shared, blocked, Path(folder), dnc
            )
        except (CsvFormatError, FileDownloadError) as exc:
            return error(f"{escape(shared.name)}: {escape(exc.message)}")
        where = ""
        if report.invalid:
            where = await send_rows_to_fix(ctx, ctx.files, shared, report, invalid_path)
    if report.valid == 0:
        return error(
            _("No row of {file} can be uploaded ({rows} checked).").format(
                file=escape(shared.name), rows=number(report.rows)
            )
            + " "
            + where
        )
    params = UploadParams(
        list_uuid=list_uuid,
        list_name=lead_list.list_name,
        file_id=shared.id,
        file_name=shared.name,
        sha256=sha256,
        rows=report.rows,
        valid=report.valid,
        invalid=report.invalid,
        reasons=dict(report.reasons),
        problems=tuple(report.problems),
    )
    outcome = await propose(ctx, Proposal(UPLOAD_KIND, params))
    if where and isinstance(outcome, Reply):
        outcome.blocks.append(context_line(where))
    warning = await list_warning(cc, ctx.storage, ctx.team_id, list_uuid, datetime.now(UTC))
    return with_warning(outcome, warning)


async def execute_upload(params: UploadParams, env: ExecutionEnv) -> ActionResult:
    list_uuid = params.list_uuid
    if env.files is None:
        raise ActionRefused(_("Slack's files cannot be reached from here"))
    shared = await env.files.find(params.file_id)
    if shared is None:
        raise ActionRefused(_("The CSV was deleted from Slack"))
    try:
        await env.cc.lists.get(list_uuid)
    except errors.NotFoundError:
        raise ActionRefused(_("The lead list no longer exists")) from None
    blocked = await blocked_numbers(env.cc)
    dnc = await dnc_for_list(env.cc, env.storage, env.team_id, list_uuid)
    with tempfile.TemporaryDirectory(prefix="callops-leads-") as folder:
        try:
            sha256, report, valid_path, _invalid = await download_and_check(
                env.files, shared, blocked, Path(folder), dnc
            )
        except (CsvFormatError, FileDownloadError) as exc:
            raise ActionRefused(exc.message) from None
        if sha256 != params.sha256:
            raise ActionRefused(_("The file in Slack is not the one that was checked and approved"))
        if report.valid == 0:
            raise ActionRefused(_("No row of the file can be uploaded any more"))
        await env.cc.leads.upload_file(list_uuid, valid_path, filename=shared.name)
    totals = await env.cc.lists.get(list_uuid)
    uploaded = ngettext(
        "Uploaded *{n} lead* from *{file}*.", "Uploaded *{n} leads* from *{file}*.", report.valid
    ).format(n=number(report.valid), file=clip(shared.name, 120))
    now_has = ngettext(
        "The list *{list}* now has {n} lead (uploaded {uploaded}, imported {imported}, "
        "failed {failed}).",
        "The list *{list}* now has {n} leads (uploaded {uploaded}, imported {imported}, "
        "failed {failed}).",
        totals.total_leads,
    ).format(
        list=clip(totals.list_name or list_uuid, 150),
        n=number(totals.total_leads),
        uploaded=number(totals.total_upload),
        imported=number(totals.total_success),
        failed=number(totals.total_fail),
    )
    text = f"{uploaded} {now_has}"
    if report.valid != params.valid:
        text += "\n" + _(
            ":warning: {n} more rows were left out than when the file was checked "
            "(numbers blacklisted or put on the do-not-call list since)."
        ).format(n=number(params.valid - report.valid))
    return ActionResult(
        ok=True,
        text=text,
        data={
            "uploaded": report.valid,
            "total_leads": totals.total_leads,
            "total_success": totals.total_success,
            "total_fail": totals.total_fail,
        },
    )


async def upload_clicked(ctx: CommandContext, click: Click) -> Outcome:
    """Upload leads on a campaign card: the command itself, so a CSV already shared here
    is checked at once, and otherwise the answer says how to share one."""
    return Rerun(f"leads upload {token(click.value)}", replace_original=False)
