"""``listen <campaign> [key=value ...]``: what a customer would hear, and nobody called.

The same preview the autocall form and the approval card show, for a supervisor
trying values before a push: every placeholder replaced by its value as the service
reads it, each value's rule named, values the service would misread refused.
"""

from __future__ import annotations

from slack_sdk.models.blocks import ContextBlock, HeaderBlock, MarkdownTextObject, SectionBlock

from commands.calls.autocall import check_values, field_label, fields_of, not_autocall, template_of
from commands.calls.preview import ValueRefused, preview, preview_mrkdwn
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import ANY_KEY, UsageError, split_options
from commands.kernel.i18n import _
from commands.kernel.reply import Outcome, Reply
from commands.kernel.resolve import all_campaigns, pick_campaign
from commands.kernel.text import campaign_label, clip


async def listen(ctx: CommandContext, args: list[str]) -> Outcome:
    positional, given = split_options(args, spaced=ANY_KEY)
    if not positional:
        raise UsageError(
            _("Give the autocall campaign, then its values as name=value."), usage_of("listen")
        )
    cc = ctx.client()
    campaign = pick_campaign(await all_campaigns(cc), " ".join(positional))
    wrong_kind = not_autocall(campaign)
    if wrong_kind:
        return wrong_kind
    template = await template_of(cc, campaign)
    names = fields_of(template)
    check_values(campaign, names, given)
    values = {name: str(given.get(name) or "") for name in names}
    filled = {name: value for name, value in values.items() if value.strip()}
    try:
        said = preview(template, filled)
    except ValueRefused as exc:
        raise UsageError(
            _("{field} ({name}=): {problem}").format(
                field=field_label(exc.name), name=exc.name, problem=exc.message
            ),
            usage_of("listen"),
        ) from None
    missing = [name for name in names if name not in filled]
    blocks = [
        HeaderBlock(text=_("What the customer will hear")),
        SectionBlock(text=MarkdownTextObject(text=preview_mrkdwn(said))),
    ]
    notes = [
        _("Campaign *{campaign}*, template *{template}*. Nothing was sent.").format(
            campaign=campaign_label(campaign.campaign_name),
            template=clip(template.template_name if template else "–", 150),
        )
    ]
    if missing:
        notes.append(
            _("Still without a value (said as written): {names}.").format(
                names=", ".join(clip(name, 60) + "=" for name in missing)
            )
        )
    blocks.append(ContextBlock(elements=[MarkdownTextObject(text=" ".join(notes))]))
    return Reply(text=said.text or _("What the customer will hear"), blocks=blocks)


HANDLERS = {"listen": listen}
