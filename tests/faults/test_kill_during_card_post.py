"""``kill -9`` of the app while Slack's answer to a call card is held back.

The card is in the channel (Slack did the post) but the process dies before it hears
so, its queue row still leased.  After a restart the lease runs out, another poster
takes the row, finds the card's metadata in the channel's history and records it as
posted: the card appears once.  (Before: each such kill gave a duplicate card.)
"""

from __future__ import annotations

import httpx

from emulators.slack import APPROVALS, CALL_CENTER, SlackStandIn
from tests.bot.feed_helpers import make_record
from tests.faults.processes import Deployment
from tests.faults.waiting import until


def cards_of(slack: SlackStandIn, channel: str, record_id: str) -> list[dict[str, object]]:
    return [
        m
        for m in slack.messages(channel)
        if (m.get("metadata") or {}).get("event_payload", {}).get("record_id") == record_id
    ]


async def test_kill_9_while_slacks_answer_is_held_leaves_one_card_per_channel(
    deployment: Deployment, slack: SlackStandIn
) -> None:
    token = deployment.route_calls(CALL_CENTER, APPROVALS)
    record = make_record()
    first = await deployment.start()
    processes = [first]
    try:
        hold = slack.hold("chat.postMessage", times=2)
        async with httpx.AsyncClient(trust_env=False) as http:
            answer = await http.post(f"{first.url}/callbacks/{token}", json=record)
        assert answer.json() == {"ok": True, "queued": 2}
        await slack.wait_for(lambda: hold.held == 2 or None)  # both cards are in Slack
        first.kill9()
        await first.wait()
        hold.release()
        assert all(len(cards_of(slack, c, record["id"])) == 1 for c in (CALL_CENTER, APPROVALS))

        processes.append(await deployment.start())

        await until(deployment.feed_drained, within=60)
    finally:
        for process in processes:
            await process.stop()
    for channel in (CALL_CENTER, APPROVALS):
        assert len(cards_of(slack, channel, record["id"])) == 1
    assert len(slack.journal("chat.postMessage")) == 2  # the two held posts, none after
    assert slack.journal("conversations.history")  # the restarted poster looked first
