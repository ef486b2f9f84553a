"""From the text after ``/callops`` to a reply: parse, check the role, run, explain failures.

This is the one way through for every command, typed or clicked (paging and choice
buttons re-enter here with the command text they carry), for every form, shortcut and
workflow step, so the role check and the error wording cannot differ between surfaces.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Awaitable, Callable

from slack_sdk.models.views import View

from callcenter import errors
from commands.admin.connection import not_connected
from commands.campaigns import cards as campaigns
from commands.kernel import help
from commands.kernel.catalog import MAX_WORDS, role_allows, usage_for_reader
from commands.kernel.context import CommandContext, NotConnectedError
from commands.kernel.failures import describe_failure
from commands.kernel.grammar import UsageError, tokenize
from commands.kernel.help import role_name
from commands.kernel.i18n import N_, _
from commands.kernel.interactions import Click, Shortcut, StepRun, Submission
from commands.kernel.reply import (
    Also,
    FieldErrors,
    OpenModal,
    Outcome,
    PublishHome,
    Reply,
    Rerun,
    StepFailed,
    error,
    notice,
    plain_words,
)
from commands.kernel.resolve import AmbiguousCampaign, CampaignNotFound
from commands.kernel.text import code, mention, number, truncate
from commands.kernel.values import FORM_OUT_OF_DATE, OutOfDate, read_step_inputs
from commands.registry import Registry
from storage import Outcome as AuditOutcome
from storage import Role
from storage.errors import StorageBusyError

log = logging.getLogger(__name__)


NEEDS_NO_CONNECTION = frozenset({"help", "connect", "disconnect", "status", "language", "settings"})

MAX_COMMAND_CHARS = 1000
"""Longer than any real command (a lead with its address is a few hundred characters),
short enough that what a reply carries of it (a Next button's value, a choice button's
command) stays within Slack's limits."""

# Each way in takes the app's ``registry`` (``commands/registry.py``): its catalog and
# routes find the handler, and its tables are in use while the handler runs (a usage line
# in the reader's words, the action a request names).


async def dispatch(ctx: CommandContext, text: str, *, registry: Registry) -> Outcome:
    """Run one typed command and always come back with something to show the user."""
    with registry.using():
        return await _dispatch(ctx, text, registry)


async def dispatch_click(ctx: CommandContext, click: Click, *, registry: Registry) -> Outcome:
    """Run the handler that owns a clicked button (``_dispatch_click``)."""
    with registry.using():
        return await _dispatch_click(ctx, click, registry)


async def validate_submission(
    ctx: CommandContext, submission: Submission, *, registry: Registry
) -> FieldErrors | None:
    """The fast first answer to a submitted form (``_validate_submission``)."""
    with registry.using():
        return await _validate_submission(ctx, submission, registry)


async def dispatch_submission(
    ctx: CommandContext, submission: Submission, *, registry: Registry
) -> Outcome:
    """Run an accepted form's handler (after ``validate_submission`` let it through)."""
    with registry.using():
        return await _dispatch_submission(ctx, submission, registry)


async def dispatch_shortcut(
    ctx: CommandContext, shortcut: Shortcut, *, registry: Registry
) -> Outcome:
    """Run the handler of a shortcut, after the same role check as a typed command."""
    with registry.using():
        return await _dispatch_shortcut(ctx, shortcut, registry)


async def dispatch_step(ctx: CommandContext, run: StepRun, *, registry: Registry) -> Outcome:
    """Run a workflow step (``_dispatch_step``)."""
    with registry.using():
        return await _dispatch_step(ctx, run, registry)


async def home_filled(outcome: Outcome, ctx: CommandContext, registry: Registry) -> Outcome:
    """An App Home answer with its view: the family that declares the Home tab renders it
    (``Family.home``) when the handler asked for it as it is now (``PublishHome()``)."""
    if isinstance(outcome, PublishHome) and outcome.view is None and registry.home is not None:
        return PublishHome(await registry.home(ctx))
    if isinstance(outcome, Also):
        return Also(await home_filled(outcome.answer, ctx, registry), outcome.tell)
    return outcome


