"""Answers through ``response_url`` (``bot.response_urls``): what reaches Slack is what
Bolt's own ``respond`` would have sent, every answer of the process shares one session,
and a dropped connection is tried once more, never more."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from slack_bolt.async_app import AsyncBoltContext, AsyncRespond
from slack_sdk.models.blocks import Block, SectionBlock

from bot.response_urls import ResponseUrls, SharedRespond
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


def pooled(urls: ResponseUrls, url: str) -> SharedRespond:
    """The ``respond`` a listener finds in Bolt's context once the middleware ran."""
    context = AsyncBoltContext(respond=AsyncRespond(response_url=url))
    urls.pool(context)
    assert isinstance(context.respond, SharedRespond)
    return context.respond


async def a_response_url(slack: SlackStandIn, channel: str = CALL_CENTER) -> str:
    delivery = await slack.driver.slash_command(user=SUPERVISOR, channel=channel, text="x")
    assert delivery.response_url is not None
    return delivery.response_url


async def test_an_answer_is_the_message_bolts_own_respond_would_post(
    slack: SlackStandIn, receiver: Receiver, urls: ResponseUrls
) -> None:
    words = 'Chiến dịch “Nhắc lịch” &lt;b&gt; &amp; \\ "quoted" 😀'
    blocks: list[dict[str, Any] | Block] = [
        {"type": "section", "block_id": "dict", "text": {"type": "mrkdwn", "text": words}},
        SectionBlock(text="made by slack_sdk", block_id="sdk"),
    ]
    ours = await pooled(urls, await a_response_url(slack))(
        text=words, blocks=blocks, response_type="in_channel"
    )
    theirs = await AsyncRespond(response_url=await a_response_url(slack, DIGESTS))(
        text=words, blocks=blocks, response_type="in_channel"
    )
    assert (ours.status_code, ours.body) == (theirs.status_code, theirs.body)
    [posted] = slack.messages(CALL_CENTER)
    [reference] = slack.messages(DIGESTS)
    assert posted["text"] == reference["text"] == words
    assert posted["blocks"] == reference["blocks"]


async def test_answers_share_one_session(
    slack: SlackStandIn, receiver: Receiver, urls: ResponseUrls
) -> None:
    first = pooled(urls, await a_response_url(slack))
    second = pooled(urls, await a_response_url(slack))
    assert (await first(text="one")).status_code == (await second(text="two")).status_code == 200
    assert first.session is second.session and not first.session.closed


def test_a_request_without_a_response_url_keeps_bolts_respond(urls: ResponseUrls) -> None:
    given = AsyncRespond(response_url=None)
    context = AsyncBoltContext(respond=given)
    urls.pool(context)
    assert context.respond is given


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
        answer = pooled(urls, url)
        if arrives:
            assert (await answer(text="hello")).status_code == 200
        else:
            with pytest.raises(aiohttp.ClientError):
                await answer(text="hello")
    assert server.seen == 2
