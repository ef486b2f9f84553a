"""Start, Pause and Stop on a campaign card: the click acts, and the card is redrawn.

Each switch sits behind Slack's confirm dialog, which says what the click will do, so
the click that comes back is the requester's confirm (as submitting a form is): the
request is opened and confirmed here, through the same policy, audit and approval card
as ``start|pause|stop``.  The card that was clicked is then redrawn in place (the
click's ``response_url``) with the campaign as it now is and only the switches that now
apply, under a line that says what was done, so it never offers Pause on a campaign it
has just paused.  A request that needs an approver leaves the card as the campaign still
is and answers with the usual "asked" note and its Withdraw button.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field, ValidationError

from callcenter import errors
from callcenter.models import Campaign
from commands.approvals.cards import open_for, status_line
from commands.approvals.flow import ApprovalFlow
from commands.approvals.workflow import RequestRefused, needs_second_person
from commands.campaigns.cards import show_campaign
from commands.campaigns.control import ALREADY, Status, proposal_for
from commands.kernel.context import CommandContext
from commands.kernel.i18n import _
from commands.kernel.interactions import Click
from commands.kernel.reply import Outcome, Reply, context_line, error, notice
from commands.kernel.text import code, escape, truncate
from storage import ApprovalState
from storage.offload import off_loop

_UUID = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
_STATUS = re.compile(r"^(start|pause|stop)$")


class SwitchRef(BaseModel):
    """A switch's value (it may be forged): the campaign's UUID."""

    campaign_uuid: str = Field(pattern=_UUID)


async def redrawn(ctx: CommandContext, campaign: Campaign, note: str) -> Reply:
    """The campaign's card as it is now, with ``note`` (escaped mrkdwn) on top, in place
    of the card that was clicked."""
    card = await show_campaign(ctx, [campaign.campaign_uuid])
    card.blocks.insert(1, context_line(truncate(note, 3000)))
    card.replace_original = True
    return card


async def switch_clicked(ctx: CommandContext, click: Click) -> Outcome:
    word = click.action_id.rsplit("_", 1)[1]
    try:
        ref = SwitchRef(campaign_uuid=click.value)
    except ValidationError:
        return notice(_("This button is out of date; run the command again."), emoji=":warning:")
    if not _STATUS.match(word):
        return notice(_("This button is out of date; run the command again."), emoji=":warning:")
    status: Status = "start" if word == "start" else "pause" if word == "pause" else "stop"
    cc = ctx.client()
    try:
        campaign = await cc.campaigns.get(ref.campaign_uuid)
    except errors.NotFoundError:
        return notice(
            _("The campaign {uuid} no longer exists.").format(uuid=code(ref.campaign_uuid)),
            emoji=":mag:",
        )
    proposal = await proposal_for(ctx, campaign, status)
    if proposal is None:
        name = f"*{escape(campaign.campaign_name)}*"
        return await redrawn(
            ctx, campaign, ":information_source: " + _(ALREADY[status]).format(name=name)
        )
    flow = ApprovalFlow(ctx)
    try:
        approval, _mode = await open_for(ctx, flow.storage, proposal, channel_id=ctx.channel_id)
    except RequestRefused as exc:
        return error(exc.message)
    progress = await flow.confirmed(approval, params_hash=approval.params_hash)
    current = await off_loop(flow.storage.approvals.require, ctx.team_id, approval.id)
    if needs_second_person(current) or current.state is ApprovalState.PENDING or progress.late:
        return progress.reply
    return await redrawn(ctx, campaign, status_line(current, ctx.tz))