async def _dispatch(ctx: CommandContext, text: str, registry: Registry) -> Outcome:
    """Run one typed command and always come back with something to show the user."""
    if len(text) > MAX_COMMAND_CHARS:
        return too_long(text, registry)
    try:
        tokens = tokenize(text)
    except UsageError as exc:
        return error(exc.message)
    if not tokens:
        return await help.help_command(ctx, [])
    found = registry.catalog.match(tokens)
    if found is None:
        return unknown_command(tokens)
    spec, args = found
    if not role_allows(ctx.role, spec.role):
        return refused(f"'/callops {spec.name}'", spec.role, ctx.role, ctx.user_id)
    if spec.name not in NEEDS_NO_CONNECTION and ctx.cc is None:
        return not_connected(ctx)
    typed = [*spec.words, *args]
    return await _guarded(
        spec.name, spec.handler(ctx, args), ctx, registry, usage=spec.usage, typed=typed
    )


async def _dispatch_click(ctx: CommandContext, click: Click, registry: Registry) -> Outcome:
    """Run the handler that owns a clicked button, after the same role check as a typed
    command; a ``Rerun`` is answered as the typed command it stands for."""
    route = registry.interactions.click(click.action_id)
    if route is None:
        return error(_("This button is no longer in use; run the command again."))
    if not role_allows(ctx.role, route.role):
        await _audit_refusal(ctx, route.audit_as or route.action_id, route.role)
        return refused(_("This button"), route.role, ctx.role, ctx.user_id)
    outcome = await _guarded(route.action_id, route.handler(ctx, click), ctx, registry)
    if isinstance(outcome, Rerun):
        again = await _dispatch(ctx.at(outcome.offset), outcome.command, registry)
        if outcome.replace_original:
            # The clicked message (a page, a "Which one?" picker) gives way to the answer.
            if isinstance(again, Reply):
                again.replace_original = True
            elif isinstance(again, OpenModal):
                again.dismiss_original = True
        return again
    return outcome


async def _validate_submission(
    ctx: CommandContext, submission: Submission, registry: Registry
) -> FieldErrors | None:
    """The fast first answer to a submitted form: messages on its fields, or None to
    accept it.  A person without the form's role is refused here, on its first field."""
    route = registry.interactions.submission(submission.callback_id)
    if route is None:
        return FieldErrors({"": _("This form is no longer in use.")})
    if not role_allows(ctx.role, route.role):
        await _audit_refusal(ctx, route.audit_as or route.callback_id, route.role)
        first = next(iter(submission.values), "")
        message = refused(_("This form"), route.role, ctx.role, ctx.user_id).text.removeprefix(
            ":warning: "
        )
        return FieldErrors({first: truncate(message, 150)})
    if submission.malformed is not None:
        log.warning("form %r refused: %s", route.callback_id, submission.malformed)
        first = next(iter(submission.values), "")
        return FieldErrors({first: _(FORM_OUT_OF_DATE)})
    if route.validate is None:
        return None
    try:
        problems = await route.validate(ctx, submission)
    except OutOfDate as exc:
        log.warning("form %r refused: %s", route.callback_id, exc)
        first = next(iter(submission.values), "")
        return FieldErrors({first: _(FORM_OUT_OF_DATE)})
    except Exception:
        ref = secrets.token_hex(4)
        log.exception("form %r failed its check (ref %s)", route.callback_id, ref)
        first = next(iter(submission.values), "")
        return FieldErrors(
            {first: _("Something went wrong on our side (ref {ref}).").format(ref=ref)}
        )
    return FieldErrors({k: truncate(v, 150) for k, v in problems.items()}) if problems else None


async def _dispatch_submission(
    ctx: CommandContext, submission: Submission, registry: Registry
) -> Outcome:
    """Run an accepted form's handler (after ``validate_submission`` let it through)."""
    route = registry.interactions.submission(submission.callback_id)
    if route is None or not role_allows(ctx.role, route.role):
        return error(_("This form can no longer be submitted."))
    if submission.malformed is not None:
        return error(_(FORM_OUT_OF_DATE))
    return await _guarded(route.callback_id, route.handler(ctx, submission), ctx, registry)


