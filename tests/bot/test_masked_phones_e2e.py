"""Customers' numbers masked where many read: with the workspace's mask-phones on, a
card posted to a channel shows 0912 *** 678, and the person who asked still reads the
whole number in their own prompt."""

from __future__ import annotations

import pytest

from bot.runtime import Runtime
from callcenter.models import Campaign
from emulators.pbx.testing import EmulatorServer
from emulators.slack import APPROVALS, SlackStandIn
from tests.bot.approval_helpers import ask, card_in, confirm, prompt_for, shown


@pytest.mark.usefixtures("approvals")
async def test_channel_cards_mask_numbers_once_the_workspace_asks(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, greeting: Campaign
) -> None:
    reply = await ask(slack, "settings mask-phones on")
    assert "mask" in shown(reply).lower()
    prompt = await prompt_for(slack, f"autocall {greeting.campaign_uuid} 0912345678 name=An")
    assert "0912 345 678" in shown(prompt)  # the asker reads the whole number
    await confirm(slack, prompt)
    card = await card_in(slack, APPROVALS, "0912 *** 678")
    assert "0912 345 678" not in shown(card) and "0912345678" not in shown(card)
