"""``POST /callbacks/{token}`` against everything a caller might send: what the service is
told, what is stored, what reaches Slack, and what lands in the logs."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator

import httpx
import pytest
from sqlalchemy import func, select

from bot.runtime import Runtime
from bot.server import serving
from bot.settings import Settings
from emulators.pbx.testing import EmulatorServer
from emulators.slack import CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from storage.schema import processed_callbacks
from tests.bot.feed_helpers import (
    callback_url,
    feed_app,
    make_record,
    post,
    posted_record_ids,
    routed_feed,
    virtual_pace,
)

LIMIT = 64 * 1024


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=10, trust_env=False) as client:
        yield client


def stored_rows(settings: Settings) -> tuple[int, int]:
    """(records marked seen, rows queued) in the app's database."""
    rt = Runtime.open(settings)
    try:
        seen = rt.storage.db.scalar(select(func.count()).select_from(processed_callbacks))
        return seen, rt.storage.call_feed.pending()
    finally:
        rt.storage.close()


async def test_a_record_delivered_twice_is_posted_once(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, http: httpx.AsyncClient
) -> None:
    async with routed_feed(settings, slack, pbx) as (rt, base):
        url = callback_url(rt, base)
        body = make_record()
        first = await post(http, url, body)
        assert first.status_code == 200 and first.json() == {"ok": True, "queued": 1}
        again = await post(http, url, body)
        assert again.status_code == 200 and again.json()["duplicate"] is True
        await rt.call_feed.drained()
        assert posted_record_ids(slack, CALL_CENTER) == [body["id"]]
        assert len(slack.messages(CALL_CENTER)) == 1


async def test_an_unknown_token_is_404_and_nothing_is_stored(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, http: httpx.AsyncClient
) -> None:
    async with routed_feed(settings, slack, pbx) as (rt, base):
        callback_url(rt, base)  # the workspace has a token; these are not it
        for token in ("x" * 32, "short", "a" * 300, "..%2f..%2fhealthz"):
            answer = await post(http, f"{base}/callbacks/{token}", make_record())
            assert answer.status_code == 404, token
        assert stored_rows(settings) == (0, 0)
    assert slack.journal("chat.postMessage") == []


async def test_a_rotated_token_stops_working_at_once(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, http: httpx.AsyncClient
) -> None:
    async with feed_app(settings, slack, pbx) as (rt, base):
        old = callback_url(rt, base)
        rt.storage.callback_tokens.rotate(TEAM)
        assert (await post(http, old, make_record())).status_code == 404
        assert (await post(http, callback_url(rt, base), make_record())).status_code == 200


async def test_a_body_over_64_kb_is_413_however_it_is_sent(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, http: httpx.AsyncClient
) -> None:
    async with routed_feed(settings, slack, pbx) as (rt, base):
        url = callback_url(rt, base)

        def padded(size: int) -> bytes:
            empty = json.dumps(make_record(note="")).encode()
            body = json.dumps(make_record(note="n" * (size - len(empty)))).encode()
            assert len(body) == size
            return body

        declared = await post(http, url, padded(LIMIT + 1))
        assert declared.status_code == 413

        async def chunks() -> AsyncIterator[bytes]:
            body = padded(LIMIT * 4)
            for start in range(0, len(body), 8192):
                yield body[start : start + 8192]

        streamed = await http.post(url, content=chunks())  # chunked: no Content-Length
        assert streamed.status_code == 413
        assert stored_rows(settings) == (0, 0)
        exactly = await post(http, url, padded(LIMIT))
        assert exactly.status_code == 200


BAD_BODIES: list[tuple[str, bytes]] = [
    ("not JSON", b'{"id": "c1", "from_number": "0912345678", '),
    ("not UTF-8", b'{"id": "\xff\xfe", "to_number": "0912345678"}'),
    ("empty", b""),
    ("an array", b'[{"id": "c1", "to_number": "0912345678"}]'),
    ("a string", b'"0912345678"'),
    ("null", b"null"),
    ("no id", b'{"to_number": "0912345678", "customer_fullname": "Tran Thi Mai"}'),
    ("a numeric id", b'{"id": 17, "to_number": "0912345678"}'),
    ("an empty id", b'{"id": "  ", "to_number": "0912345678"}'),
    ("an id with a newline", b'{"id": "a\\nb", "to_number": "0912345678"}'),
    ("a word for a duration", b'{"id": "c1", "duration": "long", "to_number": "0912345678"}'),
    ("a list for additional", b'{"id": "c1", "additional": ["0912345678"]}'),
    ("30,000 [", b"[" * 30_000),
    ("deep additional", b'{"id": "c1", "additional": ' + b'{"a": ' * 40 + b"1" + b"}" * 41),
    ("too many values", b'{"id": "c1", "to_number": "0912345678", "x": [' + b"0," * 6000 + b"0]}"),
]


