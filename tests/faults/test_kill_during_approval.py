"""``kill -9`` of the app while it runs two approved actions, then a restart.

The emulator lets each service call take effect and holds its answer, so the process
dies knowing nothing of the outcome: a campaign start (the service can be read: the
campaign's status) and an autocall push (it cannot).  The restarted process must settle
both within a minute, without sending either again: the start as done (the service
shows it running), the push as "unknown: check before retrying"; both cards updated,
the requester told in each card's thread, the audit log saying what was found.
"""

from __future__ import annotations

import functools
import time
from typing import Any

from commands.kernel.phones import show_phone
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, APPROVALS, SUPERVISOR, TEAM, SlackStandIn
from tests.bot.approval_helpers import (
    campaigns,
    card_in,
    confirm,
    prompt_for,
    shown,
    stopped_campaign,
)
from tests.faults.processes import Deployment
from tests.faults.waiting import until

PHONE = "0912000111"
HOLD_MS = 8000


def told(slack: SlackStandIn, ts: str) -> dict[str, Any] | None:
    """The note to the requester in the card's thread."""
    notes = slack.thread(APPROVALS, ts)[1:]
    return next((n for n in notes if f"<@{AGENT}> your request" in shown(n)), None)


async def settled(slack: SlackStandIn, ts: str) -> dict[str, Any]:
    """The card once it shows a final state (a minute at most after the kill)."""

    def final() -> dict[str, Any] | None:
        card = slack.message(APPROVALS, ts)
        text = str((card or {}).get("text", ""))
        return card if text.endswith((": done", ": failed", ": unknown")) else None

    return await slack.wait_for(final, within=60)


async def test_kill_9_during_approved_executions_settles_both_after_a_restart(
    deployment: Deployment, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    deployment.let_agent_ask()
    start = await stopped_campaign(pbx)
    seeded = await campaigns(pbx)
    push = next(
        c
        for c in seeded
        if c.type == "autocall" and c.template_name == "Chào hỏi khách hàng" and c.status != "start"
    )
    first = await deployment.start()
    processes = [first]
    try:
        await confirm(slack, await prompt_for(slack, f"start {start.campaign_uuid}"))
        start_card = await card_in(slack, APPROVALS, start.campaign_uuid)
        await confirm(
            slack, await prompt_for(slack, f"autocall {push.campaign_uuid} {PHONE} name=An")
        )
        push_card = await card_in(slack, APPROVALS, show_phone(PHONE, mask=True))  # masked

        pbx.fail_next("PUT", f"/v3/campaign/{start.campaign_uuid}", 200, hold_ms=HOLD_MS)
        pbx.fail_next("POST", "/v3/autocall/import", 200, hold_ms=HOLD_MS)
        for card in (start_card, push_card):
            await slack.driver.block_action(
                user=SUPERVISOR, action_id="approval_approve", channel=APPROVALS, ts=card["ts"]
            )
        # Both calls took effect at the service; their answers are held back.
        await until(
            lambda: any(
                r["campaign_uuid"] == start.campaign_uuid and r["status"] == "start"
                for r in pbx.state("campaigns")
            ),
            within=10,
        )
        await until(lambda: any(r["phone_number"] == PHONE for r in pbx.state("leads")), within=10)
        first.kill9()
        await first.wait()
        killed = time.monotonic()

        processes.append(await deployment.start())
        done = await settled(slack, start_card["ts"])
        unknown = await settled(slack, push_card["ts"])
        settled_in = time.monotonic() - killed
        for card in (start_card, push_card):
            note = await slack.wait_for(functools.partial(told, slack, str(card["ts"])))
            assert "was interrupted" in shown(note)
    finally:
        for process in processes:
            await process.stop()

    assert settled_in < 60, f"settled {settled_in:.0f} s after the kill"
    assert done["text"].endswith(": done") and "the service shows it was done" in shown(done)
    assert unknown["text"].endswith(": unknown") and "check before retrying" in shown(unknown)
    puts = pbx.journal(method="PUT", path=f"/v3/campaign/{start.campaign_uuid}")
    assert [e["fault"] for e in puts] == ["held"]  # sent once, never again
    assert len(pbx.journal(method="POST", path="/v3/autocall/import")) == 1
    with deployment.storage() as storage:
        outcomes = {
            action: [e.outcome for e in storage.audit.entries(TEAM) if e.action == action]
            for action in ("campaign.start", "autocall.push")
        }
    assert outcomes == {
        "campaign.start": ["requested", "approved", "ok"],
        "autocall.push": ["requested", "approved", "unknown"],
    }
