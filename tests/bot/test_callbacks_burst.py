"""A burst of 1,000 callbacks: every record posted once, in order per channel, threaded,
and at Slack's per-channel pace (the stand-in enforces it, so a storm of 429s would show).

Every record here is notable to its route (``notable`` names both statuses sent) and the
route says ``fold=off``: each is a card of its own, however fast they come.

The pace runs on the stand-in's clock (``virtual_pace``): the 250 cards of a channel take
250 seconds of that clock and a few seconds of real time.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import httpx

from bot.settings import Settings
from emulators.pbx.testing import EmulatorServer
from emulators.slack import SUPERVISOR, TEAM, SlackStandIn
from tests.bot.feed_helpers import (
    callback_url,
    feed_app,
    make_record,
    posted_record_ids,
    status_429s,
    virtual_pace,
)

RECORDS = 1000
CHANNELS = 4
NUMBERS = 200
CAMPAIGNS = [f"6f1c2d3e-0000-4000-8000-00000000000{i}" for i in range(CHANNELS)]


async def test_a_burst_of_1000_callbacks_is_posted_once_in_order_at_slacks_pace(
    settings: Settings, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    channels = [
        slack.add_channel(TEAM, f"feed-{i}", members=(SUPERVISOR,)).id for i in range(CHANNELS)
    ]
    slack.channel_pace(True)
    async with feed_app(settings, slack, pbx) as (rt, base):
        virtual_pace(rt, slack)
        for channel, campaign in zip(channels, CAMPAIGNS, strict=True):
            rt.storage.routes.add(  # every record notable, each a card of its own
                TEAM,
                channel=channel,
                created_by=SUPERVISOR,
                campaigns=[campaign],
                fold=False,
                notable=["answered", "busy"],
            )
        url = callback_url(rt, base)
        sent: dict[str, list[str]] = {c: [] for c in channels}
        bodies: dict[str, list[dict[str, object]]] = {c: [] for c in channels}
        for k in range(RECORDS):
            number = k % NUMBERS
            body = make_record(
                to_number=f"0912{number:06d}",
                campaign_uuid=CAMPAIGNS[number % CHANNELS],
                status="answered" if k % 3 else "busy",
            )
            bodies[channels[number % CHANNELS]].append(body)

        async def send(http: httpx.AsyncClient, channel: str) -> list[int]:
            # One sender per channel, in order, all channels at once.
            codes = []
            for body in bodies[channel]:
                answer = await http.post(url, json=body)
                codes.append(answer.status_code)
                sent[channel].append(str(body["id"]))
            return codes

        async with httpx.AsyncClient(trust_env=False, timeout=30) as http:
            codes = await asyncio.gather(*(send(http, c) for c in channels))
        assert Counter(code for batch in codes for code in batch) == {200: RECORDS}
        await rt.call_feed.drained(within=60)

    every = posted_record_ids(slack)
    assert len(every) == RECORDS and len(set(every)) == RECORDS  # each once
    for channel in channels:
        assert posted_record_ids(slack, channel) == sent[channel]  # in order
        roots = slack.messages(channel)
        assert len(roots) == NUMBERS // CHANNELS  # one card of the day per number ...
        assert all(len(slack.thread(channel, m["ts"])) == RECORDS // NUMBERS for m in roots)
    assert status_429s(slack) == 0  # ... and never faster than Slack allows
