"""SIGTERM of a real ``callops serve`` under load, then a restart (``drain_scenario``).

Before, the process died at once: commands acknowledged in its last seconds were never
answered, and the approved action running then was left "cannot tell whether it was
done".  Now it drains: every acknowledged command is answered through its
``response_url``, the action finishes and its card says so, every call record the
receiver took is shown once, and the process exits by itself, cleanly.
"""

from __future__ import annotations

from emulators.pbx.testing import EmulatorServer
from emulators.slack import SlackStandIn
from tests.bot.approval_helpers import shown
from tests.faults import drain_scenario
from tests.faults.drain_scenario import shown_count
from tests.faults.processes import Deployment

DRAIN_SECONDS = "20"


async def test_sigterm_under_load_answers_every_acked_command_and_settles_the_approval(
    deployment: Deployment, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    deployment.extra_env["CALLOPS_DRAIN_SECONDS"] = DRAIN_SECONDS
    run = await drain_scenario.run(deployment, slack, pbx, latency_ms=1500)

    assert run.exit_code == 0, run.first_log[-3000:]
    assert run.in_flight > 0, "no command was in flight at the signal"
    assert run.acked and run.records
    # Answered by the draining process itself, not by the restart: the answers owed were
    # all in before it exited (a command sent once it had stopped listening was not
    # acknowledged, and Slack told its sender so).
    assert run.unanswered_at_exit == 0
    assert run.card["text"].endswith(": done"), shown(run.card)
    assert all(shown_count(slack, record) == 1 for record in run.records)
    assert "Traceback" not in run.first_log
    assert "drain: SIGTERM received" in run.first_log
    assert "cancelling" not in run.first_log  # nothing was cut off
