"""A rolling restart of two replicas under steady traffic loses nothing.

Two ``callops serve --no-scheduler`` replicas on a real PostgreSQL database behind the
round-robin balancer; people type ``/callops campaigns`` every 0.2 s and page through
listings every 0.6 s, the service sends a call record every 0.6 s (again after a
refusal, as it does), and an approved campaign start is running (the service holds its
answer) on the replica restarted first.  Each replica in turn gets SIGTERM, drains,
exits, and a new process takes its place behind the balancer before the next one goes.
Then: every acknowledged command and click was answered, every record the receiver took
is shown exactly once, and the approval is settled done.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal

import httpx

from emulators.pbx.testing import EmulatorServer
from emulators.slack import APPROVALS, CALL_CENTER, SUPERVISOR, SlackStandIn
from emulators.slack.driver import Delivery
from tests.bot.approval_helpers import (
    ask,
    card_in,
    confirm,
    prompt_for,
    shown,
    stopped_campaign,
)
from tests.bot.feed_helpers import make_record
from tests.faults.drain_scenario import answered, shown_count
from tests.faults.processes import Deployment
from tests.faults.waiting import until
from tests.replicas.balancer import RoundRobin
from tests.replicas.conftest import start_replicas

HOLD_MS = 3000


async def test_a_rolling_restart_of_two_replicas_under_traffic_loses_nothing(
    deployment: Deployment, balancer: RoundRobin, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    deployment.extra_env["CALLOPS_DRAIN_SECONDS"] = "20"
    deployment.let_agent_ask()
    token = deployment.route_calls()
    start = await stopped_campaign(pbx)
    acked: list[Delivery] = []
    clicks: list[Delivery] = []
    not_acked = 0
    records: list[str] = []
    stopped = asyncio.Event()

    async def command() -> None:
        nonlocal not_acked
        delivery = await slack.driver.slash_command(
            user=SUPERVISOR, channel=CALL_CENTER, text="campaigns"
        )
        if delivery.in_time:
            acked.append(delivery)
        else:
            not_acked += 1

    async def page(listing_ts: str) -> None:
        """A click on a listing's Next (or Previous) button, answered through the
        click's ``response_url``."""
        message = next(m for m in slack.ephemerals(SUPERVISOR) if m["ts"] == listing_ts)
        forward = "callops_page_next" in shown(message)
        action = "callops_page_next" if forward else "callops_page_prev"
        try:
            delivery = await slack.driver.block_action(
                user=SUPERVISOR, action_id=action, ephemeral_ts=listing_ts
            )
        except LookupError:  # the listing changed page meanwhile: not sent
            return
        clicks.append(delivery)

    async def callback(http: httpx.AsyncClient, n: int) -> None:
        """The service's side: sent until taken."""
        record = make_record(to_number=f"0913{n:06d}")
        while True:
            with contextlib.suppress(httpx.HTTPError):
                answer = await http.post(f"{balancer.url}/callbacks/{token}", json=record)
                if answer.status_code == 200:
                    records.append(record["id"])
                    return
            await asyncio.sleep(0.5)

    async with start_replicas(deployment, balancer, count=2) as processes:
        await confirm(slack, await prompt_for(slack, f"start {start.campaign_uuid}"))
        card = await card_in(slack, APPROVALS, start.campaign_uuid)
        pbx.fail_next("PUT", f"/v3/campaign/{start.campaign_uuid}", 200, hold_ms=HOLD_MS)
        click = await slack.driver.block_action(
            user=SUPERVISOR, action_id="approval_approve", channel=APPROVALS, ts=card["ts"]
        )
        assert click.in_time
        running_on = balancer.replica_of(click.sent_headers["X-Slack-Signature"])
        await until(
            lambda: any(
                r["campaign_uuid"] == start.campaign_uuid and r["status"] == "start"
                for r in pbx.state("campaigns")
            ),
            within=15,
        )
        listings = [(await ask(slack, "campaigns"))["ts"] for _ in range(4)]
        sends: list[asyncio.Task[None]] = []
        async with httpx.AsyncClient(trust_env=False, timeout=10) as http:

            async def load() -> None:
                n = 0
                while not stopped.is_set():
                    sends.append(asyncio.create_task(command()))
                    if n % 3 == 0:
                        sends.append(asyncio.create_task(callback(http, n)))
                    if n % 3 == 1:
                        sends.append(asyncio.create_task(page(listings[n % len(listings)])))
                    n += 1
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stopped.wait(), 0.2)

            loading = asyncio.create_task(load())
            await asyncio.sleep(0.5)
            for index in (running_on, 1 - running_on):
                old = processes[index]
                os.kill(old.pid, signal.SIGTERM)
                assert await old.wait() == 0, old.log_text()[-3000:]
                assert "Traceback" not in old.log_text()
                new = await deployment.start(connect_slack=False)
                processes[index] = new
                balancer.replicas[index] = new.url
                balancer.down.discard(index)
                await asyncio.sleep(1.0)  # traffic on both before the next one goes
            stopped.set()
            await loading
            await asyncio.gather(*sends)

        settled = await slack.wait_for(
            lambda: (
                m
                if (m := slack.message(APPROVALS, card["ts"])) is not None
                and str(m.get("text", "")).endswith((": done", ": failed", ": unknown"))
                else None
            ),
            within=30,
        )
        acked_clicks = [d for d in clicks if d.in_time]
        owed = [*acked, *acked_clicks]
        await slack.wait_for(lambda: all(answered(slack, d) for d in owed) or None, within=30)
        await until(lambda: all(shown_count(slack, r) for r in records) or None, within=60)

    assert len(acked) > 20 and len(acked_clicks) > 5 and records
    assert len(acked_clicks) == len(clicks)
    assert not_acked == 0  # the balancer always found a replica listening
    assert settled["text"].endswith(": done"), shown(settled)
    assert [r for r in records if shown_count(slack, r) != 1] == []
    assert [s for s in balancer.served if s.status == 502] == []
