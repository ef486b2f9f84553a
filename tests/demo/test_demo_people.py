"""The demo's people and workspace as a visitor meets them, without a browser: Nguyễn
Thị Hương uses Slack in Vietnamese and reads callops so, Alex Morgan in English; the
workspace's language is Vietnamese and its time zone Vietnam's."""

from __future__ import annotations

from typing import Any

from demo.offline import Demo
from emulators.slack import AGENT, CALL_CENTER, MANAGER, SUPERVISOR, TEAM
from tests.bot.test_commands_e2e import shown
from tests.demo.conftest import BROWSER

pytestmark = BROWSER  # the demo fixture lives on the session's loop


async def typed(demo: Demo, text: str, user: str) -> dict[str, Any]:
    before = len(demo.slack.ephemerals(user))
    delivery = await demo.slack.driver.slash_command(user=user, channel=CALL_CENTER, text=text)
    assert delivery.in_time
    return await demo.slack.wait_for(
        lambda: (
            demo.slack.ephemerals(user)[before]
            if len(demo.slack.ephemerals(user)) > before
            else None
        )
    )


async def test_huong_reads_vietnamese_and_alex_english(demo_as_shipped: Demo) -> None:
    demo = demo_as_shipped
    people = {u: demo.slack.core.state.user(u, TEAM) for u in (SUPERVISOR, AGENT, MANAGER)}
    # Vietnamese names family name first, as the service writes its agents'; one colleague
    # speaks English.
    assert [(p.real_name, p.locale) for p in people.values()] == [
        ("Nguyễn Thị Hương", "vi-VN"), ("Alex Morgan", "en-US"), ("Trần Văn Minh", "vi-VN"),
    ]  # fmt: skip
    settings_text = shown(await typed(demo, "settings", SUPERVISOR))
    assert "dùng tiếng Anh (do quản trị viên đặt)" in settings_text, settings_text
    sofia = await typed(demo, "language", SUPERVISOR)
    assert "callops trả lời bạn bằng tiếng Việt (ngôn ngữ Slack của bạn)" in shown(sofia)
    alex = await typed(demo, "language", AGENT)
    assert "callops answers you in English (your Slack language)" in shown(alex)
    settings = shown(await typed(demo, "settings", SUPERVISOR))
    assert "Ngôn ngữ: *tiếng Việt* (do quản trị viên chọn)" in settings
    assert "Múi giờ: *Asia/Ho_Chi_Minh*" in settings
