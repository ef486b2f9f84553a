"""``kill -9`` of the app while Slack's answer to an edit of a folded message is held back.

Slack made the edit (the folded message now lists the new records and its metadata names
them) but the process dies before it hears so: the rows stay leased and the database
still holds the fold as it was.  After a restart the lease runs out, the poster takes the
rows over, finds them in the channel's history and drops them instead of posting them
again, and starts a new message for anything after: every record shows once.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import httpx

from bot.feed_metadata import FOLD_KIND, read_payload
from emulators.slack import CALL_CENTER, SlackStandIn
from tests.bot.feed_helpers import card_counts, make_record
from tests.faults.processes import Deployment
from tests.faults.waiting import until


def shown(slack: SlackStandIn) -> Counter[str]:
    """How often each record shows in the channel (cards, their threads, folded rows)."""
    return card_counts(slack, [CALL_CENTER])


def folds(slack: SlackStandIn) -> list[dict[str, Any]]:
    return [
        m
        for m in slack.messages(CALL_CENTER)
        if (payload := read_payload(m)) is not None and payload.kind == FOLD_KIND
    ]


async def test_kill_9_while_a_folded_message_is_edited_leaves_every_record_once(
    deployment: Deployment, slack: SlackStandIn
) -> None:
    slack.channel_pace(True, updates=True)
    token = deployment.route_calls()
    first = [make_record(to_number=f"09123400{k:02d}") for k in range(6)]
    second = [make_record(to_number=f"09123401{k:02d}") for k in range(4)]
    process = await deployment.start()
    processes = [process]
    try:
        async with httpx.AsyncClient(trust_env=False) as http:
            url = f"{process.url}/callbacks/{token}"
            for record in first:
                assert (await http.post(url, json=record)).status_code == 200
            # faster than one a second: a folded message takes them
            await slack.wait_for(lambda: folds(slack) or None, within=30)
            await slack.wait_for(lambda: len(shown(slack)) == len(first) or None, within=30)
            hold = slack.hold("chat.update", times=1)
            for record in second:
                assert (await http.post(url, json=record)).status_code == 200
        await slack.wait_for(lambda: hold.held == 1 or None, within=30)  # the edit is in Slack
        process.kill9()
        await process.wait()
        hold.release()

        processes.append(await deployment.start())

        await until(deployment.feed_drained, within=90)
    finally:
        for started in processes:
            await started.stop()
    assert shown(slack) == Counter(str(r["id"]) for r in first + second)  # each once
    assert slack.journal("conversations.history")  # the restarted poster looked first
