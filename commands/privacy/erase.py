"""``privacy erase <phone>``: a customer's request to erase what callops holds of them.

It cannot be undone, so an admin asks and another admin approves (the approvals
workflow, kind ``privacy.erase``).  The request is recorded at once, with its clock
(``storage.privacy_requests``); the approval's parameters carry the request's id and the
number masked, never the number itself.  Once approved:

- callops's own tables are erased store by store (``storage.personal_data``): the
  do-not-call entry stays as a keyed hash, so the customer is never called again; the
  audit log, append-only, keeps what it holds as the record of what was done;
- every message callops posted that shows the number is rewritten without it (and without
  the customer's name: the whole card gives way to a note), every file holding it is
  deleted: by the privacy worker (``commands/privacy/work.py``), at Slack's pace, resumed after
  a restart, once across replicas;
- the report says what was changed and what could not be, and why; it goes to the admin
  who asked, by direct message, when the last message is done.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated

from pydantic import StringConstraints

from commands.approvals.cards import propose
from commands.kernel.actions import (
    ActionParams,
    ActionRefused,
    ActionResult,
    ExecutionEnv,
    Proposal,
)
from commands.kernel.context import CommandContext
from commands.kernel.i18n import N_, _, ngettext
from commands.kernel.phones import show_phone
from commands.kernel.reply import Outcome, Reply, section
from commands.kernel.text import code, escape, number, truncate
from commands.privacy.find import table_words, typed_phone
from commands.privacy.requests import DUE_DAYS, due_after
from storage import off_loop
from storage.personal_data import Erased, erase_everywhere
from storage.privacy_posts import PostedNumber

ERASE_KIND = "privacy.erase"
"""The kind of action declared in this family's ``FAMILY``."""

ERASE_ACTION = "privacy.erase.done"
"""The audit log's entry for an erasure carried out (the number's hash, what was done)."""


class EraseParams(ActionParams):
    """What the approval keeps: the request, and the number as the card shows it."""

    request_id: Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{8}$")]
    shown: Annotated[str, StringConstraints(max_length=40)]


async def erase(ctx: CommandContext, args: list[str]) -> Outcome:
    phone = typed_phone(args, "privacy erase")
    storage = ctx.storage
    now = storage.clock()
    request = await off_loop(
        lambda: storage.privacy_requests.open(
            ctx.team_id,
            "erase",
            phone,
            requested_by=ctx.user_id,
            received_at=now,
            due_at=due_after(now, ctx.tz),
        )
    )
    params = EraseParams(request_id=request.id, shown=show_phone(phone, mask=True))
    return await propose(ctx, Proposal(ERASE_KIND, params))


def describe_erase(params: EraseParams) -> str:
    return _(
        "Erase everything callops holds of *{phone}* (request {id}): its records are "
        "erased or kept only as a keyed hash (the do-not-call list keeps the hash, so the "
        "number is never called again), every message callops posted that shows it is "
        "rewritten without it and the customer's name, every file holding it is deleted. "
        "*This cannot be undone.* Due within {days} days of the customer's request."
    ).format(phone=escape(params.shown), id=code(params.request_id), days=number(DUE_DAYS))


async def execute_erase(params: EraseParams, env: ExecutionEnv) -> ActionResult:
    storage = env.storage
    if storage is None:
        raise ActionRefused(_("The erasure needs the app's database"))
    phone = await off_loop(storage.privacy_requests.phone_of, env.team_id, params.request_id)
    if phone is None:
        raise ActionRefused(_("The request is already done"))
    phone_hash = storage.privacy_posts.phone_hash(phone)
    tables = await off_loop(
        erase_everywhere, storage.db, storage.box, env.team_id, phone, phone_hash
    )
    marked = await off_loop(
        storage.privacy_posts.mark_for_erase, env.team_id, phone, params.request_id
    )
    summary = {"tables": [[e.table, e.rows, e.how, e.why] for e in tables]}
    await off_loop(
        storage.privacy_requests.note, env.team_id, params.request_id, json.dumps(summary)
    )
    await off_loop(storage.privacy_requests.working, env.team_id, params.request_id)
    await off_loop(
        storage.audit.append,
        env.team_id,
        None,
        ERASE_ACTION,
        {"phone_hash": phone_hash, "request": params.request_id, **summary, "posts": marked},
    )
    lines = [tables_words(tables)]
    if marked:
        lines.append(
            _(
                "The messages and files that show it are being rewritten or deleted; "
                "the report follows by direct message."
            )
        )
    return ActionResult(ok=True, text="\n".join(lines), data={"request_id": params.request_id})


