"""Every button and form of every family, registered generically.

A listener acknowledges, builds the context, hands the click or the submission to the
dispatcher and delivers the outcome; the ids come from the families' ``INTERACTIONS``
and no domain logic, role check or literal id lives here.
"""

from __future__ import annotations

import json
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext, AsyncRespond

from bot.delivery import Surface, answerable, deliver
from bot.listeners.context import builder
from bot.messenger import WebApiMessenger
from bot.runtime import Runtime
from commands.dispatch import (
    INTERACTIONS,
    dispatch_click,
    dispatch_submission,
    validate_submission,
)
from commands.kernel.interactions import Click, Submission


async def on_click(
    ack: AsyncAck,
    body: dict[str, Any],
    action: dict[str, Any],
    context: AsyncBoltContext,
    respond: AsyncRespond | None,
) -> None:
    await ack()
    ctx = await builder(context).build()
    click = Click.from_payload(body, action)
    outcome = await dispatch_click(ctx, click)
    messenger = ctx.messenger or WebApiMessenger(builder(context).client)
    surface = Surface(
        messenger=messenger,
        respond=answerable(respond),
        trigger_id=click.trigger_id,
        private_metadata=json.dumps({"channel": ctx.channel_id}),
    )
    await deliver(outcome, surface, ctx)


async def on_submission(ack: AsyncAck, view: dict[str, Any], context: AsyncBoltContext) -> None:
    ctx = await builder(context).build()
    submission = Submission.from_view(view)
    problems = await validate_submission(ctx, submission)
    if problems is not None:
        await ack(response_action="errors", errors=problems.errors)
        return
    await ack()
    outcome = await dispatch_submission(ctx, submission)
    messenger = ctx.messenger or WebApiMessenger(builder(context).client)
    await deliver(outcome, Surface(messenger=messenger, respond=None), ctx)


def register(app: AsyncApp, rt: Runtime) -> None:
    for click in INTERACTIONS.clicks:
        app.action(click.pattern())(on_click)
    for submission in INTERACTIONS.submissions:
        app.view(submission.callback_id)(on_submission)
