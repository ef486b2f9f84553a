"""Approval buttons: the requester's Confirm / Cancel, the card's Approve / Deny (with a
reason, asked in a modal).

Each listener acknowledges first, then moves the stored approval with one
compare-and-set: whichever click, process or restart comes second is told who was first,
and the action runs once.  A click on a card that is overdue expires it there and then.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.approval_flow import ApprovalFlow
from bot.listeners.payload import where
from bot.runtime import Runtime
from commands.approvals.cards import deny_modal, hash_from_block
from commands.approvals.workflow import (
    APPROVE_ACTION,
    CANCEL_ACTION,
    CONFIRM_ACTION,
    DENY_ACTION,
    DENY_CALLBACK,
    REASON_BLOCK,
    cancel,
    decide,
    late_message,
    needs_second_person,
)
from commands.kernel.forms import meta, read_state
from commands.kernel.reply import Reply, notice
from commands.kernel.text import mention, truncate
from storage import ApprovalState, Outcome, Role
from storage.policy import may_decide

log = logging.getLogger(__name__)


def replacing(reply: Reply) -> dict[str, Any]:
    """The payload that rewrites the requester's own (ephemeral) message in place."""
    payload = reply.payload()
    payload["replace_original"] = True
    payload["response_type"] = "ephemeral"
    return payload


def register(app: AsyncApp, rt: Runtime) -> None:
    flow = ApprovalFlow(rt)

    @app.action(CONFIRM_ACTION)
    async def confirm(
        ack: AsyncAck,
        body: dict[str, Any],
        action: dict[str, Any],
        respond: AsyncRespond,
        client: AsyncWebClient,
    ) -> None:
        await ack()
        team, user, _ = where(body)
        approval = rt.storage.approvals.get(team, str(action.get("value", "")))
        if approval is None:
            await respond(**replacing(notice("This request no longer exists.")))
            return
        if user != approval.requester:
            await respond(
                **notice(f"Only {mention(approval.requester)} can confirm their request.").payload()
            )
            return
        role = await rt.roles.role(client, team, user)
        progress = await flow.confirmed(
            client,
            approval,
            user=user,
            role=role,
            params_hash=hash_from_block(action.get("block_id")),
        )
        if progress.late:
            await respond(**progress.reply.payload())
        elif progress.card_posted and not needs_second_person(approval):
            await respond(delete_original=True)
        else:
            await respond(**replacing(progress.reply))

    @app.action(CANCEL_ACTION)
    async def withdraw(
        ack: AsyncAck,
        body: dict[str, Any],
        action: dict[str, Any],
        respond: AsyncRespond,
        client: AsyncWebClient,
    ) -> None:
        await ack()
        team, user, _ = where(body)
        role = await rt.roles.role(client, team, user)
        try:
            decision = cancel(rt.storage, team, str(action.get("value", "")), user=user, role=role)
        except LookupError:
            await respond(**replacing(notice("This request no longer exists.")))
            return
        if not decision.moved:
            await respond(**notice(decision.message or "Nothing changed.").payload())
            return
        await flow.update_card(client, decision.approval)
        await respond(
            **replacing(notice("Cancelled. Nothing was done.", emoji=":heavy_multiplication_x:"))
        )

    @app.action(APPROVE_ACTION)
    async def approve(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient
    ) -> None:
        await ack()
        team, user, channel = where(body)
        role = await rt.roles.role(client, team, user)
        try:
            decision = decide(
                rt.storage,
                team,
                str(action.get("value", "")),
                user=user,
                role=role,
                approve=True,
                params_hash=hash_from_block(action.get("block_id")),
            )
        except LookupError:
            await flow.tell(
                client, user=user, channel=channel, reply=notice("This request no longer exists.")
            )
            return
        if not decision.moved:
            await flow.tell(
                client,
                user=user,
                channel=channel,
                reply=notice(decision.message or "Nothing changed.", emoji=":no_entry_sign:"),
            )
            if decision.approval.state.is_final:
                await flow.update_card(client, decision.approval)
            if decision.expired_now:
                await flow.settled(client, decision.approval)
            return
        await flow.update_card(client, decision.approval)
        await flow.run(client, decision.approval)

    @app.action(DENY_ACTION)
    async def deny(
        ack: AsyncAck, body: dict[str, Any], action: dict[str, Any], client: AsyncWebClient
    ) -> None:
        await ack()
        team, user, channel = where(body)
        approval = rt.storage.approvals.get(team, str(action.get("value", "")))
        if approval is None:
            await flow.tell(
                client, user=user, channel=channel, reply=notice("This request no longer exists.")
            )
            return
        if approval.state is ApprovalState.PENDING and rt.storage.clock() >= approval.expires_at:
            await flow.sweep_team(client, team)
            approval = rt.storage.approvals.require(team, approval.id)
        if approval.state is not ApprovalState.PENDING:
            await flow.tell(
                client, user=user, channel=channel, reply=notice(late_message(approval))
            )
            await flow.update_card(client, approval)
            return
        role = Role(str(await rt.roles.role(client, team, user)))
        if user == approval.requester and not approval.allow_self_approval:
            refusal: str | None = "You asked for this: withdraw it from your own message instead."
        else:
            refusal = may_decide(
                approval.approvers,
                user,
                role,
                approval.requester,
                allow_self_approval=approval.allow_self_approval,
            )
        if refusal:
            rt.storage.audit.append(
                team,
                user,
                approval.kind.value,
                approval.params,
                outcome=Outcome.REFUSED,
                detail=f"{approval.id}: deny: {refusal}",
            )
            await flow.tell(
                client,
                user=user,
                channel=channel,
                reply=notice(refusal[:1].upper() + refusal[1:], emoji=":no_entry_sign:"),
            )
            return
        private = json.dumps(
            {"id": approval.id, "hash": hash_from_block(action.get("block_id")), "channel": channel}
        )
        try:
            await client.views_open(
                trigger_id=body["trigger_id"], view=deny_modal(approval, private)
            )
        except SlackApiError as exc:
            log.info("deny modal: %s", exc.response.get("error"))
            await flow.tell(
                client,
                user=user,
                channel=channel,
                reply=notice("Slack did not open the form in time; press Deny again."),
            )

    @app.view(DENY_CALLBACK)
    async def deny_submitted(
        ack: AsyncAck, body: dict[str, Any], view: dict[str, Any], client: AsyncWebClient
    ) -> None:
        team = str((body.get("team") or {}).get("id") or body["user"].get("team_id"))
        user = str(body["user"]["id"])
        data = meta(view)
        reason = str(read_state(view).get(REASON_BLOCK) or "").strip()
        if not reason:
            await ack(
                response_action="errors", errors={REASON_BLOCK: "Say why, for the requester."}
            )
            return
        role = await rt.roles.role(client, team, user)
        try:
            decision = decide(
                rt.storage,
                team,
                str(data.get("id", "")),
                user=user,
                role=role,
                approve=False,
                params_hash=str(data.get("hash", "")),
                reason=reason,
            )
        except LookupError:
            await ack(response_action="errors", errors={REASON_BLOCK: "This request is gone."})
            return
        if not decision.moved:
            message = decision.message or "Nothing changed."
            await ack(response_action="errors", errors={REASON_BLOCK: truncate(message, 150)})
            if decision.approval.state.is_final:
                await flow.update_card(client, decision.approval)
            if decision.expired_now:
                await flow.settled(client, decision.approval)
            return
        await ack()
        await flow.update_card(client, decision.approval)
        await flow.settled(client, decision.approval)
