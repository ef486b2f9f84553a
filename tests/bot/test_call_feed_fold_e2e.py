"""A busy channel's records fold into one message; a quiet channel still gets cards.

Slack takes about one message a second in a channel, edits included (the stand-in counts
them together here).  The pace runs on the stand-in's clock (``virtual_pace``), so "within
the bound" is said in Slack's seconds, not the machine's.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import httpx

from bot.feed_metadata import read_payload
from bot.runtime import Runtime
from bot.settings import Settings
from emulators.pbx.testing import EmulatorServer
from emulators.slack import CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from tests.bot.feed_helpers import (
    callback_url,
    make_record,
    post,
    routed_feed,
)


def shown(messages: list[dict[str, Any]]) -> list[str]:
    """Every record the feed's messages show, as their metadata names them."""
    ids: list[str] = []
    for message in messages:
        payload = read_payload(message)
        assert payload is not None, message
        ids.extend(payload.shown())
    return ids


def kind_of(message: dict[str, Any]) -> str:
    payload = read_payload(message)
    assert payload is not None, message
    return payload.kind


def table_rows(message: dict[str, Any]) -> list[list[str]]:
    [table] = [b for b in message["blocks"] if b["type"] == "table"]
    return [[cell.get("text", "") for cell in row] for row in table["rows"][1:]]


def calls_to(slack: SlackStandIn, channel: str) -> list[Any]:
    return [
        e
        for method in ("chat.postMessage", "chat.update")
        for e in slack.journal(method)
        if e.params.get("channel") == channel
    ]


async def queue_then_post(
    rt: Runtime, slack: SlackStandIn, base: str, records: list[dict[str, Any]]
) -> None:
    """The records arrive while the poster is held up, then it posts them."""
    await rt.call_feed.stop()
    async with httpx.AsyncClient(trust_env=False) as http:
        for record in records:
            assert (await post(http, callback_url(rt, base), record)).status_code == 200
    started = slack.clock.now()
    rt.call_feed.start()
    await rt.call_feed.drained()
    assert slack.clock.now() - started <= 10  # every record in Slack within Slack's 10 s


