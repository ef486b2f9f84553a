"""Charts drawn by Slack: a digest carries its chart as a ``data_visualization`` block the
Slack stand-in accepts (and uploads nothing), and as the PNG once the workspace is set to
``settings charts image``; the setting is listed, refused when mistyped, and audited."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from bot.runtime import Runtime
from bot.settings import Settings
from commands.digests.schedules import latest_fire, trigger_for
from emulators.pbx.testing import EmulatorServer
from emulators.slack import CALL_CENTER, TEAM, SlackStandIn
from tests.bot.digest_helpers import FakeClock, app_with_clock, digests_in, shown
from tests.bot.test_commands_e2e import ask

HCM = ZoneInfo("Asia/Ho_Chi_Minh")


@pytest.fixture
async def app(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> AsyncIterator[Runtime]:
    clock = FakeClock(datetime.now(UTC) - timedelta(days=20))
    async with app_with_clock(settings, slack, pbx, clock) as rt:
        yield rt


async def _post_yesterdays_digest(app: Runtime, slack: SlackStandIn) -> dict[str, Any]:
    reply = await ask(slack, "digest add #call-center daily 08:00 sections=totals,chart")
    assert "scheduled" in shown(reply), shown(reply)
    slot = latest_fire(trigger_for("daily 08:00", HCM), datetime.now(HCM) - timedelta(days=1))
    assert slot is not None
    await app.scheduler.run_due(slot + timedelta(seconds=30))
    [digest] = digests_in(slack, CALL_CENTER)
    return digest


def _uploads(slack: SlackStandIn) -> list[str]:
    return [e.method for e in slack.journal() if e.method == "files.completeUploadExternal"]


def _count(text: str) -> int:
    return int(re.sub(r"[^\d]", "", text))


async def test_a_digest_carries_its_chart_as_a_block_slack_accepts(
    app: Runtime, slack: SlackStandIn
) -> None:
    digest = await _post_yesterdays_digest(app, slack)
    charts = [b for b in digest["blocks"] if b["type"] == "data_visualization"]
    assert len(charts) == 1 and slack.invalid_sends() == []
    chart = charts[0]["chart"]
    # The digest's header says the period: Slack's chart is titled without it.
    assert chart["type"] == "bar" and charts[0]["title"] == "Calls per hour, Whole call center"
    assert [s["name"] for s in chart["series"]] == ["answered", "not answered"]
    categories = chart["axis_config"]["categories"]
    assert 0 < len(categories) <= 20
    assert chart["axis_config"]["y_label"] == "calls"
    # The summary beside it says the same numbers the chart draws.
    index = digest["blocks"].index(charts[0])
    summary = shown({"blocks": [digest["blocks"][index - 1]]})
    found = re.search(r"([\d,]+) calls?, ([\d,]+) answered; the busiest hour was", summary)
    assert found, summary
    answered = sum(p["value"] for p in chart["series"][0]["data"])
    missed = sum(p["value"] for p in chart["series"][1]["data"])
    assert (answered + missed, answered) == (_count(found[1]), _count(found[2]))
    assert "Calls per hour" in summary
    # Nothing follows the message: no file, and the footer does not point "below".
    assert _uploads(slack) == []
    assert "chart below" not in shown(digest)
    [stored] = app.storage.digests.list(TEAM)
    [run] = [r for r in app.storage.digests.runs(TEAM, stored.id) if r.outcome == "posted"]
    assert "(no chart)" not in str(run.detail)


async def test_set_to_image_a_digest_uploads_the_png_after_the_same_summary(
    app: Runtime, slack: SlackStandIn
) -> None:
    reply = await ask(slack, "settings charts image")
    assert "Charts are now sent as images" in shown(reply)
    digest = await _post_yesterdays_digest(app, slack)
    assert not [b for b in digest["blocks"] if b["type"] == "data_visualization"]
    assert "the busiest hour was" in shown(digest) and "chart below" in shown(digest)
    assert len(_uploads(slack)) == 1
    posts = slack.messages(CALL_CENTER)
    assert posts[posts.index(digest) + 1].get("upload")


async def test_the_setting_is_listed_refused_when_mistyped_and_audited(
    app: Runtime, slack: SlackStandIn
) -> None:
    listing = await ask(slack, "settings")
    assert "Charts: *drawn by Slack where they fit, else as images* (the default)" in shown(listing)
    refused = await ask(slack, "settings charts pictures")
    assert "'pictures' is not a way of sending charts" in shown(refused)
    assert "`native`" in shown(refused) and "`image`" in shown(refused)
    workspace = app.storage.workspaces.get(TEAM)
    assert workspace is not None and workspace.chart_mode == "native"

    await ask(slack, "settings charts IMAGE")
    workspace = app.storage.workspaces.get(TEAM)
    assert workspace is not None and workspace.chart_mode == "image"
    listing = await ask(slack, "settings")
    assert "Charts: *sent as images* (chosen by an admin)" in shown(listing)
    [entry] = [e for e in app.storage.audit.entries(TEAM) if e.action == "settings.charts"]
    assert entry.params == {"charts": "image"}

    await ask(slack, "language vi")
    listing = await ask(slack, "cai-dat")
    assert "Biểu đồ: *gửi dạng ảnh*" in shown(listing)
    done = await ask(slack, "cai-dat charts native")
    assert "Slack vẽ ngay trong tin nhắn" in shown(done)


async def test_a_channel_reading_vietnamese_gets_its_chart_in_vietnamese(
    app: Runtime, slack: SlackStandIn
) -> None:
    await ask(slack, "settings language vi")
    digest = await _post_yesterdays_digest(app, slack)
    [block] = [b for b in digest["blocks"] if b["type"] == "data_visualization"]
    assert block["title"] == "Cuộc gọi theo giờ, Toàn tổng đài"
    assert [s["name"] for s in block["chart"]["series"]] == ["nghe máy", "không kết nối được"]
    assert block["chart"]["axis_config"]["y_label"] == "cuộc gọi"
    assert "giờ đông nhất là" in shown(digest)
    assert slack.invalid_sends() == []