@pytest.mark.parametrize(("what", "raw"), BAD_BODIES, ids=[w for w, _ in BAD_BODIES])
async def test_what_is_not_a_call_record_is_400_and_logged_without_personal_data(
    what: str,
    raw: bytes,
    settings: Settings,
    slack: SlackStandIn,
    pbx: EmulatorServer,
    http: httpx.AsyncClient,
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with routed_feed(settings, slack, pbx) as (rt, base):
        url = callback_url(rt, base)
        with caplog.at_level(logging.DEBUG):
            answer = await post(http, url, raw)
        assert answer.status_code == 400, answer.text
        assert answer.json()["ok"] is False
        assert "0912345678" not in answer.text
        assert stored_rows(settings) == (0, 0)
    # What the app logged (the test's own HTTP client logs the URL it called).
    logged = "\n".join(
        r.getMessage() for r in caplog.records if not r.name.startswith(("httpx", "httpcore"))
    )
    assert "callback" in logged  # the refusal is logged ...
    for personal in ("0912345678", "Tran Thi Mai"):  # ... without what the payload held
        assert personal not in logged
    token = url.rsplit("/", 1)[1]
    assert token not in logged


async def test_accepted_records_survive_a_restart_before_they_are_posted(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, http: httpx.AsyncClient
) -> None:
    bodies = [make_record(to_number=f"09123456{i:02d}") for i in range(3)]
    async with routed_feed(settings, slack, pbx) as (rt, base):
        await rt.call_feed.stop()  # the process "dies" before posting anything
        url = callback_url(rt, base)
        for body in bodies:
            assert (await post(http, url, body)).status_code == 200
    assert slack.journal("chat.postMessage") == []
    assert stored_rows(settings) == (3, 3)

    rt = Runtime.open(settings)  # the next process on the same database
    try:
        async with serving(rt, port=0):
            virtual_pace(rt, slack)
            await rt.call_feed.drained()
    finally:
        rt.storage.close()
    assert posted_record_ids(slack, CALL_CENTER) == [b["id"] for b in bodies]
    assert stored_rows(settings) == (3, 0)


async def test_a_slack_429_is_waited_out_and_the_card_posted_once(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, http: httpx.AsyncClient
) -> None:
    async with routed_feed(settings, slack, pbx) as (rt, base):
        slack.ratelimit("chat.postMessage", times=1, retry_after=1)
        body = make_record()
        assert (await post(http, callback_url(rt, base), body)).status_code == 200
        await rt.call_feed.drained()
    statuses = [e.status for e in slack.journal("chat.postMessage")]
    assert statuses == [429, 200]
    assert posted_record_ids(slack, CALL_CENTER) == [body["id"]]


async def test_a_channel_the_bot_left_loses_its_card_and_holds_up_no_other(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, http: httpx.AsyncClient
) -> None:
    feed = slack.add_channel(TEAM, "feed", members=(SUPERVISOR,))
    async with feed_app(settings, slack, pbx) as (rt, base):
        rt.storage.routes.add(TEAM, channel=feed.id, created_by=SUPERVISOR)
        rt.storage.routes.add(TEAM, channel=CALL_CENTER, created_by=SUPERVISOR)
        slack.set_bot_member(feed.id, False)
        virtual_pace(rt, slack)
        url = callback_url(rt, base)
        first, second = make_record(), make_record(to_number="0987654321")
        assert (await post(http, url, first)).json()["queued"] == 2
        assert (await post(http, url, second)).json()["queued"] == 2
        await rt.call_feed.drained()
        assert rt.call_feed.dropped == 2
    assert posted_record_ids(slack, CALL_CENTER) == [first["id"], second["id"]]
    assert posted_record_ids(slack, feed.id) == []


async def test_two_app_processes_on_one_database_post_each_card_once(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer, http: httpx.AsyncClient
) -> None:
    async with (
        feed_app(settings, slack, pbx) as (first, base),
        feed_app(settings, slack, pbx) as (second, _),
    ):
        feeds = [rt.call_feed for rt in (first, second)]
        for feed in feeds:
            await feed.stop()
        first.storage.routes.add(TEAM, channel=CALL_CENTER, created_by=SUPERVISOR)
        channels = [
            slack.add_channel(TEAM, f"feed-{i}", members=(SUPERVISOR,)).id for i in range(4)
        ]
        for channel in channels:
            first.storage.routes.add(TEAM, channel=channel, created_by=SUPERVISOR)
        bodies = [make_record(to_number=f"09123456{i:02d}") for i in range(20)]
        url = callback_url(first, base)
        for body in bodies:
            assert (await post(http, url, body)).status_code == 200
        for rt in (first, second):  # both posters find the same 100 cards waiting
            virtual_pace(rt, slack)
        for feed in feeds:
            feed.start()
        await asyncio.gather(*(feed.drained() for feed in feeds))
        assert sum(feed.posted for feed in feeds) == len(bodies) * 5
    for channel in (CALL_CENTER, *channels):
        assert sorted(posted_record_ids(slack, channel)) == sorted(b["id"] for b in bodies)
