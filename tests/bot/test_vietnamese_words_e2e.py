"""Vietnamese command words end to end: ``chien-dich``, ``chien dich`` and ``chiến dịch``
are the campaigns command, a typo in them is answered with the Vietnamese word, and
``tam-dung <campaign>`` asks to pause it, exactly as ``pause`` does.  Signed slash commands
go in through the Slack stand-in; the app answers from the emulator's seeded campaigns.
What is asserted holds in either language the reply is written in."""

from __future__ import annotations

import pytest

from bot.runtime import Runtime
from emulators.pbx.testing import EmulatorServer
from emulators.slack import SlackStandIn
from tests.bot.approval_helpers import button_ids, campaigns, prompt_for
from tests.bot.test_commands_e2e import ask, shown


async def test_chien_dich_lists_the_campaigns_however_it_is_typed(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    english = await ask(slack, "campaigns")
    running = [c for c in await campaigns(pbx) if c.status == "start"][:3]
    assert running
    for typed in ("chien-dich", "chien dich", "Chiến dịch", "CHIEN-DICH"):
        reply = await ask(slack, typed)
        assert all(c.campaign_name in shown(reply) for c in running), typed
        assert reply["text"] == english["text"], typed


async def test_a_typo_in_a_vietnamese_word_is_answered_with_the_word(
    app: Runtime, slack: SlackStandIn
) -> None:
    reply = await ask(slack, "chien dic")
    assert "`chien dic`" in shown(reply) and "`chien-dich`" in shown(reply)
    assert "/callops help" in shown(reply)


@pytest.mark.usefixtures("roles")
async def test_tam_dung_asks_to_pause_the_campaign(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target = next(c for c in await campaigns(pbx) if c.status == "start" and c.type == "manual")
    english = await prompt_for(slack, f"pause {target.campaign_uuid}")
    prompt = await prompt_for(slack, f"tam-dung {target.campaign_uuid}")
    assert target.campaign_uuid in shown(prompt)
    assert button_ids(prompt) == button_ids(english)
    assert prompt["text"] == english["text"]
    spaced = await prompt_for(slack, f"tạm dừng {target.campaign_uuid}")
    assert spaced["text"] == english["text"]
