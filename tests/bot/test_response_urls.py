"""Answers through ``response_url`` (``bot.slack_ports``): what reaches Slack is what
Bolt's own ``respond`` would have sent, every answer of the process (a command's reply, a
click's rewrite) shares one session, and a dropped connection is tried once more, never
more."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiohttp import web
from slack_bolt.async_app import AsyncBoltContext, AsyncRespond
from slack_sdk.models.blocks import Block, SectionBlock
from slack_sdk.web.async_client import AsyncWebClient

from bot.slack_ports import ResponseUrls, SharedRespond, WebApiMessenger
from commands.kernel.reply import notice
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


class Recording:
    """A response_url that keeps each request's JSON body and the connection it came on."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.peers: list[object] = []

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.bodies.append(await request.json())
        assert request.transport is not None
        self.peers.append(request.transport.get_extra_info("peername"))
        return web.json_response({"ok": True})


@pytest.fixture
async def recording() -> AsyncIterator[tuple[Recording, str]]:
    server = Recording()
    app = web.Application()
    app.router.add_post("/response/1", server.handle)
    async with serve(app, "/response/1") as url:
        yield server, url


async def test_answers_and_rewrites_share_one_connection(
    recording: tuple[Recording, str], urls: ResponseUrls
) -> None:
    server, url = recording
    messenger = WebApiMessenger(AsyncWebClient(), responses=urls)
    assert (await pooled(urls, url)(text="one")).status_code == 200
    assert await messenger.rewrite(url, notice("two"))
    assert (await pooled(urls, url)(text="three")).status_code == 200
    assert await messenger.rewrite(url, notice("four"))
    assert [b["text"].rsplit(" ", 1)[-1] for b in server.bodies] == [
        "one",
        "two",
        "three",
        "four",
    ]
    assert server.bodies[1]["replace_original"] is True
    assert len(set(server.peers)) == 1  # one kept-alive connection, not one per answer


BOLT_CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((), {"delete_original": True}),
    (("plain",), {"blocks": [], "attachments": []}),
    (({"text": "whole", "blocks": [], "replace_original": True},), {}),
    (({"blocks": [SectionBlock(text="no text", block_id="b")]},), {}),
    (
        ("all",),
        {
            "attachments": [{"text": "a"}],
            "response_type": "in_channel",
            "unfurl_links": False,
            "unfurl_media": True,
            "thread_ts": "1.2",
            "metadata": {"event_type": "x", "event_payload": {}},
        },
    ),
]


@pytest.mark.parametrize(("args", "kwargs"), BOLT_CALLS)
async def test_every_argument_makes_the_body_bolts_respond_makes(
    recording: tuple[Recording, str],
    urls: ResponseUrls,
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> None:
    server, url = recording
    await pooled(urls, url)(*args, **kwargs)
    await AsyncRespond(response_url=url)(*args, **kwargs)
    ours, bolts = server.bodies
    assert ours == bolts


async def test_an_unknown_field_in_a_whole_message_is_refused_as_bolt_refuses_it(
    urls: ResponseUrls,
) -> None:
    with pytest.raises(TypeError):
        await pooled(urls, "http://127.0.0.1:9/never")({"text": "x", "colour": "red"})
    with pytest.raises(TypeError):
        await AsyncRespond(response_url="http://127.0.0.1:9/never")({"text": "x", "colour": "red"})


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
