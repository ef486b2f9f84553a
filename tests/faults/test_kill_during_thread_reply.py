"""``kill -9`` of the app while Slack's answer to a reply in a customer's thread is held.

A customer's later calls of the day are replies under their first card.  The reply is in
Slack but the process dies before it hears so; after a restart the row is taken over with
other records behind it, which go out together in a folded message.  The reply is not in
the channel's own history (replies are listed only in their thread), so the poster looks
in the customer's thread too and leaves the record out of the folded message: every
record shows once.  (Before: the record showed in its thread and again in the fold.)
"""

from __future__ import annotations

from collections import Counter

import httpx

from emulators.slack import CALL_CENTER, SlackStandIn
from tests.bot.feed_helpers import card_counts, make_record
from tests.faults.processes import Deployment
from tests.faults.waiting import until


async def test_kill_9_while_a_thread_reply_is_held_leaves_every_record_once(
    deployment: Deployment, slack: SlackStandIn
) -> None:
    token = deployment.route_calls()
    customer = "0912345678"
    first = make_record(to_number=customer)
    again = make_record(to_number=customer)  # the same customer: a reply in the thread
    behind = [make_record(to_number=f"09123402{k:02d}") for k in range(3)]
    process = await deployment.start()
    processes = [process]
    try:
        async with httpx.AsyncClient(trust_env=False) as http:
            url = f"{process.url}/callbacks/{token}"
            assert (await http.post(url, json=first)).status_code == 200
            await slack.wait_for(lambda: card_counts(slack, [CALL_CENTER]) or None, within=30)
            hold = slack.hold("chat.postMessage", times=1)
            assert (await http.post(url, json=again)).status_code == 200
            await slack.wait_for(lambda: hold.held == 1 or None, within=30)  # reply in Slack
            process.kill9()
            await process.wait()
            hold.release()
            assert card_counts(slack, [CALL_CENTER])[again["id"]] == 1

            processes.append(await deployment.start())
            url = f"{processes[-1].url}/callbacks/{token}"
            for record in behind:  # queued behind the row the dead process held
                assert (await http.post(url, json=record)).status_code == 200

        await until(deployment.feed_drained, within=90)
    finally:
        for started in processes:
            await started.stop()
    assert card_counts(slack, [CALL_CENTER]) == Counter(
        str(r["id"]) for r in [first, again, *behind]
    )
    assert slack.journal("conversations.replies")  # the poster looked in the thread