async def _dispatch_shortcut(
    ctx: CommandContext, shortcut: Shortcut, registry: Registry
) -> Outcome:
    """Run the handler of a shortcut, after the same role check as a typed command."""
    route = registry.interactions.shortcut(shortcut.callback_id)
    if route is None:
        return error(_("This shortcut is no longer offered by callops."))
    if not role_allows(ctx.role, route.role):
        await _audit_refusal(ctx, route.callback_id, route.role)
        what = _("The shortcut '{name}'").format(name=_(route.name))
        return refused(what, route.role, ctx.role, ctx.user_id)
    if ctx.cc is None:
        return not_connected(ctx)
    return await _guarded(route.callback_id, route.handler(ctx, shortcut), ctx, registry)


async def _dispatch_step(ctx: CommandContext, run: StepRun, registry: Registry) -> Outcome:
    """Run a workflow step for the person who started the workflow, after the same role
    check as a typed command (fail closed: nobody known is nobody allowed).  A run no
    person started acts as the workflow, with the role an admin gave workflows (viewer
    until then), through the same checks and policy.  A step's failure is words, not a
    message: every ``Reply`` a handler or the checks come back with becomes
    ``StepFailed`` with the same words, in plain text."""
    route = registry.interactions.step(run.callback_id)
    if route is None:
        return StepFailed(
            _("callops has no step '{step}'; remove it from the workflow.").format(
                step=run.callback_id
            )
        )
    if not role_allows(ctx.role, route.role):
        await _audit_refusal(ctx, route.callback_id, route.role)
        if run.user_id:
            what = _("The step '{title}'").format(title=step_name(route.title))
            reply = refused(what, route.role, ctx.role, ctx.user_id)
        else:
            reply = workflows_refused(step_name(route.title), route.role, ctx.role)
        return StepFailed(plain_words(reply))
    if ctx.cc is None:
        return StepFailed(plain_words(not_connected(ctx)))
    declared = {p.name: (p.type, p.required) for p in route.inputs}
    try:
        read_step_inputs(route.callback_id, declared, run.inputs)
    except OutOfDate as exc:
        log.warning("step %r refused: %s", route.callback_id, exc)
        return StepFailed(_(exc.words))
    outcome = await _guarded(route.callback_id, route.handler(ctx, run), ctx, registry)
    if isinstance(outcome, Reply):
        return StepFailed(plain_words(outcome))
    return outcome


def step_name(title: str) -> str:
    """A step as Workflow Builder names it (the manifest is not translated), with its
    name in the reader's language beside it when that differs."""
    said = _(title)
    return title if said == title else f"{title} ({said})"


def workflows_refused(title: str, needed: Role, role: Role) -> Reply:
    """A step no person started, refused: what the workflows' role is and how an admin
    raises it."""
    return error(
        _(
            "The step '{step}' needs the {needed} role; it ran without a person (a schedule "
            "or an event), so it acts with the role given to workflows, {role}. An admin "
            "can change that with /callops role workflows {needed_word}."
        ).format(step=title, needed=role_name(needed), role=role_name(role), needed_word=needed)
    )


async def _guarded(
    name: str,
    work: Awaitable[Outcome],
    ctx: CommandContext,
    registry: Registry,
    *,
    usage: str | None = None,
    typed: list[str] | None = None,
) -> Outcome:
    """Every expected failure of a handler, typed or clicked, in the same words; a modal
    filled in later gets the same treatment, shown in the modal.

    A campaign name that fits several campaigns (or, mistyped, none) is answered here for
    every typed command: buttons that re-run ``typed``, everything in it kept, with the
    chosen campaign in place of the name."""
    try:
        outcome = await work
    except Exception as exc:
        return failure(name, exc, ctx, usage=usage, typed=typed)
    if isinstance(outcome, OpenModal) and outcome.fill is not None:
        outcome.fill = _guarded_fill(name, outcome.view, outcome.fill, ctx, registry)
    return await home_filled(outcome, ctx, registry)


