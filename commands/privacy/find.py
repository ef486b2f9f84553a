"""``privacy find <phone>``: every place callops holds one customer's number.

Its own tables (asked store by store, ``storage.personal_data``) and the messages and
files it posted that show the number (found by the number's keyed hash in
``storage.privacy_posts``), each message with its permalink.  The answer goes to the
admin who asked, alone: it names the number in full.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from commands.kernel.catalog import usage_for_reader, usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import UsageError
from commands.kernel.i18n import N_, _, ngettext
from commands.kernel.phones import normalize_phone, parse_phone, phone_problem, show_phone
from commands.kernel.reply import Outcome, Reply, section
from commands.kernel.text import code, escape, link, number, truncate
from storage import Storage, off_loop
from storage.personal_data import Held, where_held
from storage.privacy_posts import PostedNumber

TABLE_WORDS: dict[str, str] = {
    "approvals": N_("requests and approvals"),
    "approval_secrets": N_("requests' one-time values"),
    "audit_log": N_("the audit log"),
    "optout_numbers": N_("the company's opt-out list"),
    "optout_changes": N_("the opt-out list's history"),
    "registry_numbers": N_("the national Do Not Advertise registry"),
    "registry_staging": N_("a registry upload in progress"),
    "consents": N_("customers' consents"),
    "gate_decisions": N_("the calling rules' decisions"),
    "frequency_locks": N_("the calling rules' frequency slots"),
    "rule_watch_records": N_("calls the service placed, as the rules watch saw them"),
    "outbound_pushes": N_("advertising calls made (frequency rule)"),
    "callback_queue": N_("the call feed's queue"),
    "call_threads": N_("the call feed's threads"),
    "call_folds": N_("the call feed's folded messages"),
    "processed_callbacks": N_("the call feed's records"),
    "step_runs": N_("workflow steps' inputs"),
    "people": N_("people's settings"),
    "digests": N_("digests"),
    "alerts": N_("alerts"),
    "notification_routes": N_("call notifications"),
    "privacy_requests": N_("customers' requests about their data"),
}
"""The words for a table's contents; a table not named here is shown by its name."""
MAX_LISTED = 40
"""Messages and files listed in one answer (the rest are counted)."""


def table_words(table: str) -> str:
    words = TABLE_WORDS.get(table)
    return _(words) if words else code(table)


def typed_phone(args: Sequence[str], command: str) -> str:
    """The one customer's number a privacy command is given, or a usage error."""
    typed = " ".join(args).strip()
    if not typed:
        raise UsageError(_("Give the customer's phone number."), usage_of(command))
    phone = parse_phone(typed)
    if phone is None:
        raise UsageError(
            phone_problem(normalize_phone(typed)) or _("Give one phone number."),
            usage_of(command),
        )
    return phone


@dataclass(frozen=True)
class Holdings:
    """What callops holds of one number."""

    phone: str
    tables: list[Held]
    posts: list[PostedNumber]


def holdings(storage: Storage, team_id: str, phone: str) -> Holdings:
    """Everything callops holds of ``phone`` (blocking: off the loop)."""
    phone_hash = storage.privacy_posts.phone_hash(phone)
    tables = where_held(storage.db, storage.box, team_id, phone, phone_hash)
    posts = storage.privacy_posts.showing(team_id, phone)
    return Holdings(phone=phone, tables=tables, posts=posts)


async def find(ctx: CommandContext, args: list[str]) -> Outcome:
    phone = typed_phone(args, "privacy find")
    storage = ctx.storage
    held = await off_loop(holdings, storage, ctx.team_id, phone)
    await ctx.audit(
        "privacy.find", {"phone_hash": storage.privacy_posts.phone_hash(phone)}, detail=None
    )
    return await _answer(ctx, held)


async def _answer(ctx: CommandContext, held: Holdings) -> Reply:
    shown = escape(show_phone(held.phone))
    title = _(":mag: *Where callops holds {phone}*").format(phone=shown)
    lines: list[str] = []
    if held.tables:
        lines.append("*" + _("Its own records") + "*")
        for table in held.tables:
            rows = ngettext("{n} row", "{n} rows", table.rows).format(n=number(table.rows))
            how = "" if table.in_clear else " " + _("(as a keyed hash)")
            lines.append(f"• {table_words(table.table)}: {rows}{how}")
    messages = _post_places(held.posts)
    if messages:
        lines.append("*" + _("Messages and files callops posted") + "*")
        for channel, ts, file_id, redacted in messages[:MAX_LISTED]:
            lines.append(await _place_line(ctx, channel, ts, file_id, redacted))
        if len(messages) > MAX_LISTED:
            more = len(messages) - MAX_LISTED
            lines.append(_("…and {n} more.").format(n=number(more)))
    if not lines:
        body = _("callops holds nothing of {phone}: no record, no message, no file.").format(
            phone=shown
        )
        return Reply(text=body, blocks=[section(f"{title}\n{body}")])
    lines.append(
        _("To erase it: {command} (another admin approves).").format(
            command=code("/callops " + usage_for_reader("privacy erase " + held.phone))
        )
    )
    body = truncate(title + "\n" + "\n".join(lines), 2900)
    return Reply(text=title, blocks=[section(body)])


def _post_places(posts: Sequence[PostedNumber]) -> list[tuple[str, str | None, str | None, bool]]:
    """Each message or file once: (channel, ts, file id, rewritten already)."""
    seen: dict[tuple[str, str | None, str | None], bool] = {}
    for post in posts:
        key = (post.channel, post.ts, post.file_id)
        seen[key] = seen.get(key, False) or post.redacted_at is not None
    return [(c, t, f, r) for (c, t, f), r in seen.items()]


async def _place_line(
    ctx: CommandContext, channel: str, ts: str | None, file_id: str | None, redacted: bool
) -> str:
    where = f"<#{escape(channel)}>" if channel[:1] in ("C", "G") else _("a direct message")
    state = " " + _("(rewritten without it)") if redacted else ""
    if file_id:
        return "• " + _("file {file} in {channel}").format(file=code(file_id), channel=where)
    permalink = await ctx.slack.permalink(channel, ts) if ts else None
    label = _("message")
    shown = link(permalink, label) if permalink else label + " " + code(ts or "?")
    if not permalink and ts:
        state += " " + _("(no longer in Slack)")
    return f"• {shown} " + _("in {channel}").format(channel=where) + state