HOW_WORDS = {
    "hashed": N_("kept only as a keyed hash"),
    "removed": N_("the number removed"),
}
WHY_WORDS = {
    "open": N_("a request still open holds it; erase again once it is settled"),
    "append-only": N_("the audit log cannot be changed; it keeps the record of what was done"),
    "no-eraser": N_("callops has no way to erase it here yet"),
}


def tables_words(tables: Sequence[Erased]) -> str:
    """What erasing did to callops's own tables, a line each."""
    if not tables:
        return _("callops's own records held nothing of it.")
    lines = []
    for e in tables:
        rows = ngettext("{n} row", "{n} rows", e.rows).format(n=number(e.rows))
        if e.how == "kept":
            why = _(WHY_WORDS[e.why]) if e.why in WHY_WORDS else escape(e.why)
            lines.append(
                "• "
                + _("{table}: {rows} not changed: {why}").format(
                    table=table_words(e.table), rows=rows, why=why
                )
            )
        else:
            how = _(HOW_WORDS[e.how]) if e.how in HOW_WORDS else escape(e.how)
            lines.append(f"• {table_words(e.table)}: {rows}, {how}")
    return "\n".join(lines)


def posts_words(posts: Sequence[PostedNumber]) -> str:
    """What became of each message and file that showed the number."""
    places: dict[tuple[str, str | None, str | None], str] = {}
    for post in posts:
        places[(post.channel, post.ts, post.file_id)] = post.outcome or "pending"
    if not places:
        return _("No message or file of callops showed it.")
    lines = []
    for (channel, ts, file_id), outcome in places.items():
        where = f"<#{escape(channel)}>" if channel[:1] in ("C", "G") else _("a direct message")
        what = (
            _("file {file}").format(file=code(file_id))
            if file_id
            else _("message {ts}").format(ts=code(ts or "?"))
        )
        lines.append(
            f"• {what} " + _("in {channel}").format(channel=where) + ": " + outcome_words(outcome)
        )
    return "\n".join(lines)


def outcome_words(outcome: str) -> str:
    kind, _sep, detail = outcome.partition(":")
    if kind == "rewritten":
        return _("rewritten without the number and the name")
    if kind == "deleted":
        return _("deleted")
    if kind == "gone":
        return _("could not be changed: it is no longer in Slack ({error})").format(
            error=code(detail)
        )
    if kind == "failed":
        return _("could not be changed: Slack refused ({error})").format(error=code(detail))
    return _("not done yet")


def removed_note(*, retention: bool) -> Reply:
    """What a message that showed a customer's data says once rewritten: nothing of them."""
    body = (
        _(
            ":lock: _This message showed a customer's number and name. It was rewritten "
            "without them: it is older than the workspace keeps customers' data._"
        )
        if retention
        else _(
            ":lock: _This message showed a customer's number and name. It was rewritten "
            "without them at the customer's request._"
        )
    )
    return Reply(text=_("A customer's data was removed from this message."), blocks=[section(body)])


def erase_report(request_id: str, tables: Sequence[Erased], posts: Sequence[PostedNumber]) -> Reply:
    """The erasure's report: what was changed, and what could not be and why."""
    body = "\n".join(
        [
            _(":shield: *Erasure {id} is done*").format(id=code(request_id)),
            "*" + _("callops's records") + "*",
            tables_words(tables),
            "*" + _("Messages and files") + "*",
            posts_words(posts),
        ]
    )
    return Reply(
        text=_("Erasure {id} is done").format(id=request_id),
        blocks=[section(truncate(body, 2900))],
    )
