"""1,000 call-record callbacks spread over three replicas, one of them ``kill -9``'d halfway:
every card is posted, none twice.

The service POSTs each record to the load balancer, which hands it to the next replica and,
when a replica does not answer (the killed one: mid-request, then refusing connections),
to the one after, as a balancer in front of a service does. A record the killed replica had
queued before it died is then a repeat for the next one (the seen records are in the
database); rows it had leased for posting wait out their lease and are taken over by
another replica's poster, which looks for the card in the channel before posting it.
Slack's per-channel pace is on in the stand-in, as in Slack (a 429 is retried, never a
lost or doubled card).
"""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter

import httpx

from emulators.slack import SUPERVISOR, TEAM, SlackStandIn
from tests.bot.feed_helpers import card_counts, make_record
from tests.faults.processes import AppProcess, Deployment
from tests.faults.waiting import until
from tests.replicas.balancer import RoundRobin

RECORDS = 1000
CHANNELS = 40
SENDERS = 8
CUSTOMERS = 60
"""Numbers called: a customer's calls of the day are threaded under the first card."""
KILLED = 1
"""The replica killed once half of the records were accepted."""


async def test_a_thousand_callbacks_with_a_replica_killed_midway_post_each_card_once(
    deployment: Deployment,
    replicas: list[AppProcess],
    balancer: RoundRobin,
    slack: SlackStandIn,
) -> None:
    slack.channel_pace(True)
    campaigns = [str(uuid.uuid4()) for _ in range(CHANNELS)]
    channels = [slack.add_channel(TEAM, f"feed-{i}").id for i in range(CHANNELS)]
    with deployment.storage() as storage:
        for channel, campaign in zip(channels, campaigns, strict=True):
            storage.routes.add(TEAM, channel=channel, created_by=SUPERVISOR, campaigns=[campaign])
        token = storage.callback_tokens.get_or_create(TEAM)
    records = [
        make_record(campaign_uuid=campaigns[i % CHANNELS], to_number=f"09120000{i % CUSTOMERS:02d}")
        for i in range(RECORDS)
    ]
    url = f"{balancer.url}/callbacks/{token}"
    queue: asyncio.Queue[dict[str, object]] = asyncio.Queue()
    for record in records:
        queue.put_nowait(record)
    answers: list[httpx.Response] = []
    halfway = asyncio.Event()

    async def sender(http: httpx.AsyncClient) -> None:
        while not queue.empty():
            record = queue.get_nowait()
            answers.append(await http.post(url, json=record))
            if len(answers) >= RECORDS // 2:
                halfway.set()

    async def killer() -> None:
        await halfway.wait()
        replicas[KILLED].kill9()
        await replicas[KILLED].wait()

    async with httpx.AsyncClient(trust_env=False, timeout=30) as http:
        await asyncio.gather(killer(), *(sender(http) for _ in range(SENDERS)))

    assert len(answers) == RECORDS
    assert [a.status_code for a in answers] == [200] * RECORDS, Counter(
        a.status_code for a in answers
    )
    callbacks = balancer.by_path(f"/callbacks/{token}")
    assert any(s.replica == KILLED for s in callbacks), "the killed replica took none"
    assert any(KILLED in s.failed_over for s in callbacks), "the kill was not felt"
    assert {s.replica for s in callbacks} == {0, 1, 2}

    wanted = {str(r["id"]) for r in records}

    def all_posted() -> bool:
        return set(card_counts(slack, channels)) >= wanted

    await until(all_posted, within=240, every=1.0)
    await until(deployment.feed_drained, within=60, every=0.5)
    counts = card_counts(slack, channels)
    twice = {record: n for record, n in counts.items() if n > 1}
    assert not twice, f"{len(twice)} records have more than one card"
    assert set(counts) == wanted
    for index, process in enumerate(replicas):
        if index != KILLED:
            assert "Traceback" not in process.log_text()
