"""The calling rules on a campaign's card: whether they apply, and the switch for admins.

The switch is the card's way of saying ``rules advertising <campaign> on|off``: the
same change, audited the same way; its value is parsed like any value Slack sends back,
and one that does not parse changes nothing.
"""

from __future__ import annotations

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ConfirmObject,
)

from callcenter.models import Campaign
from commands.kernel.context import CommandContext
from commands.kernel.i18n import _, ngettext
from commands.kernel.interactions import Click
from commands.kernel.reply import Outcome, Rerun, context_line
from commands.kernel.text import number
from commands.kernel.values import Token, Value, read
from commands.rules.guard import (
    LOOSER,
    OUTBOUND_TYPES,
    by_type,
    frequency_looser,
    hours_looser,
    is_advertising,
    window_words,
)
from storage import Role
from storage.calling_rules import CallingRules
from storage.offload import off_loop

SWITCH = "rules_advertising_switch"


class SwitchValue(Value):
    """What the switch carries: the campaign, and whether the rules should apply."""

    campaign_uuid: Token
    on: bool


def rules_blocks(campaign: Campaign, rules: CallingRules, role: Role) -> list[Block]:
    """Whether the rules apply to an outbound campaign (nothing for inbound and manual
    ones), with the switch for admins."""
    if campaign.type not in OUTBOUND_TYPES:
        return []
    applies = is_advertising(campaign, rules)
    window = rules.hours_of(campaign.campaign_uuid)
    if applies:
        text = ngettext(
            ":scales: *Calling rules apply*: advertising calls {window}, at most {n} call "
            "to a number in 24 hours, never to the do-not-call list.",
            ":scales: *Calling rules apply*: advertising calls {window}, at most {n} calls "
            "to a number in 24 hours, never to the do-not-call list.",
            rules.frequency,
        ).format(window=window_words(window), n=number(rules.frequency))
        text += " " + _("Vietnam time.")
        if hours_looser(window) or frequency_looser(rules.frequency):
            text += f" :warning: _{_(LOOSER)}_"
    elif by_type(campaign):
        text = _(":scales: The calling rules do not apply: an admin said it is not advertising.")
    else:
        text = _(":scales: The calling rules do not apply: OTP calls are not advertising.")
    blocks: list[Block] = [context_line(text)]
    if role.at_least(Role.ADMIN):
        value = SwitchValue(campaign_uuid=campaign.campaign_uuid, on=not applies)
        button = ButtonElement(
            text=_("Not advertising") if applies else _("Apply the calling rules"),
            action_id=SWITCH,
            value=value.model_dump_json(),
            confirm=ConfirmObject(
                title=_("Not advertising?"),
                text=_(
                    "Its calls will no longer be held to the calling hours, the limit per "
                    "number or the do-not-call list. Only do this for calls that are not "
                    "advertising (OTPs, service calls)."
                ),
                confirm=_("Not advertising"),
                deny=_("Cancel"),
            )
            if applies
            else None,
        )
        blocks.append(ActionsBlock(elements=[button]))
    return blocks


async def switch_clicked(ctx: CommandContext, click: Click) -> Outcome:
    value = read(SwitchValue, click.value)
    await off_loop(
        ctx.storage.calling_rules.set_advertising,
        ctx.team_id,
        value.campaign_uuid,
        value.on,
        by=ctx.user_id,
    )
    await ctx.audit(
        "rules.advertising", {"campaign_uuid": value.campaign_uuid, "advertising": value.on}
    )
    return Rerun(f"campaign {value.campaign_uuid}")
