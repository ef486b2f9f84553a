"""The Slack side of approvals: posting the card, updating it in place, running once.

``commands.approvals.workflow`` decides and runs; this module puts the result in front of people:
the approval card in the approvals channel (or the requesting channel), the card of a
confirmed action in the channel it was asked in, the note to the requester in the card's
thread, the emergency brake's announcement.  Every update re-renders the card from the
stored approval, so whichever process or click updates it last shows the truth.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from slack_sdk.errors import SlackApiError
from slack_sdk.models.blocks import MarkdownTextObject, SectionBlock
from slack_sdk.web.async_client import AsyncWebClient

from bot.runtime import Runtime
from bot.slack_files import WebApiFiles
from commands.approvals import actions
from commands.approvals.actions import ExecutionEnv
from commands.approvals.cards import asked, card, outcome_note
from commands.approvals.workflow import (
    cancel,
    decide,
    expire_due,
    late_message,
    needs_second_person,
    run_approved,
)
from commands.kernel.reply import Reply, notice
from commands.kernel.text import mention, truncate
from storage import Approval, ApprovalState, Role
from storage.errors import ApprovalStateError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Progress:
    """What the requester is told after confirming, and the card, if one was posted."""

    reply: Reply
    card_posted: bool
    late: bool = False
    """The click changed nothing (someone was first, it expired...): say so in a new
    message instead of rewriting the requester's prompt."""


def registered(approval: Approval) -> bool:
    """Approvals of kinds this flow renders (another family may keep its own)."""
    try:
        actions.spec_for(approval.kind)
    except LookupError:
        return False
    return True