async def test_a_burst_of_100_records_becomes_a_few_messages_each_record_once(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    async with routed_feed(settings, slack, pbx, paced=True, virtual=True) as (rt, base):
        records = [make_record(to_number=f"0912{k:06d}") for k in range(100)]
        await queue_then_post(rt, slack, base, records)

    messages = slack.messages(CALL_CENTER)
    assert len(messages) <= 3
    assert Counter(shown(messages)) == Counter(str(r["id"]) for r in records)  # each once
    [fold] = [m for m in messages if kind_of(m) == "fold"]
    rows = table_rows(fold)
    assert len(rows) == 99 and rows[0][1] == "0912000000" and rows[0][3] == "Answered"
    assert all(e.status != 429 for e in calls_to(slack, CALL_CENTER))


async def test_records_arriving_later_are_added_to_the_open_fold(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    async with routed_feed(settings, slack, pbx, paced=True, virtual=True) as (rt, base):
        first = [make_record() for _ in range(5)]
        await queue_then_post(rt, slack, base, first)
        second = [make_record() for _ in range(5)]
        await queue_then_post(rt, slack, base, second)
        assert rt.storage.call_feed.pending() == 0

    [fold] = slack.messages(CALL_CENTER)
    assert shown([fold]) == [str(r["id"]) for r in first + second]
    assert len(table_rows(fold)) == 10 and fold["text"] == "10 call records"
    assert [e.ok for e in slack.journal("chat.update")] == [True]


async def test_a_quiet_channel_still_gets_one_card_per_record(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    async with routed_feed(settings, slack, pbx, paced=True) as (rt, base):
        records = [make_record(to_number=f"09870000{k:02d}") for k in range(3)]
        async with httpx.AsyncClient(trust_env=False) as http:
            for record in records:
                await post(http, callback_url(rt, base), record)
                await rt.call_feed.drained()

    messages = slack.messages(CALL_CENTER)
    assert [kind_of(m) for m in messages] == ["card"] * 3
    assert shown(messages) == [str(r["id"]) for r in records]
    assert slack.journal("chat.update") == []


async def test_a_fold_older_than_a_minute_is_left_alone(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    async with routed_feed(settings, slack, pbx, virtual=True) as (rt, base):
        await queue_then_post(rt, slack, base, [make_record() for _ in range(3)])
        slack.clock.advance(61)
        await queue_then_post(rt, slack, base, [make_record() for _ in range(3)])

    assert [len(table_rows(m)) for m in slack.messages(CALL_CENTER)] == [3, 3]
    assert slack.journal("chat.update") == []


async def test_notable_records_are_replies_on_the_fold_or_cards_as_the_route_says(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    feed = slack.add_channel(TEAM, "feed-own-cards", members=(SUPERVISOR,)).id
    async with routed_feed(settings, slack, pbx, virtual=True) as (rt, base):
        rt.storage.routes.add(TEAM, channel=feed, created_by=SUPERVISOR, fold=False)
        records = [make_record(to_number=f"09123000{k:02d}") for k in range(4)]
        records.insert(2, make_record(to_number="0912300010", press_key="1"))
        records.insert(
            4, make_record(to_number="0912300011", status="busy", extension="101", username="lan")
        )
        await queue_then_post(rt, slack, base, records)

    ordinary = [str(r["id"]) for r in records if not r.get("press_key") and not r.get("extension")]
    notable = [str(r["id"]) for r in records if str(r["id"]) not in ordinary]
    [fold] = slack.messages(CALL_CENTER)
    assert shown([fold]) == ordinary
    assert shown(slack.thread(CALL_CENTER, fold["ts"])[1:]) == notable
    # fold=off: the notable records are cards of their own; a card ends the fold above
    # it, and a record alone after it is a card too
    kinds = [(kind_of(m), shown([m])) for m in slack.messages(feed)]
    assert kinds == [
        ("fold", ordinary[:2]),
        ("card", notable[:1]),
        ("card", ordinary[2:3]),
        ("card", notable[1:]),
        ("card", ordinary[3:]),
    ]


async def test_a_429_on_a_folded_message_is_waited_out_and_nothing_lost_or_reordered(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    async with routed_feed(settings, slack, pbx, virtual=True) as (rt, base):
        first = [make_record() for _ in range(3)]
        await queue_then_post(rt, slack, base, first)
        # the Slack client's own three retries are refused too: the poster waits out
        # Retry-After and edits the fold with the records in their order
        slack.ratelimit("chat.update", times=4, retry_after=1)
        second = [make_record() for _ in range(3)]
        await queue_then_post(rt, slack, base, second)

    assert [e.status for e in slack.journal("chat.update")] == [429, 429, 429, 429, 200]
    [fold] = slack.messages(CALL_CENTER)
    assert shown([fold]) == [str(r["id"]) for r in first + second]


async def test_every_record_notable_at_20_a_second_into_one_channel_shows_each_once_in_time(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    """An autocall campaign where every customer presses a key: ten seconds of records
    at 20 a second, all notable, into one channel.  One message a second each would
    leave the last one minutes late; past the channel's pace they go into the folded
    message marked as notable, and every one is in Slack within the feed's bound
    (Slack's seconds: the stand-in's clock), each exactly once."""
    async with routed_feed(settings, slack, pbx, paced=True, virtual=True) as (rt, base):
        records = [make_record(to_number=f"0914{k:06d}", press_key="1") for k in range(200)]
        await queue_then_post(rt, slack, base, records)

    messages = slack.messages(CALL_CENTER)
    everywhere = [*messages, *(r for m in messages for r in slack.thread(CALL_CENTER, m["ts"])[1:])]
    assert Counter(shown(everywhere)) == Counter(str(r["id"]) for r in records)  # each once
    folds = [m for m in messages if kind_of(m) == "fold"]
    assert folds and all("a notable call" in str(m["blocks"]) for m in folds)
    marked = [row for m in folds for row in table_rows(m) if row[3].startswith("★ ")]
    assert len(marked) == sum(len(table_rows(m)) for m in folds) > 150
    assert all(e.status != 429 for e in calls_to(slack, CALL_CENTER))


async def test_notable_records_past_the_pace_fill_a_nearly_full_fold_then_a_new_one(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    """The open folded message has room for two more rows when twenty notable records
    arrive: the channel is still seen past its pace, so they fill it and open the next
    one, rather than going out one reply a second."""
    async with routed_feed(settings, slack, pbx, paced=True, virtual=True) as (rt, base):
        ordinary = [make_record(to_number=f"0915{k:06d}") for k in range(97)]
        await queue_then_post(rt, slack, base, ordinary)
        notable = [make_record(to_number=f"0916{k:06d}", press_key="1") for k in range(20)]
        await queue_then_post(rt, slack, base, notable)

    messages = slack.messages(CALL_CENTER)
    everywhere = [*messages, *(r for m in messages for r in slack.thread(CALL_CENTER, m["ts"])[1:])]
    assert Counter(shown(everywhere)) == Counter(str(r["id"]) for r in ordinary + notable)
    assert [len(table_rows(m)) for m in messages] == [99, 18]
