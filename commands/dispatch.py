"""From the text after ``/callops`` to a reply: parse, check the role, run, explain failures.

This is the one way through for every command, typed or clicked (paging and choice
buttons re-enter here with the command text they carry), so the role check and the
error wording cannot differ between surfaces.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable

from callcenter import errors
from commands.admin import connection
from commands.admin import policy as admin
from commands.admin.connection import not_connected
from commands.calls import autocall, transfer
from commands.calls import live as calls
from commands.campaigns import cards as campaigns
from commands.campaigns import control
from commands.digests import alerts
from commands.digests import manage as digests
from commands.directory import groups, users
from commands.directory import listings as directory
from commands.kernel import help
from commands.kernel.catalog import CommandSpec, match, role_allows
from commands.kernel.context import CommandContext, NotConnectedError
from commands.kernel.failures import describe_failure
from commands.kernel.grammar import UsageError, tokenize
from commands.kernel.reply import Outcome, Reply, error, notice
from commands.kernel.resolve import CampaignNotFound
from commands.kernel.text import escape
from commands.leads import insert as lead_insert
from commands.leads import lists as leads
from commands.leads import upload as leads_upload
from commands.notifications import notify
from commands.reports import cdr
from commands.reports import stats as reports
from storage import Role

log = logging.getLogger(__name__)


Handler = Callable[[CommandContext, list[str]], Awaitable[Outcome]]

FAMILIES = (
    help,
    connection,
    campaigns,
    calls,
    leads,
    cdr,
    reports,
    directory,
    notify,
    digests,
    alerts,
    control,
    transfer,
    autocall,
    lead_insert,
    leads_upload,
    groups,
    users,
    admin,
)
"""Command family modules; each exposes ``HANDLERS`` (catalog name -> handler)."""

HANDLERS: dict[str, Handler] = {
    name: handler for family in FAMILIES for name, handler in family.HANDLERS.items()
}
"""Commands that work today; the rest of the catalog answers that it is coming."""

NEEDS_NO_CONNECTION = frozenset({"help", "connect", "disconnect", "status"})


async def dispatch(ctx: CommandContext, text: str) -> Outcome:
    """Run one command and always come back with something to show the user."""
    try:
        tokens = tokenize(text)
    except UsageError as exc:
        return error(exc.message)
    if not tokens:
        return await help.help_command(ctx, [])
    found = match(tokens)
    if found is None:
        return unknown_command(tokens[0], ctx.role)
    spec, args = found
    if not role_allows(ctx.role, spec.role):
        return refused(spec, ctx.role)
    handler = HANDLERS.get(spec.name)
    if handler is None:
        return notice(
            f"`/callops {escape(spec.name)}` is not available in this version yet.",
            emoji=":construction:",
        )
    if spec.name not in NEEDS_NO_CONNECTION and ctx.cc is None:
        return not_connected(ctx)
    try:
        return await handler(ctx, args)
    except UsageError as exc:
        return error(exc.message, exc.usage or spec.usage)
    except NotConnectedError:
        return not_connected(ctx)
    except CampaignNotFound as exc:
        return error(
            f"No campaign is called or starts with '{exc.query}'.",
            "campaigns  (to see their names)",
        )
    except errors.CallCenterError as exc:
        return service_failure(exc)
    except Exception:
        ref = secrets.token_hex(4)
        log.exception("command %r failed (ref %s)", spec.name, ref)
        return error(f"Something went wrong on our side (ref {ref}); it has been logged.")


def unknown_command(word: str, role: Role) -> Reply:
    """An unknown word gets the whole command list, headed by what was not understood."""
    headline = error(f"I don't know the command '{word}'. Here is what I can do:")
    return Reply(text=headline.text, blocks=headline.blocks + help.overview(role))


def refused(spec: CommandSpec, role: Role) -> Reply:
    return error(
        f"'/callops {spec.name}' needs the {spec.role} role; you are {_article(role)} {role}. "
        "An admin can change that with /callops role @you "
        f"{spec.role}."
    )


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def service_failure(exc: errors.CallCenterError) -> Reply:
    """A failed read, as the reply to the command that needed it."""
    return notice(describe_failure(exc).text, emoji=":x:")