class ApprovalFlow:
    def __init__(self, rt: Runtime) -> None:
        self.rt = rt

    # -- Slack messages --------------------------------------------------------------

    async def env(self, client: AsyncWebClient, team_id: str) -> ExecutionEnv | None:
        cc = await self.rt.clients.get(team_id)
        return ExecutionEnv(cc=cc, files=WebApiFiles(client)) if cc is not None else None

    def approvals_channel(self, approval: Approval) -> list[str]:
        """Where an approval card goes: the workspace's approvals channel, else (or if the
        bot cannot post there) the channel the request was made in."""
        workspace = self.rt.storage.workspaces.get(approval.team_id)
        wanted = [workspace.approvals_channel if workspace else None, approval.channel]
        return [c for i, c in enumerate(wanted) if c and c not in wanted[:i]]

    async def post_card(
        self, client: AsyncWebClient, approval: Approval, channels: list[str]
    ) -> Approval | None:
        """Post the card once per approval (a marker in the database makes a second
        click, here or in another process, post nothing); returns the approval with its
        message attached, or None when no card was posted."""
        marker = f"approval-card:{approval.id}"
        if not self.rt.storage.dedup.mark_event(approval.team_id, marker):
            return None
        reply = card(approval, self.rt.timezone(approval.team_id))
        for channel in channels:
            try:
                response = await client.chat_postMessage(
                    channel=channel, text=reply.text, blocks=reply.payload()["blocks"]
                )
            except SlackApiError as exc:
                log.info("approval card to %s: %s", channel, exc.response.get("error"))
                continue
            attached = self.rt.storage.approvals.attach_message(
                approval.team_id, approval.id, str(response["channel"]), str(response["ts"])
            )
            if attached.state is not approval.state:
                # Decided, cancelled or expired while the card was on its way: show that.
                await self.update_card(client, attached)
            return attached
        return None

    async def update_card(self, client: AsyncWebClient, approval: Approval) -> None:
        if not approval.channel or not approval.message_ts or not registered(approval):
            return
        reply = card(approval, self.rt.timezone(approval.team_id))
        try:
            await client.chat_update(
                channel=approval.channel,
                ts=approval.message_ts,
                text=reply.text,
                blocks=reply.payload()["blocks"],
            )
        except SlackApiError as exc:
            log.info("approval card %s update: %s", approval.id, exc.response.get("error"))

    async def settled(self, client: AsyncWebClient, approval: Approval) -> None:
        """Once a card's request is settled: tell the requester in the thread (approval
        cards only), and post the announcement an action asked for."""
        if approval.channel and approval.message_ts and needs_second_person(approval):
            note = outcome_note(approval)
            if note:
                await self._post(client, approval.channel, note, thread_ts=approval.message_ts)
        result = approval.result if isinstance(approval.result, dict) else {}
        announce = result.get("announce")
        if isinstance(announce, str) and announce:
            text = f"{announce}\nPulled by {mention(approval.decider)}."
            for channel in self.approvals_channel(approval):
                if await self._post(client, channel, text):
                    break

    async def _post(
        self, client: AsyncWebClient, channel: str, text: str, *, thread_ts: str | None = None
    ) -> bool:
        block = SectionBlock(text=MarkdownTextObject(text=truncate(text, 3000)))
        try:
            await client.chat_postMessage(
                channel=channel,
                text=truncate(text, 3000),
                blocks=[block.to_dict()],
                thread_ts=thread_ts,
            )
        except SlackApiError as exc:
            log.info("post to %s: %s", channel, exc.response.get("error"))
            return False
        return True

    async def tell(
        self, client: AsyncWebClient, *, user: str, channel: str | None, reply: Reply
    ) -> None:
        """An ephemeral answer in ``channel``, else (no channel, bot not in it) a DM."""
        payload = reply.payload()
        if channel:
            try:
                await client.chat_postEphemeral(
                    channel=channel, user=user, text=reply.text, blocks=payload["blocks"]
                )
                return
            except SlackApiError as exc:
                log.info("ephemeral to %s in %s: %s", user, channel, exc.response.get("error"))
        try:
            await client.chat_postMessage(channel=user, text=reply.text, blocks=payload["blocks"])
        except SlackApiError as exc:
            log.warning("could not tell %s: %s", user, exc.response.get("error"))

    # -- moving a request on -----------------------------------------------------------

    async def run(self, client: AsyncWebClient, approval: Approval) -> Approval | None:
        """Execute an approved request unless another click or process already does;
        then update its card.  Returns the finished approval, or None when another
        caller owns the execution."""
        env = await self.env(client, approval.team_id)
        try:
            finished = await run_approved(self.rt.storage, approval.team_id, approval.id, env)
        except ApprovalStateError as exc:
            log.info("approval %s: %s", approval.id, exc)
            return None
        await self.update_card(client, finished)
        await self.settled(client, finished)
        return finished

    async def confirmed(
        self,
        client: AsyncWebClient,
        approval: Approval,
        *,
        user: str,
        role: Role,
        params_hash: str,
    ) -> Progress:
        """The requester confirmed (prompt button or form): post the approval card, or
        (confirm only) decide, show the card in the requesting channel and run it."""
        tz = self.rt.timezone(approval.team_id)
        if needs_second_person(approval):
            if approval.state is ApprovalState.PENDING and self.rt.storage.clock() >= (
                approval.expires_at
            ):
                await self.sweep_team(client, approval.team_id)
                approval = self.rt.storage.approvals.require(approval.team_id, approval.id)
            if approval.state is not ApprovalState.PENDING:
                return Progress(notice(late_message(approval)), False, late=True)
            posted = await self.post_card(client, approval, self.approvals_channel(approval))
            if posted is not None:
                return Progress(asked(posted), True)
            current = self.rt.storage.approvals.require(approval.team_id, approval.id)
            if current.message_ts:
                return Progress(asked(current), True, late=True)
            # No card could be posted, and a request nobody can see must not linger.
            cancel(self.rt.storage, approval.team_id, approval.id, user=user, role=role)
            return Progress(
                notice(
                    "I could not post the approval card, so nothing was asked: invite me to "
                    "the approvals channel (or this one), then run the command again.",
                    emoji=":warning:",
                ),
                False,
            )
        decision = decide(
            self.rt.storage,
            approval.team_id,
            approval.id,
            user=user,
            role=role,
            approve=True,
            params_hash=params_hash,
        )
        if not decision.moved:
            message = notice(decision.message or "Nothing was done.", emoji=":warning:")
            return Progress(message, False, late=True)
        shown = decision.approval
        if shown.channel:
            shown = await self.post_card(client, shown, [shown.channel]) or shown
        finished = await self.run(client, shown)
        if finished is None:
            current = self.rt.storage.approvals.require(approval.team_id, approval.id)
            return Progress(notice(late_message(current)), bool(current.message_ts), late=True)
        reply = card(finished, tz)
        reply.ephemeral = True
        return Progress(reply, bool(finished.message_ts))

    async def sweep_team(self, client: AsyncWebClient, team_id: str) -> list[Approval]:
        """Expire this team's overdue requests and say so on their cards."""
        expired = expire_due(self.rt.storage, team_id)
        for approval in expired:
            if registered(approval):
                await self.update_card(client, approval)
                await self.settled(client, approval)
        return expired
