"""``listen <campaign> [key=value ...]``: what a customer would hear, and nobody called.

The same preview the autocall form and the approval card show, for a supervisor
trying values before a push: every placeholder replaced by its value as the service
reads it, each value's rule named, values the service would misread refused.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    HeaderBlock,
)

from callcenter import errors
from commands.calls.audio import speak, speaker, turn
from commands.calls.autocall import autocall_target, field_label, template_of
from commands.calls.preview import ValueRefused, preview, preview_mrkdwn
from commands.kernel.catalog import usage_of
from commands.kernel.context import CommandContext
from commands.kernel.grammar import ANY_KEY, UsageError, split_options
from commands.kernel.i18n import _
from commands.kernel.interactions import Click
from commands.kernel.reply import Outcome, Reply, context_line, error, notice, section
from commands.kernel.resolve import all_campaigns
from commands.kernel.slack_files import SlackFiles
from commands.kernel.text import campaign_label, clip
from commands.kernel.values import MAX_VALUE_CHARS, Text, Token, Value, read

LISTEN_BUTTON = "autocall_listen"
"""Sends the requester the preview spoken, as an audio file in a direct message."""


class ListenValue(Value):
    """What the Listen button carries: the campaign and the values, to say them again."""

    campaign_uuid: Token
    values: dict[Token, Text]


def listen_button(campaign_uuid: str, values: dict[str, str]) -> ActionsBlock | None:
    """The Listen button, where the machine can speak and the values fit in a button."""
    if speaker() is None:
        return None
    value = json.dumps({"campaign_uuid": campaign_uuid, "values": values}, ensure_ascii=False)
    if len(value) > MAX_VALUE_CHARS:
        return None
    return ActionsBlock(
        elements=[ButtonElement(text=_(":speaker: Listen"), action_id=LISTEN_BUTTON, value=value)]
    )


async def listen(ctx: CommandContext, args: list[str]) -> Outcome:
    positional, given = split_options(args, spaced=ANY_KEY)
    if not positional:
        raise UsageError(
            _("Give the autocall campaign, then its values as name=value."), usage_of("listen")
        )
    cc = ctx.client()
    target = await autocall_target(cc, await all_campaigns(cc), " ".join(positional), given)
    if isinstance(target, Reply):
        return target
    campaign, template, names = target
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
    blocks: list[Block] = [
        HeaderBlock(text=_("What the customer will hear")),
        section(preview_mrkdwn(said, heading=False)),
    ]
    if said.text is not None:
        button = listen_button(campaign.campaign_uuid, filled)
        if button is not None:
            blocks.append(button)
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
    blocks.append(context_line(" ".join(notes)))
    # The words are the template's: escaped in the fallback text as in the blocks.
    fallback_text = clip(said.text, 2000) if said.text else _("What the customer will hear")
    return Reply(text=fallback_text, blocks=blocks)


async def listen_clicked(ctx: CommandContext, click: Click) -> Outcome:
    """Say the preview with espeak-ng and send the sound to the person who asked."""
    asked = read(ListenValue, click.value)
    cc = ctx.client()
    try:
        campaign = await cc.campaigns.get(asked.campaign_uuid)
    except errors.NotFoundError:
        return error(_("This button is out of date; run the command again."))
    template = await template_of(cc, campaign)
    try:
        said = preview(template, dict(asked.values))
    except ValueRefused:
        return error(_("This button is out of date; run the command again."))
    if said.text is None:
        return error(_("There is nothing to listen to here."))
    async with turn():  # a few recordings at once; the others wait here, each answered
        return await _speak_and_send(ctx.files, ctx.user_id, said.text, campaign.campaign_name)


async def _speak_and_send(
    files: SlackFiles, user_id: str, text: str, campaign_name: str | None
) -> Outcome:
    """The recording made, then sent to ``user_id`` alone; a failure of either is told."""
    with tempfile.TemporaryDirectory(prefix="callops-listen-") as folder:
        path = Path(folder) / "callops-preview.wav"
        if not await speak(text, path):
            return error(_("This machine cannot speak Vietnamese (espeak-ng is not installed)."))
        sent = await files.send_to(
            user_id,
            filename="callops-preview.wav",
            path=str(path),
            comment=_(
                "What the customer of *{campaign}* will hear, read by espeak-ng's Vietnamese "
                "voice: an approximation of the service's own voice, with exactly its words."
            ).format(campaign=campaign_label(campaign_name)),
        )
    if not sent:
        return error(_("I could not send you the audio in a direct message."))
    return notice(_("I sent you the audio in a direct message."), emoji=":speaker:")
