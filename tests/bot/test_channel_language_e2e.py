"""A channel's language and a digest's ``lang=`` decide a post's language, not the person
who runs it, end to end.

A Vietnamese workspace with an English-speaking team: ``settings language en #channel``
makes what callops posts there English (alerts included); a digest made with ``lang=en``
posts English when a Vietnamese reader runs it, and a digest without it, in a Vietnamese
channel, posts Vietnamese when an English reader runs it (title and "why" included).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.jobs import env_of
from bot.runtime import Runtime
from bot.settings import Settings
from callcenter import CallCenter
from commands.digests.alert_watch import AlertWatch
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, APPROVALS, CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from storage import Role
from tests.bot.digest_helpers import FakeClock, app_with_clock, digests_in, shown
from tests.bot.test_alerts_e2e import alert_posts, answer_with
from tests.bot.test_commands_e2e import ask
from tests.i18n.shown import data_words, english_left

VIETNAMESE = re.compile(r"[ăâđêôơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]", re.I)


@pytest.fixture
async def app(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> AsyncIterator[Runtime]:
    async with app_with_clock(settings, slack, pbx, FakeClock(datetime.now(UTC))) as rt:
        rt.storage.workspaces.set_language(TEAM, "vi")
        rt.storage.roles.set_role(TEAM, AGENT, Role.OPERATOR)
        slack.core.state.user(SUPERVISOR, TEAM).locale = "en-US"
        slack.core.state.user(AGENT, TEAM).locale = "vi-VN"
        yield rt


async def names(pbx: EmulatorServer) -> list[str]:
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        return [c.campaign_name async for c in cc.campaigns.iterate()]


def english_only(text: str, data: list[str]) -> str:
    """``text`` without the service's data: what is left must have no Vietnamese."""
    for name in sorted(data, key=len, reverse=True):
        text = text.replace(name, "")
    return text


async def autodialer(pbx: EmulatorServer) -> Any:
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        async for c in cc.campaigns.iterate():
            if c.type == "autodialer":
                return c
    raise AssertionError("the emulator's seed has autodialer campaigns")


async def test_a_channel_set_to_english_gets_english_alerts_in_a_vietnamese_workspace(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    reply = await ask(slack, "settings language en <#C0001|call-center>")
    assert "<#C0001> now reads callops in English" in shown(reply), shown(reply)
    assert app.storage.channel_languages.get(TEAM, CALL_CENTER) == "en"
    listed = shown(await ask(slack, "settings"))
    assert "<#C0001> reads English" in listed, listed
    await ask(slack, "alert add <#C0001|call-center> dropped_rate &gt; 5")
    campaign = await autodialer(pbx)
    answer_with(pbx, campaign, dropped=7.5)
    assert (await AlertWatch(env_of(app)).tick(datetime.now(UTC))).fired == 1
    [post] = alert_posts(slack)
    said = shown(post)
    assert "Dropped-call rate is 7.5%" in said and "the last hour" in said, said
    assert not VIETNAMESE.search(english_only(said, await names(pbx))), said
    # Back to the workspace's language: the next alert post is Vietnamese.
    reply = await ask(slack, "settings language auto <#C0001|call-center>")
    assert app.storage.channel_languages.get(TEAM, CALL_CENTER) is None


async def test_a_digest_keeps_its_own_language_whoever_runs_it(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    data = await names(pbx)
    await ask(slack, "digest add <#C0001|call-center> daily 08:00 sections=totals lang=en")
    made = await ask(slack, "digest add <#C0002|approvals> daily 08:00 sections=totals")
    assert "Digest `" in shown(made), shown(made)
    made = {d.channel: d.id for d in app.storage.digests.list(TEAM)}
    english_id, vietnamese_id = made[CALL_CENTER], made[APPROVALS]

    # A Vietnamese reader runs the English digest: the post is wholly English.
    ran = await ask(slack, f"ban-tin gui {english_id}", user=AGENT)
    assert "<#C0001>" in shown(ran), shown(ran)
    [post] = digests_in(slack, CALL_CENTER)
    said = shown(post)
    assert "Daily digest" in said and "the last complete period of this digest" in said, said
    assert not VIETNAMESE.search(english_only(said, data)), said

    # An English reader runs the Vietnamese one, in a Vietnamese channel: wholly Vietnamese.
    ran = await ask(slack, f"digest run {vietnamese_id}", user=SUPERVISOR)
    assert "posted in <#C0002>" in shown(ran), shown(ran)
    [post] = [m for m in slack.messages(APPROVALS) if m.get("blocks")]
    said = shown(post)
    left = english_left([said], data_words(data))
    assert not left, "\n".join(left)
    assert "kỳ đầy đủ gần nhất của bản tin này" in said, said
