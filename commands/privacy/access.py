"""An access request's answer: a CSV of what callops holds of one number, to the admin
who recorded the request, by direct message (to hand on to the customer)."""

from __future__ import annotations

import csv
import os
import tempfile

from commands.kernel.context import CommandContext
from commands.kernel.i18n import _
from commands.privacy.find import holdings
from storage import off_loop
from storage.privacy_requests import PrivacyRequest


async def send_access_answer(ctx: CommandContext, request: PrivacyRequest, phone: str) -> bool:
    """Write the CSV, send it, close the request; False when Slack did not take it (the
    request stays open and is listed)."""
    storage = ctx.storage
    held = await off_loop(holdings, storage, ctx.team_id, phone)
    fd, path = tempfile.mkstemp(prefix="callops-access-", suffix=".csv")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            writer = csv.writer(out)
            writer.writerow(["phone", "where", "what", "rows_or_id", "channel", "message_ts"])
            for table in held.tables:
                how = "clear" if table.in_clear else "keyed hash"
                writer.writerow([phone, "callops database", table.table, table.rows, how, ""])
            for post in held.posts:
                kind = "file" if post.file_id else "message"
                writer.writerow(
                    [phone, "Slack", kind, post.file_id or "", post.channel, post.ts or ""]
                )
        sent = await ctx.files.send_to(
            ctx.user_id,
            filename=f"callops-access-{request.id}.csv",
            path=path,
            comment=_("What callops holds for request {id}.").format(id=request.id),
        )
    finally:
        os.unlink(path)
    if sent:
        await off_loop(
            lambda: storage.privacy_requests.finish(
                ctx.team_id, request.id, report="sent by direct message"
            )
        )
    return bool(sent)
