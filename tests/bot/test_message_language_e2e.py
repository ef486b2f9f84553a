"""Each message in its reader's language, decided once per message, end to end.

A Vietnamese workspace whose people read two languages: the approval card posted to
#approvals is the channel's message and stays Vietnamese whoever clicks it (its result
line and the thread note included), and each requester's private prompt, rewritten after
the other's click, stays in the requester's own language.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.runtime import Runtime
from callcenter.models import Campaign
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, APPROVALS, CALL_CENTER, MANAGER, SUPERVISOR, TEAM, SlackStandIn
from storage import Role
from tests.bot.approval_helpers import (
    ask,
    button_ids,
    campaigns,
    card_in,
    card_now,
    click_card,
    confirm,
    latest_view,
    prompt_for,
    use_approvals_channel,
)
from tests.bot.test_commands_e2e import shown
from tests.bot.test_language_e2e import speaks
from tests.i18n.shown import data_words, english_left

JSON = dict[str, Any]
VIETNAMESE = re.compile(r"[ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]", re.I)


async def stopped(pbx: EmulatorServer) -> list[Campaign]:
    return [c for c in await campaigns(pbx) if c.status == "stop" and c.type == "manual"]


async def asked_prompt(slack: SlackStandIn, user: str) -> JSON:
    """The requester's prompt once the card is out: the one with Withdraw."""
    return await slack.wait_for(
        lambda: next(
            (m for m in slack.ephemerals(user) if "approval_cancel" in button_ids(m)), None
        )
    )


async def concluded(slack: SlackStandIn, user: str, asked: JSON) -> JSON:
    """The same prompt once rewritten: no button left."""
    return await slack.wait_for(
        lambda: next(
            (
                m
                for m in slack.ephemerals(user)
                if m["ts"] == asked["ts"] and not button_ids(m) and m.get("blocks")
            ),
            None,
        )
    )


async def approve_and_wait(slack: SlackStandIn, card: JSON, approver: str) -> JSON:
    await click_card(slack, card, "approval_approve", approver, APPROVALS)
    return await card_now(
        slack,
        APPROVALS,
        card["ts"],
        lambda m: not button_ids(m) and ":white_check_mark:" in shown(m),
    )


@pytest.fixture
def mixed_team(app: Runtime, slack: SlackStandIn) -> Runtime:
    """A Vietnamese workspace: AGENT reads Vietnamese, SUPERVISOR and MANAGER English;
    AGENT and MANAGER may ask, SUPERVISOR and AGENT... see each test."""
    app.storage.workspaces.set_language(TEAM, "vi")
    app.storage.roles.set_role(TEAM, AGENT, Role.OPERATOR)
    app.storage.roles.set_role(TEAM, MANAGER, Role.OPERATOR)
    speaks(slack, AGENT, "vi-VN")
    speaks(slack, SUPERVISOR, "en-US")
    speaks(slack, MANAGER, "en-US")
    use_approvals_channel(app)
    return app


async def test_a_vietnamese_card_approved_by_an_english_reader_stays_vietnamese(
    mixed_team: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    target = (await stopped(pbx))[0]
    prompt = await prompt_for(slack, f"chay {target.campaign_uuid}", user=AGENT)
    await confirm(slack, prompt, user=AGENT)
    card = await card_in(slack, APPROVALS, target.campaign_uuid)
    asked = await asked_prompt(slack, AGENT)
    done = await approve_and_wait(slack, card, SUPERVISOR)
    thread = await slack.wait_for(lambda: len(slack.thread(APPROVALS, card["ts"])) > 1 or None)
    assert thread
    note = slack.thread(APPROVALS, card["ts"])[-1]
    prompt_after = await concluded(slack, AGENT, asked)
    data = data_words([target.campaign_name])
    for surface in (done, note, prompt_after):
        left = english_left([shown(surface)], data)
        assert not left, "\n".join(left)
    # The result line is on the card, in Vietnamese ("đang chạy"), not the clicker's.
    assert "đang chạy" in shown(done), shown(done)


async def test_an_english_requesters_prompt_stays_english_after_a_vietnamese_approver(
    mixed_team: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    mixed_team.storage.roles.set_role(TEAM, AGENT, Role.ADMIN)
    target = (await stopped(pbx))[0]
    prompt = await prompt_for(slack, f"start {target.campaign_uuid}", user=MANAGER)
    assert "Ask for approval" in shown(prompt)
    await confirm(slack, prompt, user=MANAGER)
    card = await card_in(slack, APPROVALS, target.campaign_uuid)
    asked = await asked_prompt(slack, MANAGER)
    done = await approve_and_wait(slack, card, AGENT)
    left = english_left([shown(done)], data_words([target.campaign_name]))
    assert not left, "\n".join(left)
    rewritten = shown(await concluded(slack, MANAGER, asked))
    assert "Approved by <@" in rewritten, rewritten
    assert not VIETNAMESE.search(rewritten.replace(target.campaign_name, "")), rewritten


async def test_a_new_admins_first_reply_is_in_their_own_language(
    app: Runtime, slack: SlackStandIn
) -> None:
    """A stored admin is not asked about by the role check: their locale is looked up
    before the first answer all the same."""
    app.storage.workspaces.set_language(TEAM, "vi")
    app.storage.roles.set_role(TEAM, MANAGER, Role.ADMIN)
    speaks(slack, MANAGER, "en-US")
    assert app.storage.people.get(TEAM, MANAGER) is None
    first = shown(await ask(slack, "help", user=MANAGER))
    assert "/callops commands" in first and "Các lệnh" not in first, first


@pytest.mark.usefixtures("mixed_team")
async def test_the_autocall_form_speaks_the_readers_language(
    slack: SlackStandIn, reminder: Campaign
) -> None:
    await slack.driver.slash_command(
        user=AGENT, channel=CALL_CENTER, text=f"goi-tu-dong {reminder.campaign_uuid} 0912345678"
    )
    form = await latest_view(slack, AGENT, "autocall_form")
    said = shown(form)
    assert "Tên khách hàng" in said and "Số tiền" in said and "Ngày đến hạn" in said, said
    left = english_left([said], data_words([reminder.campaign_name, reminder.template_name]))
    assert not left, "\n".join(left)
