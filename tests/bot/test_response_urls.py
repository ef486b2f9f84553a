"""Answers through ``response_url`` (``bot.response_urls``): what reaches Slack is what
Bolt's own ``respond`` would have sent, a refused answer is said in the log, and a
dropped connection is tried once more, never more."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from slack_sdk.models.blocks import Block, SectionBlock
from slack_sdk.webhook.async_client import AsyncWebhookClient

from bot.response_urls import ResponseUrls
from emulators.slack import CALL_CENTER, DIGESTS, SUPERVISOR, SlackStandIn
from tests.slack_standin.loopback import Receiver, connected_receiver, serve


@pytest.fixture
async def receiver(slack: SlackStandIn) -> AsyncIterator[Receiver]:
    async with connected_receiver(slack) as recv:
        yield recv


@pytest.fixture
async def urls() -> AsyncIterator[ResponseUrls]:
    pool = ResponseUrls()
    yield pool
    await pool.close()


async def a_response_url(slack: SlackStandIn, channel: str = CALL_CENTER) -> str:
    delivery = await slack.driver.slash_command(user=SUPERVISOR, channel=channel, text="x")
    assert delivery.response_url is not None
    return delivery.response_url


async def test_an_answer_is_the_message_slack_sdks_client_would_post(
    slack: SlackStandIn, receiver: Receiver, urls: ResponseUrls
) -> None:
    words = 'Chiến dịch “Nhắc lịch” &lt;b&gt; &amp; \\ "quoted" 😀'
    blocks: list[dict[str, Any] | Block] = [
        {"type": "section", "block_id": "dict", "text": {"type": "mrkdwn", "text": words}},
        SectionBlock(text="made by slack_sdk", block_id="sdk"),
    ]
    answer = urls.respond_to(await a_response_url(slack))
    ours = await answer(text=words, blocks=blocks, response_type="in_channel")
    theirs = await AsyncWebhookClient(await a_response_url(slack, DIGESTS)).send(
        text=words, blocks=blocks, response_type="in_channel"
    )
    ok = (200, '{"ok": true}')
    assert (ours.status_code, ours.body) == (theirs.status_code, theirs.body) == ok
    [posted] = slack.messages(CALL_CENTER)
    [reference] = slack.messages(DIGESTS)
    assert posted["text"] == reference["text"] == words
    assert posted["blocks"] == reference["blocks"]


async def test_a_refused_answer_is_returned_and_logged_without_its_url(
    slack: SlackStandIn,
    receiver: Receiver,
    urls: ResponseUrls,
    caplog: pytest.LogCaptureFixture,
) -> None:
    url = await a_response_url(slack)
    answer = urls.respond_to(url)
    for n in range(5):  # Slack takes five answers per response_url
        assert (await answer(text=f"answer {n}")).status_code == 200
    with caplog.at_level(logging.WARNING, logger="bot.response_urls"):
        sixth = await answer(text="one too many")
    assert sixth.status_code == 404 and "used_url" in sixth.body
    [line] = [r.getMessage() for r in caplog.records if r.name == "bot.response_urls"]
    assert "404" in line and "used_url" in line and url not in line
    assert [e["text"] for e in slack.ephemerals(SUPERVISOR)][-1] == "answer 4"


class Dropping:
    """A response_url that drops the first ``drops`` requests without answering."""

    def __init__(self, drops: int) -> None:
        self.drops = drops
        self.seen = 0

    async def handle(self, request: web.Request) -> web.StreamResponse:
        await request.read()
        self.seen += 1
        if self.seen <= self.drops:
            assert request.transport is not None
            request.transport.close()
            return web.Response(status=500)  # never reaches the client
        return web.json_response({"ok": True})


@pytest.mark.parametrize(("drops", "arrives"), [(1, True), (5, False)])
async def test_a_dropped_connection_is_tried_once_more_and_no_more(
    urls: ResponseUrls, drops: int, arrives: bool
) -> None:
    server = Dropping(drops)
    app = web.Application()
    app.router.add_post("/response/1", server.handle)
    async with serve(app, "/response/1") as url:
        answer = urls.respond_to(url)
        if arrives:
            assert (await answer(text="hello")).status_code == 200
        else:
            with pytest.raises(aiohttp.ClientError):
                await answer(text="hello")
    assert server.seen == 2
