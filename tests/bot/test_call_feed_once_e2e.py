"""A card is posted at most once and never lost when an earlier poster died mid-post.

The earlier poster here is what one leaves in the database: the row leased by a process
that is gone (its lease ran out), with or without its card already in the channel.  The
live poster takes the row over, looks for the card's metadata in the channel's history,
and posts only when it is not there.  The real ``kill -9`` is in ``tests/faults``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
from slack_sdk.web.async_client import AsyncWebClient

from bot.feed_metadata import CARD_EVENT
from bot.runtime import Runtime
from bot.settings import Settings
from emulators.pbx.testing import EmulatorServer
from emulators.slack import CALL_CENTER, SlackStandIn
from tests.bot.feed_helpers import callback_url, make_record, post, posted_record_ids, routed_feed


@asynccontextmanager
async def behind_a_dead_poster(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> AsyncIterator[tuple[Runtime, dict[str, object]]]:
    """The app with one record accepted and its row taken by a poster that then died; the
    app's own poster is stopped until the test starts it."""
    async with routed_feed(settings, slack, pbx) as (rt, base):
        record = make_record()
        await rt.call_feed.stop()
        async with httpx.AsyncClient() as http:
            accepted = await post(http, callback_url(rt, base), record)
        assert accepted.json() == {"ok": True, "queued": 1}
        [head] = rt.storage.call_feed.heads()
        assert rt.storage.call_feed.lease(head.seq, "host:4242:dead", -1.0)  # run out already
        yield rt, record


def card_metadata(record: dict[str, object]) -> dict[str, object]:
    """The metadata a call card carries, which the poster looks for before posting."""
    return {"event_type": CARD_EVENT, "event_payload": {"record_id": record["id"], "kind": "card"}}


async def test_a_card_the_dead_poster_got_into_slack_is_not_posted_again(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    async with behind_a_dead_poster(settings, slack, pbx) as (rt, record):
        bot = AsyncWebClient(token=slack.bot_token(), base_url=slack.api_url)
        await bot.chat_postMessage(  # what the dead poster sent before it died
            channel=CALL_CENTER,
            text="Call card",
            metadata=card_metadata(record),
        )
        rt.call_feed.start()
        await rt.call_feed.drained()
        assert rt.call_feed.found == 1 and rt.storage.call_feed.pending() == 0
        assert len(slack.messages(CALL_CENTER)) == 1
        [look] = slack.journal("conversations.history")
        assert look.params["include_all_metadata"] in (True, "1", "true")


async def test_a_card_the_dead_poster_never_sent_is_posted_once(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    async with behind_a_dead_poster(settings, slack, pbx) as (rt, record):
        rt.call_feed.start()
        await rt.call_feed.drained()
        assert rt.call_feed.found == 0
        assert posted_record_ids(slack, CALL_CENTER) == [record["id"]]
        [card] = slack.messages(CALL_CENTER)
        assert card["metadata"] == card_metadata(record)


async def test_a_fresh_record_costs_no_history_look_up(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    async with routed_feed(settings, slack, pbx) as (rt, base):
        record = make_record()
        async with httpx.AsyncClient() as http:
            await post(http, callback_url(rt, base), record)
        await rt.call_feed.drained()
        assert posted_record_ids(slack, CALL_CENTER) == [record["id"]]
        assert slack.journal("conversations.history") == []
