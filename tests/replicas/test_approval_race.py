"""Two admins click Approve on the same card at the same moment, and the load balancer hands
the two clicks to two different replicas: the action reaches the service once."""

from __future__ import annotations

import asyncio

from emulators.pbx.testing import EmulatorServer
from emulators.slack import APPROVALS, MANAGER, SUPERVISOR, TEAM, SlackStandIn
from storage import Role
from tests.bot.approval_helpers import (
    campaign,
    card_in,
    card_now,
    confirm,
    prompt_for,
    puts,
    settled,
    shown,
    stopped_campaign,
)
from tests.faults.processes import AppProcess, Deployment
from tests.replicas.balancer import RoundRobin


async def test_two_approvals_on_two_replicas_start_the_campaign_once(
    deployment: Deployment,
    replicas: list[AppProcess],
    balancer: RoundRobin,
    slack: SlackStandIn,
    pbx: EmulatorServer,
) -> None:
    deployment.let_agent_ask()
    with deployment.storage() as storage:
        storage.roles.set_role(TEAM, MANAGER, Role.ADMIN)
    stopped = await stopped_campaign(pbx)
    await confirm(slack, await prompt_for(slack, f"start {stopped.campaign_uuid}"))
    card = await card_in(slack, APPROVALS, stopped.campaign_uuid)

    clicks = await asyncio.gather(
        *(
            slack.driver.block_action(
                user=admin, action_id="approval_approve", channel=APPROVALS, ts=card["ts"]
            )
            for admin in (SUPERVISOR, MANAGER)
        )
    )
    assert all(click.in_time for click in clicks)
    served_by = {balancer.replica_of(click.sent_headers["X-Slack-Signature"]) for click in clicks}
    assert len(served_by) == 2, "both clicks reached the same replica"

    final = await card_now(slack, APPROVALS, card["ts"], settled)
    assert final["text"].endswith(": done"), shown(final)
    assert len(puts(pbx, f"/v3/campaign/{stopped.campaign_uuid}")) == 1
    assert (await campaign(pbx, stopped.campaign_uuid)).status == "start"
    with deployment.storage() as storage:
        outcomes = [e.outcome for e in storage.audit.entries(TEAM) if e.action == "campaign.start"]
    assert outcomes == ["requested", "approved", "ok"]
    for process in replicas:
        assert "Traceback" not in process.log_text()
