"""A right-to-left override in the service's data is dropped before Slack shows it.

A campaign named ``Sale \u202egpj.exe`` would read as ``Sale exe.jpg`` wherever Slack draws
it, and the rest of the line after it would run backwards; what a supervisor sees keeps
the name's letters in their order."""

from __future__ import annotations

from bot.runtime import Runtime
from commands.kernel.text import BIDI_CONTROLS
from emulators.pbx.testing import EmulatorServer
from emulators.slack import SlackStandIn
from tests.bot.test_commands_e2e import ask, renamed_campaign, shown


async def test_a_right_to_left_override_in_a_campaign_name_never_reaches_a_message(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target = await renamed_campaign(pbx, "Sale \u202egpj.exe\u2066 \u200fHà Nội")
    for command in ("campaigns", f"campaign {target.campaign_uuid}"):
        seen = shown(await ask(slack, command))
        assert "Sale gpj.exe Hà Nội" in seen, command
        assert not any(c in seen for c in BIDI_CONTROLS), command
