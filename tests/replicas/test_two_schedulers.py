"""Two ``callops scheduler`` processes started by mistake on one database: each digest slot
still goes out once.

Both run APScheduler's tick at the start of every minute, so both look for due digests in
the same instant; the slot is claimed in the database (an insert that conflicts for the
second claimant), and only the claimant posts. Slack's answers to the posts are held for a
few seconds, so the winner is still posting while the other process has long made its own
attempt: a second copy, if claims did not hold across processes, would be in the channel
by the time the winner records its post.
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta

from emulators.slack import APPROVALS, CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from tests.bot.digest_helpers import digests_in
from tests.faults.processes import Deployment
from tests.faults.waiting import until

LEAD = timedelta(seconds=5)
"""The slot is the first whole minute at least this far ahead: both schedulers are up."""
_TICK = re.compile(r"scheduler tick \S+: (\d+) due, (\d+) posted, \d+ failed, (\d+) taken")


def next_slot(now: datetime) -> datetime:
    return (now + LEAD + timedelta(minutes=1)).replace(second=0, microsecond=0)


async def test_two_schedulers_post_each_digest_slot_once(
    deployment: Deployment, slack: SlackStandIn
) -> None:
    schedulers = await asyncio.gather(deployment.start_scheduler(), deployment.start_scheduler())
    try:
        slot = next_slot(datetime.now(UTC))
        channels = (CALL_CENTER, APPROVALS)
        with deployment.storage() as storage:
            digests = [
                storage.digests.add(
                    TEAM,
                    channel=channel,
                    schedule=f"{slot.minute} {slot.hour} * * *",
                    timezone="UTC",
                    created_by=SUPERVISOR,
                )
                for channel in channels
            ]
        hold = slack.hold("chat.postMessage", times=len(digests), seconds=3)
        await slack.wait_for(lambda: all(digests_in(slack, c) for c in channels) or None, within=90)

        def recorded() -> bool:
            with deployment.storage() as storage:
                runs = [storage.digests.runs(TEAM, d.id) for d in digests]
            return all(len(r) == 1 and r[0].outcome == "posted" for r in runs)

        await until(recorded, within=30)
        assert hold.held == len(digests)
        for channel in channels:
            assert len(digests_in(slack, channel)) == 1
        ticks = [
            [tuple(map(int, m.groups())) for m in _TICK.finditer(s.log_text())] for s in schedulers
        ]
        posted = sum(t[1] for per_process in ticks for t in per_process)
        assert posted == len(digests), ticks
        for scheduler in schedulers:
            assert scheduler.waiter is not None and scheduler.waiter.returncode is None
            assert "Traceback" not in scheduler.log_text()
    finally:
        await asyncio.gather(*(s.stop() for s in schedulers))
    with deployment.storage() as storage:
        for digest in digests:
            (run,) = storage.digests.runs(TEAM, digest.id)
            assert run.slot == slot.strftime("%Y-%m-%dT%H:%M:%SZ")
