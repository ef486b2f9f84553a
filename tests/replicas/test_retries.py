"""The same request from Slack arriving at two replicas acts once.

* An event Slack sends again (``X-Slack-Retry-Num``, signed afresh, the same ``event_id``)
  lands on another replica than the first copy: that replica answers 200 and does nothing,
  because the event ids seen are in the shared database, not in one process.
* A slash command's exact bytes sent again (the same signature: a captured request, or a
  proxy resending it) land on another replica: refused as a replay (401), since the
  signatures seen are in the shared database too; the user gets one answer.
"""

from __future__ import annotations

from emulators.pbx.testing import EmulatorServer
from emulators.slack import CALL_CENTER, SUPERVISOR, SlackStandIn
from tests.bot.approval_helpers import shown
from tests.faults.processes import AppProcess
from tests.faults.waiting import until
from tests.replicas.balancer import RoundRobin


async def test_an_event_retried_to_another_replica_is_handled_once(
    replicas: list[AppProcess], balancer: RoundRobin, slack: SlackStandIn
) -> None:
    first = await slack.driver.app_home_opened(SUPERVISOR)
    assert first.in_time
    await slack.wait_for(lambda: slack.journal("views.publish") or None, within=10)
    event_id = first.payload["event_id"]

    retry = await slack.driver.resend(first)  # X-Slack-Retry-Num: 1, a new signature
    assert retry.status == 200
    assert retry.sent_headers["X-Slack-Retry-Num"] == "1"
    one = balancer.replica_of(first.sent_headers["X-Slack-Signature"])
    other = balancer.replica_of(retry.sent_headers["X-Slack-Signature"])
    assert one != other
    ignored = f"already_handled (event {event_id})"
    await until(lambda: ignored in replicas[other].log_text(), within=10)

    # A later, different event is acted on: the first was dropped as a repeat, not lost.
    later = await slack.driver.app_home_opened(SUPERVISOR)
    assert later.in_time
    await slack.wait_for(lambda: len(slack.journal("views.publish")) == 2 or None, within=10)
    assert len(slack.journal("views.publish")) == 2


async def test_a_command_replayed_to_another_replica_is_refused(
    replicas: list[AppProcess], balancer: RoundRobin, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    command = await slack.driver.slash_command(
        user=SUPERVISOR, channel=CALL_CENTER, text="campaigns"
    )
    assert command.in_time
    answer = await slack.wait_for(
        lambda: next((m for m in slack.ephemerals(SUPERVISOR) if "Campaigns" in shown(m)), None)
    )
    listings = len(pbx.journal(method="GET", path="/v3/campaign"))
    assert listings >= 1

    again = await slack.driver.replay(command)
    assert again.status == 401
    assert again.json() == {"ok": False, "error": "replayed_request"}
    signature = command.sent_headers["X-Slack-Signature"]
    served = [s for s in balancer.served if s.signature == signature]
    assert [s.status for s in served] == [200, 401]
    assert served[0].replica != served[1].replica

    # The refusal happened at the door: no second answer, no second look at the service.
    replies = [m for m in slack.ephemerals(SUPERVISOR) if "Campaigns" in shown(m)]
    assert replies == [answer]
    assert len(pbx.journal(method="GET", path="/v3/campaign")) == listings
