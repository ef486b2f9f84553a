"""Answers through ``response_url`` go as Bolt's ``respond`` sends them: the person sees the
answer, and an answer Slack refuses is logged without its URL (the URL itself is a
credential for answers)."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from cryptography.fernet import Fernet
from slack_bolt.async_app import AsyncRespond
from slack_sdk.web.async_client import AsyncWebClient

from bot.delivery import Surface, deliver
from bot.slack_ports import ResponseUrls, SharedRespond, WebApiMessenger
from commands.kernel.reply import notice
from emulators.slack import CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from storage import Role, SecretBox, Storage
from tests.contexts import command_context
from tests.slack_standin.loopback import Receiver, connected_receiver


@pytest.fixture
def storage(tmp_path: Path) -> Iterator[Storage]:
    with Storage.open(tmp_path / "db.sqlite", SecretBox([Fernet.generate_key().decode()])) as s:
        yield s


@pytest.fixture
async def receiver(slack: SlackStandIn) -> AsyncIterator[Receiver]:
    async with connected_receiver(slack) as recv:
        yield recv


async def test_a_refused_answer_is_logged_without_its_url(
    slack: SlackStandIn, receiver: Receiver, storage: Storage, caplog: pytest.LogCaptureFixture
) -> None:
    delivery = await slack.driver.slash_command(user=SUPERVISOR, channel=CALL_CENTER, text="x")
    url = delivery.response_url
    assert url is not None
    urls = ResponseUrls()
    try:
        respond = SharedRespond(AsyncRespond(response_url=url), urls)
        surface = Surface(
            messenger=WebApiMessenger(AsyncWebClient(), responses=urls), respond=respond
        )
        ctx = command_context(
            storage, team_id=TEAM, user_id=SUPERVISOR, channel_id=CALL_CENTER, role=Role.ADMIN
        )
        for n in range(5):  # Slack takes five answers per response_url
            await deliver(notice(f"answer {n}"), surface, ctx)
        with caplog.at_level(logging.WARNING, logger="bot.slack_ports"):
            await deliver(notice("one too many"), surface, ctx)
    finally:
        await urls.close()
    [line] = [r.getMessage() for r in caplog.records if r.name == "bot.slack_ports"]
    assert "404" in line and url not in line
    assert [e["text"] for e in slack.ephemerals(SUPERVISOR)][-1].endswith("answer 4")
