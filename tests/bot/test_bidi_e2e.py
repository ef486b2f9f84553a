"""A right-to-left override in the service's data is dropped before Slack shows it.

A campaign named ``Sale \u202egpj.exe`` would read as ``Sale exe.jpg`` wherever Slack draws
it, and the rest of the line after it would run backwards; what a supervisor sees keeps
the name's letters in their order."""

from __future__ import annotations

from bot.runtime import Runtime
from callcenter import CallCenter
from callcenter.models import LeadCreate
from commands.kernel.text import BIDI_CONTROLS
from emulators.pbx.testing import EmulatorServer
from emulators.slack import SlackStandIn
from tests.bot.approval_helpers import autocall_campaign
from tests.bot.test_commands_e2e import ask, renamed_campaign, shown


async def test_a_right_to_left_override_in_a_campaign_name_never_reaches_a_message(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target = await renamed_campaign(pbx, "Sale \u202egpj.exe\u2066 \u200fHà Nội")
    for command in ("campaigns", f"campaign {target.campaign_uuid}"):
        seen = shown(await ask(slack, command))
        assert "Sale gpj.exe Hà Nội" in seen, command
        assert not any(c in seen for c in BIDI_CONTROLS), command


BROADCASTS = ("<!channel>", "<!here>", "<!everyone>")


def fallback_is_safe(message: dict[str, object]) -> None:
    """The message's plain ``text`` (what a notification shows) holds no broadcast and no
    bidirectional control, as its blocks do not."""
    text = str(message.get("text") or "")
    assert text, message
    assert not any(b in text for b in BROADCASTS), text
    assert not any(c in text for c in BIDI_CONTROLS), text


async def test_fallback_text_is_escaped_like_the_blocks(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    """The Listen reply's and the lead card's ``text`` carry outside values (the words
    said, a lead's name): they go through the same escaping as the blocks."""
    reminder = await autocall_campaign(pbx, "Nhắc thanh toán")
    raw = "An <!channel> <!here> <!everyone> \u202egpj.exe"
    listened = await ask(
        slack, f"listen {reminder.campaign_uuid} name={raw} amount=1000 due_date=31/12/2026"
    )
    fallback_is_safe(listened)
    assert "&lt;!channel&gt;" in str(listened["text"])
    lists = pbx.state("lists")
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        created = await cc.leads.create(
            LeadCreate(
                list_uuid=str(lists[0]["list_uuid"]), phone_number="0912345678", lead_name=raw
            )
        )
    card = await ask(slack, f"lead {created.lead_uuid}")
    fallback_is_safe(card)
    assert "&lt;!channel&gt;" in str(card["text"])
