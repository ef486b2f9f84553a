"""SIGTERM of a real ``callops serve`` under load, then a restart: the scenario that
``tests/faults/test_drain.py`` checks and ``benchmarks/drain.py`` times.

The call-center service answers every call after ``latency_ms``.  An approved campaign
start is running (the service took it and holds its answer), people type
``/callops campaigns`` every ``every`` seconds and the service sends call records; then
the process gets SIGTERM.  Commands keep coming until it has exited (those sent after
its listener closed are not acknowledged: Slack tells the person it failed, so nothing
was promised).  Meanwhile ``/readyz`` is probed and the answers the stand-in receives
are counted, for the timeline: signal -> unready -> last answer -> exit.  Then a new
process starts on the same database (a restart) and the run waits for everything owed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from bot.feed_metadata import read_payload
from emulators.pbx.testing import EmulatorServer
from emulators.slack import APPROVALS, CALL_CENTER, SUPERVISOR, SlackStandIn
from emulators.slack.driver import Delivery
from tests.bot.approval_helpers import card_in, confirm, prompt_for, stopped_campaign
from tests.bot.feed_helpers import make_record
from tests.faults.processes import Deployment
from tests.faults.waiting import until

HOLD_MS = 3000
"""How long the service holds the approved start's answer (after it took effect)."""
PROBE_EVERY = 0.01


@dataclass
class DrainRun:
    """What one run saw; times are seconds after the signal."""

    acked: list[Delivery] = field(default_factory=list)
    not_acked: int = 0
    records: list[str] = field(default_factory=list)
    """Ids of the call records the receiver took (200) before the process stopped."""
    unready: float | None = None
    last_answer: float | None = None
    exited: float | None = None
    exit_code: int | None = None
    in_flight: int = 0
    """Acknowledged commands not yet answered at the signal."""
    unanswered_at_exit: int = -1
    """Acknowledged commands the stopped process left unanswered."""
    card: dict[str, Any] = field(default_factory=dict)
    """The approval card once settled (after the restart)."""
    first_log: str = ""


def answered(slack: SlackStandIn, delivery: Delivery) -> bool:
    """Whether the app answered this command through its ``response_url``."""
    url = delivery.response_url or ""
    return any(
        url.endswith("/" + entry.method) and entry.ok
        for entry in slack.journal(kind="response_url")
    )


def shown_count(slack: SlackStandIn, record_id: str) -> int:
    """The messages in the call-center channel that show ``record_id``."""
    count = 0
    for message in slack.messages(CALL_CENTER):
        payload = read_payload(message)
        if payload is not None and record_id in payload.shown():
            count += 1
    return count


async def run(
    deployment: Deployment,
    slack: SlackStandIn,
    pbx: EmulatorServer,
    *,
    latency_ms: int = 1500,
    every: float = 0.1,
    load_before: float = 1.0,
) -> DrainRun:
    """The scenario; the caller resets the emulator's latency afterwards."""
    result = DrainRun()
    deployment.let_agent_ask()
    token = deployment.route_calls()
    start = await stopped_campaign(pbx)
    first = await deployment.start()
    processes = [first]
    try:
        await confirm(slack, await prompt_for(slack, f"start {start.campaign_uuid}"))
        card = await card_in(slack, APPROVALS, start.campaign_uuid)
        pbx.set_faults(latency_ms=latency_ms)
        pbx.fail_next("PUT", f"/v3/campaign/{start.campaign_uuid}", 200, hold_ms=HOLD_MS)
        click = await slack.driver.block_action(
            user=SUPERVISOR, action_id="approval_approve", channel=APPROVALS, ts=card["ts"]
        )
        assert click.in_time
        # The start took effect at the service; its answer is held: the action runs.
        await until(
            lambda: any(
                r["campaign_uuid"] == start.campaign_uuid and r["status"] == "start"
                for r in pbx.state("campaigns")
            ),
            within=15,
        )
        stopped = asyncio.Event()
        sends: list[asyncio.Task[None]] = []

        async def command() -> None:
            delivery = await slack.driver.slash_command(
                user=SUPERVISOR, channel=CALL_CENTER, text="campaigns"
            )
            if delivery.in_time:
                result.acked.append(delivery)
            else:
                result.not_acked += 1

        async def callback(http: httpx.AsyncClient, n: int) -> None:
            record = make_record(to_number=f"0912{n:06d}")
            with contextlib.suppress(httpx.HTTPError):  # not taken: the service sends again
                answer = await http.post(f"{first.url}/callbacks/{token}", json=record)
                if answer.status_code == 200:
                    result.records.append(record["id"])

        async def load(http: httpx.AsyncClient) -> None:
            n = 0
            while not stopped.is_set():
                sends.append(asyncio.create_task(command()))
                if n % 3 == 0:
                    sends.append(asyncio.create_task(callback(http, n)))
                n += 1
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stopped.wait(), every)

        async with httpx.AsyncClient(trust_env=False, timeout=10) as http:
            loading = asyncio.create_task(load(http))
            await asyncio.sleep(load_before)
            os.kill(first.pid, signal.SIGTERM)
            signalled = time.monotonic()
            result.in_flight = sum(1 for d in result.acked if not answered(slack, d))
            exiting = asyncio.create_task(first.wait())
            answers = -1
            while not exiting.done():
                now = time.monotonic() - signalled
                if result.unready is None:
                    try:
                        probe = await http.get(first.url + "/readyz", timeout=1)
                        if probe.status_code != 200:
                            result.unready = now
                    except httpx.HTTPError:
                        result.unready = now  # no longer listening
                count = sum(1 for d in result.acked if answered(slack, d))
                if count != answers:
                    answers, result.last_answer = count, now
                await asyncio.sleep(PROBE_EVERY)
            result.exit_code = await exiting
            result.exited = time.monotonic() - signalled
            stopped.set()
            await loading
            await asyncio.gather(*sends)
            result.unanswered_at_exit = sum(1 for d in result.acked if not answered(slack, d))
        result.first_log = first.log_text()
        pbx.set_faults(latency_ms=0)

        processes.append(await deployment.start())
        # The approval's card settles; every acknowledged command is answered; every
        # record the receiver took is shown.
        result.card = await slack.wait_for(
            lambda: (
                m
                if (m := slack.message(APPROVALS, card["ts"])) is not None
                and str(m.get("text", "")).endswith((": done", ": failed", ": unknown"))
                else None
            ),
            within=60,
        )
        await slack.wait_for(
            lambda: all(answered(slack, d) for d in result.acked) or None, within=30
        )
        await until(lambda: all(shown_count(slack, r) for r in result.records) or None, within=60)
    finally:
        pbx.set_faults(latency_ms=0)
        for process in processes:
            await process.stop()
    return result
