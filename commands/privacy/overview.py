"""``privacy``: what a data-protection officer needs for the transfer dossier.

Whether customers' numbers are masked in channels, who may see them in full, and where
customers' data go: the Slack workspace (its messages and files live on Slack's
servers, outside Vietnam), the call-center service's host, and the database's engine
and host.  The answer names no customer.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from commands.kernel.catalog import usage_for_reader, usage_of
from commands.kernel.context import CommandContext
from commands.kernel.i18n import N_, _, ngettext
from commands.kernel.reply import Outcome, Reply, section
from commands.kernel.text import code, escape, number, truncate
from storage import Storage, off_loop

MASKING_NOTICE = "privacy.masking-default"
"""The ``workspace_notices`` kind of the one notice telling a workspace from before that
new workspaces mask customers' numbers (``notice.py``); opened too when an
admin sets ``mask-phones`` either way: they have chosen."""


def typed(command: str) -> str:
    """A command as the reader types it (``rieng-tu yeu-cau`` for a Vietnamese reader),
    in code marks."""
    return code("/callops " + usage_for_reader(command))


def database_place(storage: Storage) -> tuple[str, str]:
    """The database's engine and host as mrkdwn, never its password or path's secrets: a
    host name in code marks, the words standing for one (in the reader's language) not."""
    url = storage.db.engine.url
    if storage.db.is_sqlite:
        return "SQLite", escape(_("a file on the host callops runs on"))
    if url.host:
        return "PostgreSQL", code(url.host)
    return "PostgreSQL", escape(_("the host callops runs on"))


async def overview(ctx: CommandContext, args: list[str]) -> Outcome:
    storage = ctx.storage
    workspace = await off_loop(storage.workspaces.get, ctx.team_id)
    masked = workspace is None or workspace.mask_phones
    listed = await off_loop(storage.privacy_requests.listing, ctx.team_id, since=storage.clock())
    open_requests = [r for r in listed if r.open]
    engine, db_host = database_place(storage)
    service_host = urlsplit(ctx.base_url or "").hostname or _("not connected")
    lines = [
        _(":shield: *Customers' personal data in callops*"),
        "*" + _("Masking") + "*",
        (
            _("• Customers' numbers are masked in channel messages; {command} changes it.")
            if masked
            else _(
                "• Customers' numbers are shown in full in channel messages; {command} masks them."
            )
        ).format(command=typed("settings mask-phones on|off")),
        _(
            "• In full only to operators and admins who ask: in their own replies, and with "
            "a message's Show number button (each one audited). The company's own numbers "
            "(hotlines, caller ids, extensions) are never masked."
        ),
        "*" + _("Retention") + "*",
        _(
            "• Customers' numbers and names stay {days} days in the messages and files callops "
            "posted, then are rewritten out or deleted, daily; {command} changes it."
        ).format(
            days=number(workspace.retention_days if workspace else 90),
            command=typed(N_("settings retention <days>")),
        ),
        "*" + _("Where customers' data go") + "*",
        _(
            "• Slack workspace {team}: the messages and files callops posts (outside Vietnam)."
        ).format(team=code(ctx.team_id)),
        _("• The call-center service at {host}: call records, leads, autocalls.").format(
            host=code(service_host)
        ),
        _("• callops's database: {engine} on {host}.").format(engine=escape(engine), host=db_host),
        "*" + _("Customers' requests") + "*",
        ngettext(
            "• {n} open request; {command} lists it.",
            "• {n} open requests; {command} lists them.",
            len(open_requests),
        ).format(n=number(len(open_requests)), command=typed("privacy requests")),
        _("Find and erase one customer's data: {find}, {erase}.").format(
            find=typed(usage_of("privacy find")),
            erase=typed(usage_of("privacy erase")),
        ),
    ]
    body = truncate("\n".join(lines), 2900)
    return Reply(text=_("Customers' personal data in callops"), blocks=[section(body)])
