"""``/callops``: acknowledge at once, then run the command and answer via ``response_url``.

Slack shows "operation timed out" unless the request is answered within 3 seconds, and a
supervisor types ``/callops`` precisely when the call center is busy, so the HTTP answer
must not wait for anything.  Calling ``ack()`` inside a Bolt listener is not quite that:
Bolt's listener runner notices the ack at its next 10 ms poll, after every other ready task
has had its turn, so under a burst each ack waits behind the others' work.  ``answer_first`` answers
from the listener's middleware instead, before any work is started, and runs the command
as a task of its own.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncBoltContext, AsyncRespond
from slack_bolt.response import BoltResponse

from bot import logs
from bot.delivery import Surface, deliver
from bot.listeners.context import builder
from bot.metrics import command_name, outcome_label
from bot.runtime import Runtime
from bot.slack_ports import WebApiMessenger
from commands.dispatch import database_busy, dispatch
from commands.kernel.i18n import _, use_audience
from commands.kernel.reply import Reply, error
from storage.errors import StorageBusyError

log = logging.getLogger(__name__)


def register(app: AsyncApp, rt: Runtime) -> None:
    async def run(command: dict[str, Any], respond: AsyncRespond, context: AsyncBoltContext) -> str:
        """Run the command and deliver its outcome; returns the outcome's label."""
        ctx = await builder(context).build()
        ctx.response_url = command.get("response_url") or None
        with use_audience(ctx.audience):
            outcome = await dispatch(ctx, command.get("text") or "", registry=rt.registry)
            surface = Surface(
                messenger=ctx.messenger
                or WebApiMessenger(builder(context).client, responses=rt.responses),
                respond=respond,
                trigger_id=command.get("trigger_id"),
                private_metadata=json.dumps({"channel": command.get("channel_id")}),
            )
            await deliver(outcome, surface, ctx)
        return outcome_label(outcome)

    async def tell(respond: AsyncRespond, reply: Reply) -> None:
        await respond(**reply.payload())

    async def run_reporting(
        command: dict[str, Any], respond: AsyncRespond, context: AsyncBoltContext
    ) -> None:
        # Named once per request, for the log lines, by ``name_the_work`` (before Bolt's
        # authorize); the task running this listener inherited that context.
        name = logs.command.get() or command_name(command.get("text") or "", rt.registry)
        try:
            if not await builder(context).claimed(functools.partial(tell, respond)):
                return  # a replay, or the database too busy to tell (the person was told)
            outcome = await run(command, respond, context)
            rt.metrics.commands.labels(name, outcome).inc()
            log.info("/callops %s: %s", name, outcome)
        except StorageBusyError:
            rt.metrics.commands.labels(name, "busy").inc()
            # Building the context (the person's role) could not get the database.
            log.warning("/callops: the database is busy; nothing was done")
            try:
                await tell(respond, database_busy())
            except Exception:
                log.exception("could not tell the user that the database is busy")
        except Exception:
            rt.metrics.commands.labels(name, "failed").inc()
            # dispatch turns every expected failure into a message; this is a bug, and the
            # person who typed the command still deserves an answer rather than silence.
            log.exception("/callops %s failed", name)
            try:
                await respond(
                    **error(_("Something went wrong in callops; it has been logged.")).payload()
                )
            except Exception:
                log.exception("could not tell the user that /callops failed")

    async def answer_first(
        body: dict[str, Any],
        respond: AsyncRespond,
        context: AsyncBoltContext,
        next: Callable[[], Awaitable[None]],
    ) -> BoltResponse:
        rt.background.spawn(run_reporting(body, respond, context), name="callops-command")
        return BoltResponse(status=200, body="")

    @app.command("/callops", middleware=[answer_first])
    async def callops(ack: AsyncAck) -> None:
        """Routes ``/callops`` to ``answer_first``, which answers Slack before this runs."""
        await ack()