def failure(
    name: str,
    exc: Exception,
    ctx: CommandContext,
    *,
    usage: str | None = None,
    typed: list[str] | None = None,
) -> Reply:
    if isinstance(exc, UsageError):
        return error(exc.message, exc.usage or usage)
    if isinstance(exc, NotConnectedError):
        return not_connected(ctx)
    if isinstance(exc, AmbiguousCampaign) and typed is not None:
        return campaigns.ambiguous_reply(exc, typed)
    if isinstance(exc, CampaignNotFound):
        return error(
            _("No campaign is called '{query}', starts with it or has a name close to it.").format(
                query=exc.query
            ),
            hint=_("See the campaigns' names: {command}").format(
                command=code("/callops " + usage_for_reader("campaigns"))
            ),
        )
    if isinstance(exc, AmbiguousCampaign):
        return error(exc.words())
    if isinstance(exc, errors.CallCenterError):
        return service_failure(exc)
    if isinstance(exc, StorageBusyError):
        log.warning("%r: the database is busy; the request was refused", name)
        return database_busy()
    if isinstance(exc, OutOfDate):
        # Forged, or made by an older version: refused in a line, nothing was done.
        log.warning("%r refused: %s", name, exc)
        return error(_(exc.words))
    ref = secrets.token_hex(4)
    log.error("%r failed (ref %s)", name, ref, exc_info=exc)
    reply = error(
        _("Something went wrong on our side (ref {ref}); it has been logged.").format(ref=ref)
    )
    reply.kind = "failed"
    return reply


def _guarded_fill(
    name: str,
    placeholder: View,
    fill: Callable[[], Awaitable[View]],
    ctx: CommandContext,
    registry: Registry,
) -> Callable[[], Awaitable[View]]:
    """The form's content, made after the modal opened (in the delivery, after the
    dispatcher returned: so within the app's registry again)."""

    async def safely() -> View:
        try:
            with registry.using():
                return await fill()
        except Exception as exc:
            reply = failure(name, exc, ctx)
            return View(
                type="modal",
                callback_id=placeholder.callback_id,
                title=placeholder.title.text if placeholder.title else "callops",
                close=_("Close"),
                blocks=reply.blocks,
            )

    return safely


async def _audit_refusal(ctx: CommandContext, what: str, needed: Role) -> None:
    await ctx.audit(what, {}, outcome=AuditOutcome.REFUSED, detail=f"needs {needed}, is {ctx.role}")


def too_long(text: str, registry: Registry) -> Reply:
    """A command past ``MAX_COMMAND_CHARS``: what was wrong, and the usage of the command
    it starts with (when it starts with one)."""
    found = registry.catalog.match(text.split()[:MAX_WORDS])
    usage = found[0].usage if found else "help [command]"
    return error(
        _(
            "That command is {length} characters long; callops reads commands of up to "
            "{limit}. Shorten it (names can be given by the start of the name)."
        ).format(length=number(len(text)), limit=number(MAX_COMMAND_CHARS)),
        usage,
    )


def unknown_command(tokens: list[str]) -> Reply:
    """What was not understood, the nearest commands, and where the list is: a typo
    deserves a one-line answer, not the whole help."""
    typed, hint, pointer = help.nearest_commands(tokens)
    return notice(
        _("I don't know {typed}.{hint} {pointer}").format(typed=typed, hint=hint, pointer=pointer),
        emoji=":grey_question:",
    )


A_ROLE = {
    Role.VIEWER: N_("a viewer"),
    Role.OPERATOR: N_("an operator"),
    Role.ADMIN: N_("an admin"),
}
"""What someone is, by their role (``you are an operator``)."""


def refused(what: str, needed: Role, role: Role, user_id: str) -> Reply:
    """``what`` (in the reader's language) needs a role the person does not have; the
    command that grants it is written out for them, with their own mention, so it can be
    passed to an admin as it is (``/callops role @mai operator``)."""
    return error(
        _("{what} needs the {needed} role; you are {role}.").format(
            what=what, needed=role_name(needed), role=_(A_ROLE[role])
        ),
        then=_("An admin can change that with {command}.").format(
            command=f"/callops role {grant_to(user_id)} {needed}"
        ),
    )


def grant_to(user_id: str) -> str:
    """How the person is named in ``/callops role``: their mention, which Slack shows
    as their name (an id that is not one is no mention)."""
    return mention(user_id) if user_id else "@you"


DATABASE_BUSY = N_(
    "The database is busy (another process is writing to it), so nothing was changed. "
    "Try again in a moment."
)


def database_busy() -> Reply:
    """A request that could not get the database's write lock in time (`StorageBusyError`):
    it was stopped before its change was saved, and may simply be sent again."""
    return notice(_(DATABASE_BUSY), emoji=":hourglass:")


def service_failure(exc: errors.CallCenterError) -> Reply:
    """A failed read, as the reply to the command that needed it."""
    reply = notice(describe_failure(exc).text, emoji=":x:")
    reply.kind = "service_error"
    return reply
