"""A right-to-left override in the service's data is dropped before Slack shows it.

A campaign named ``Sale \u202egpj.exe`` would read as ``Sale exe.jpg`` wherever Slack draws
it, and the rest of the line after it would run backwards; what a supervisor sees keeps
the name's letters in their order."""

from __future__ import annotations

from bot.runtime import Runtime
from callcenter import CallCenter
from commands.kernel.text import BIDI_CONTROLS
from emulators.pbx.testing import EmulatorServer
from emulators.slack import SlackStandIn
from tests.bot.test_commands_e2e import ask, campaigns_of, shown


async def test_a_right_to_left_override_in_a_campaign_name_never_reaches_a_message(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target = (await campaigns_of(pbx))[0]
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        await cc.campaigns.set_fields(
            target.campaign_uuid, campaign_name="Sale \u202egpj.exe\u2066 \u200fHà Nội"
        )
    for command in ("campaigns", f"campaign {target.campaign_uuid}"):
        seen = shown(await ask(slack, command))
        assert "Sale gpj.exe Hà Nội" in seen, command
        assert not any(c in seen for c in BIDI_CONTROLS), command
