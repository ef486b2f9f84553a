"""Slack token rotation end to end: the app installed with OAuth on a Slack app with
``token_rotation_enabled``, its bot token 12 hours old. A digest posted outside any request,
and a slash command served by Bolt, both get a token refreshed once, through the same
refresher, before Slack would refuse the old one."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text

from bot.posting import ChannelPace
from bot.runtime import Runtime
from bot.server import serving
from emulators.pbx.testing import EmulatorServer
from emulators.slack import SUPERVISOR, TEAM, SlackStandIn
from emulators.slack.journal import JournalEntry
from storage import InstallationRecord
from tests.bot.test_commands_e2e import ask, shown
from tests.bot.test_oauth_e2e import free_port, install, installable, raw_database
from tests.slack_standin.test_token_rotation import auth_test_error

LIFETIME = 43200
"""Seconds a rotated Slack token lives (12 hours)."""


@pytest.fixture
async def rotating(
    tmp_path: Path, slack: SlackStandIn, pbx: EmulatorServer
) -> AsyncIterator[Runtime]:
    """The installable app (client id and secret), installed by the supervisor on a Slack
    app with token rotation on."""
    slack.core.token_rotation = True
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    rt = Runtime.open(installable(slack, tmp_path, base))
    rt.digests.outbox.pace = ChannelPace(spacing=0.0)
    rt.storage.workspaces.connect(TEAM, pbx.base_url, pbx.api_key)
    slack.core.state.revoke_tokens(TEAM)  # only tokens of this install can work
    async with serving(rt, port=port, scheduler=False) as url:
        slack.connect_app(url + "/slack/events")
        done = await install(url, TEAM, SUPERVISOR)
        assert done.status_code == 200, done.text
        yield rt
    rt.storage.close()
    assert slack.invalid_sends() == [], "the app sent Block Kit that Slack would reject"


def installed(rt: Runtime) -> InstallationRecord:
    record = rt.storage.installations.find_bot(enterprise_id=None, team_id=TEAM)
    assert record is not None and record.bot_token is not None
    return record


def age_install(rt: Runtime, slack: SlackStandIn, *, left: int) -> None:
    """Let the install's token grow old: ``left`` seconds of its life remain, as Slack's
    clock and the stored expiry both say."""
    slack.clock.advance(LIFETIME - left)
    expires_at = int(time.time()) + left

    def work(conn: object) -> None:
        conn.execute(  # type: ignore[attr-defined]
            text("UPDATE slack_installations SET bot_token_expires_at = :at"), {"at": expires_at}
        )

    rt.storage.db.write(work)


def refreshes(slack: SlackStandIn) -> list[JournalEntry]:
    return [
        e for e in slack.journal("oauth.v2.access") if e.params.get("grant_type") == "refresh_token"
    ]


def token_exchanges(rt: Runtime) -> float:
    """``oauth.v2.access`` calls answered ok, as ``/metrics`` counts them."""
    counted = rt.metrics.registry.get_sample_value(
        "callops_slack_api_calls_total", {"method": "oauth.v2.access", "outcome": "ok"}
    )
    return counted or 0.0


async def test_a_digest_outside_any_request_posts_with_a_refreshed_token(
    rotating: Runtime, slack: SlackStandIn
) -> None:
    rt = rotating
    first = installed(rt)
    assert first.bot_token is not None and first.bot_token.startswith("xoxe.xoxb-")
    assert first.bot_refresh_token is not None and first.bot_token_expires_at is not None
    assert first.bot_token_expires_at >= time.time() + LIFETIME - 60
    reply = await ask(slack, "digest add #call-center daily 08:00")
    digest_id = shown(reply).split("Digest `", 1)[1].split("`", 1)[0]
    assert refreshes(slack) == []  # a fresh token is used as it is

    exchanges = token_exchanges(rt)  # the install's own exchange of its code
    age_install(rt, slack, left=60)
    channel = await rt.digests.post_now(TEAM, digest_id, at=datetime.now(UTC))

    [refresh] = refreshes(slack)
    assert refresh.ok
    posts = [e for e in slack.journal("chat.postMessage") if e.seq > refresh.seq]
    assert posts and all(e.ok for e in posts) and posts[0].params["channel"] == channel
    # The operator sees the refresh among the app's Web API calls.
    assert token_exchanges(rt) == exchanges + 1
    now = installed(rt)
    assert now.bot_token is not None and now.bot_token.startswith("xoxe.xoxb-")
    assert now.bot_token != first.bot_token and now.bot_refresh_token != first.bot_refresh_token
    assert now.bot_token_expires_at is not None
    assert now.bot_token_expires_at >= time.time() + LIFETIME - 60
    on_disk = raw_database(rt.settings.callops_db)
    assert now.bot_token.encode() not in on_disk
    assert (now.bot_refresh_token or "").encode() not in on_disk

    # Two minutes later the old token is dead at Slack; the next digest and a command
    # still work, with the new token and no second refresh.
    slack.clock.advance(120)
    assert await auth_test_error(slack, first.bot_token) == "token_expired"
    await rt.digests.post_now(TEAM, digest_id, at=datetime.now(UTC))
    assert slack.journal("chat.postMessage")[-1].ok
    assert "Campaigns" in shown(await ask(slack, "campaigns"))
    assert len(refreshes(slack)) == 1


async def test_a_command_refreshes_through_the_same_claim(
    rotating: Runtime, slack: SlackStandIn, caplog: pytest.LogCaptureFixture
) -> None:
    rt = rotating
    first = installed(rt)
    age_install(rt, slack, left=60)
    with caplog.at_level(logging.INFO, logger="bot.token_rotation"):
        reply = await ask(slack, "campaigns")
    assert "Campaigns" in shown(reply)
    [refresh] = refreshes(slack)
    assert refresh.ok
    # callops' refresher did it (Bolt's own rotator is switched off), and said so without
    # the token.
    said = [r.getMessage() for r in caplog.records if r.name == "bot.token_rotation"]
    assert said == [f"refreshed the bot token of team {TEAM}"]
    assert first.bot_token is not None and all(first.bot_token not in m for m in caplog.messages)
    assert installed(rt).bot_token != first.bot_token
    slack.clock.advance(120)
    assert "Campaigns" in shown(await ask(slack, "campaigns"))
    assert len(refreshes(slack)) == 1
