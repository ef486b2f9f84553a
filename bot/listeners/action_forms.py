"""Buttons that start an action, and the forms that end in one.

Start/Pause/Stop on a campaign card re-enter the dispatcher with the command they stand
for, so a click is checked exactly as the typed command.  A live call's Transfer button
opens its form at once (the trigger id lives 3 seconds; nothing is asked of the service
first).  A submitted form is checked fast, acknowledged, and then becomes a request:
submitting it is the requester's confirm.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.approval_flow import ApprovalFlow
from bot.delivery import deliver
from bot.listeners.payload import where
from bot.runtime import Runtime
from callcenter import errors
from commands.admin.connection import not_connected
from commands.approvals import actions
from commands.approvals.workflow import RequestRefused, needs_second_person, open_request
from commands.calls.transfer import TRANSFER_BUTTON, read_button_value, transfer_modal
from commands.campaigns.cards import CONTROL_ACTION
from commands.dispatch import dispatch, service_failure
from commands.kernel.catalog import role_allows
from commands.kernel.forms import FORMS, meta, read_state
from commands.kernel.reply import Reply, error, notice
from storage import Role

log = logging.getLogger(__name__)

CONTROL = re.compile(f"^{CONTROL_ACTION}_(start|pause|stop)$")
TRANSFER = re.compile(f"^{TRANSFER_BUTTON}_\\d+$")


def register(app: AsyncApp, rt: Runtime) -> None:
    flow = ApprovalFlow(rt)
    actions.load_all()
    callbacks = re.compile("^(" + "|".join(re.escape(c) for c in sorted(FORMS)) + ")$")

    @app.action(CONTROL)
    async def control(
        ack: AsyncAck,
        body: dict[str, Any],
        action: dict[str, Any],
        respond: AsyncRespond,
        client: AsyncWebClient,
    ) -> None:
        await ack()
        team, user, channel = where(body)
        status = str(action["action_id"]).rsplit("_", 1)[1]
        ctx = await rt.context(client, team_id=team, user_id=user, channel_id=channel)
        outcome = await dispatch(ctx, f"{status} {action['value']}")
        await deliver(outcome, respond=respond, client=client, trigger_id=body.get("trigger_id"))

    @app.action(TRANSFER)
    async def transfer_button(
        ack: AsyncAck,
        body: dict[str, Any],
        action: dict[str, Any],
        respond: AsyncRespond,
        client: AsyncWebClient,
    ) -> None:
        await ack()
        team, user, channel = where(body)
        role = await rt.roles.role(client, team, user)
        if not role_allows(role, Role.OPERATOR):
            await respond(
                **error(
                    "Transferring a call needs the operator role; an admin can give it with "
                    "/callops role @you operator."
                ).payload()
            )
            return
        view = transfer_modal(read_button_value(str(action.get("value", ""))), channel)
        try:
            await client.views_open(trigger_id=body["trigger_id"], view=view)
        except SlackApiError as exc:
            log.info("transfer form: %s", exc.response.get("error"))
            await respond(
                **notice("Slack did not open the form in time; press Transfer again.").payload()
            )

    @app.view(callbacks)
    async def submitted(
        ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient
    ) -> None:
        form = FORMS[str(view.get("callback_id"))]
        values, data = read_state(view), meta(view)
        problems = form.check(values, data)
        if problems:
            await ack(response_action="errors", errors={k: v[:150] for k, v in problems.items()})
            return
        await ack()
        team = str((body.get("team") or {}).get("id") or body["user"].get("team_id"))
        user = str(body["user"]["id"])
        channel = str(data.get("channel") or "") or None
        ctx = await rt.context(client, team_id=team, user_id=user, channel_id=channel)

        async def tell(reply: Reply) -> None:
            await flow.tell(client, user=user, channel=channel, reply=reply)

        if not role_allows(ctx.role, form.role):
            await tell(error(f"This needs the {form.role} role; you are {ctx.role}."))
            return
        if ctx.cc is None:
            await tell(not_connected(ctx))
            return
        try:
            outcome = await form.build(ctx, values, data)
        except errors.CallCenterError as exc:
            await tell(service_failure(exc))
            return
        if isinstance(outcome, Reply):
            await tell(outcome)
            return
        try:
            approval, _ = open_request(
                rt.storage,
                team_id=team,
                user_id=user,
                role=ctx.role,
                channel_id=channel,
                proposal=outcome,
            )
        except RequestRefused as exc:
            await tell(error(exc.message))
            return
        progress = await flow.confirmed(
            client, approval, user=user, role=ctx.role, params_hash=approval.params_hash
        )
        if needs_second_person(approval) or not progress.card_posted:
            await tell(progress.reply)
