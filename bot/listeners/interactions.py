"""Every button, form, shortcut and workflow step of every family, registered generically.

A listener acknowledges, builds the context, hands the click, submission, shortcut or
step run to the dispatcher and delivers the outcome; the ids come from the registry the
app was built with (``Runtime.registry``, ``commands/registry.py``) and no domain logic,
role check or literal id lives here.

A workflow step arrives as Slack's ``function_executed`` event; Bolt's ``app.function``
acknowledges it at once, puts the run's just-in-time token on the client, and gives the
listener ``complete`` and ``fail``, which answer the run with that token.  Everything
else the step does in Slack (the approval card, later updated by other requests) uses
the bot's own token: the run's token stops working once the run is answered.  The event
names no person: the step's ``interactivity`` input does, so the context is built for
that person here; a step run with that input left empty (a scheduled or event-triggered
workflow) acts as the workflow, with the role an admin gave workflows.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext, AsyncRespond
from slack_bolt.context.complete.async_complete import AsyncComplete
from slack_bolt.context.fail.async_fail import AsyncFail
from slack_sdk.web.async_client import AsyncWebClient

from bot.delivery import StepAnswer, Surface, answerable, deliver
from bot.listeners.context import ContextBuilder, builder
from bot.listeners.tracking import tracked
from bot.metrics import click_name, counted, shortcut_name, step_name, submission_name
from bot.request_guard import SUBMISSION_LOCK_WAIT
from bot.runtime import Runtime
from bot.slack_ports import WebApiMessenger
from commands.dispatch import (
    dispatch_click,
    dispatch_shortcut,
    dispatch_step,
    dispatch_submission,
    validate_submission,
)
from commands.kernel.context import CommandContext
from commands.kernel.i18n import use_audience
from commands.kernel.interactions import Click, Shortcut, StepRun, Submission
from commands.kernel.reply import Outcome, Reply, plain_words
from commands.kernel.text import truncate


def _teller(respond: AsyncRespond | None) -> Callable[[Reply], Awaitable[Any]] | None:
    """How to tell the person who clicked (None when the click has no ``response_url``)."""
    answer = answerable(respond)
    if answer is None:
        return None
    reply_with = answer

    async def tell(reply: Reply) -> None:
        await reply_with(**reply.payload())

    return tell


async def on_click(
    ack: AsyncAck,
    body: dict[str, Any],
    action: dict[str, Any],
    context: AsyncBoltContext,
    respond: AsyncRespond | None,
) -> None:
    await ack()
    click = Click.from_payload(body, action)
    registry = builder(context).rt.registry
    await _run(
        context,
        respond,
        ("click", click_name(click.action_id, registry)),
        lambda ctx: dispatch_click(ctx, click, registry=registry),
        click.trigger_id,
        click.view_id,
    )


async def _run(
    context: AsyncBoltContext,
    respond: AsyncRespond | None,
    named: tuple[str, str],
    dispatch: Callable[[CommandContext], Awaitable[Outcome]],
    trigger_id: str | None,
    view_id: str | None = None,
) -> None:
    """A click's or shortcut's way, once acknowledged: claim it, build the context, let
    the dispatcher answer and deliver that where it came from."""
    found = builder(context)
    if not await found.claimed(_teller(respond)):
        return
    with counted(found.rt.metrics, *named) as tally:
        ctx = await found.build()
        with use_audience(ctx.audience):
            outcome = await dispatch(ctx)
            tally.record(outcome)
            await _answer(found, ctx, outcome, respond, trigger_id, view_id=view_id)


async def _answer(
    found: ContextBuilder,
    ctx: CommandContext,
    outcome: Outcome,
    respond: AsyncRespond | None,
    trigger_id: str | None,
    *,
    view_id: str | None = None,
) -> None:
    """Deliver a click's or shortcut's outcome where it came from."""
    surface = Surface(
        messenger=ctx.messenger or WebApiMessenger(found.client, responses=found.rt.responses),
        respond=answerable(respond),
        trigger_id=trigger_id,
        private_metadata=json.dumps({"channel": ctx.channel_id}),
        view_id=view_id,
    )
    await deliver(outcome, surface, ctx)


async def on_submission(ack: AsyncAck, view: dict[str, Any], context: AsyncBoltContext) -> None:
    submission = Submission.from_view(view)
    busy: list[Reply] = []

    async def note(reply: Reply) -> None:
        busy.append(reply)

    found = builder(context)
    if not await found.claimed(note, lock_wait=SUBMISSION_LOCK_WAIT):
        if busy:  # the form stays open, saying why; nothing was done
            first = next(iter(submission.values), "")
            await ack(response_action="errors", errors={first: truncate(plain_words(busy[0]), 150)})
        else:
            await ack()  # a replay: answered, and nothing more
        return
    registry = found.rt.registry
    named = submission_name(submission.callback_id, registry)
    with counted(found.rt.metrics, "submission", named) as tally:
        ctx = await found.build()
        with use_audience(ctx.audience):
            problems = await validate_submission(ctx, submission, registry=registry)
            if problems is not None:
                tally.record(problems)
                await ack(response_action="errors", errors=problems.errors)
                return
            await ack()
            outcome = await dispatch_submission(ctx, submission, registry=registry)
            tally.record(outcome)
            messenger = ctx.messenger or WebApiMessenger(found.client, responses=found.rt.responses)
            await deliver(outcome, Surface(messenger=messenger, respond=None), ctx)


async def on_shortcut(
    ack: AsyncAck,
    body: dict[str, Any],
    context: AsyncBoltContext,
    respond: AsyncRespond | None,
) -> None:
    await ack()
    shortcut = Shortcut.from_payload(body)
    registry = builder(context).rt.registry
    await _run(
        context,
        respond,
        ("shortcut", shortcut_name(shortcut.callback_id, registry)),
        lambda ctx: dispatch_shortcut(ctx, shortcut, registry=registry),
        shortcut.trigger_id,
    )


def register(app: AsyncApp, rt: Runtime) -> None:
    async def on_step(
        event: dict[str, Any],
        context: AsyncBoltContext,
        client: AsyncWebClient,
        complete: AsyncComplete,
        fail: AsyncFail,
    ) -> None:
        run = StepRun.from_event(event, token=context.function_bot_access_token)
        team = context.team_id or ""
        client = await rt.bots.get(team) or client
        with counted(rt.metrics, "step", step_name(run.callback_id, rt.registry)) as tally:
            if run.user_id:
                ctx = await rt.context(client, team_id=team, user_id=run.user_id, channel_id=None)
            else:
                ctx = await rt.workflow_context(client, team, run.actor)
            with use_audience(ctx.audience):
                outcome = await dispatch_step(ctx, run, registry=rt.registry)
                tally.record(outcome)
                surface = Surface(
                    messenger=ctx.messenger or WebApiMessenger(client, responses=rt.responses),
                    respond=None,
                    step=StepAnswer(complete=complete, fail=fail),
                )
                await deliver(outcome, surface, ctx)

    # Each held in the runtime's tasks while it runs: a stopping process answers them first.
    for click in rt.registry.interactions.clicks:
        app.action(click.matcher())(tracked(rt.background, on_click))
    for submission in rt.registry.interactions.submissions:
        app.view(submission.callback_id)(tracked(rt.background, on_submission))
    for shortcut in rt.registry.interactions.shortcuts:
        app.shortcut(shortcut.callback_id)(tracked(rt.background, on_shortcut))
    for step in rt.registry.interactions.steps:
        app.function(step.callback_id)(tracked(rt.background, on_step))
