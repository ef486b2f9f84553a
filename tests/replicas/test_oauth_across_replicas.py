"""An OAuth install started on one replica and finished on another.

The browser asks the load balancer for ``/slack/install`` (one replica makes the state,
sets the state cookie and sends it to Slack's authorize page) and comes back from Slack to
``/slack/oauth_redirect`` (the next replica): that replica finds the state in the shared
database, redeems it once, exchanges the code and keeps the installation, so the
workspace is served by every replica with the token the install gave.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from emulators.slack import TEAM, SlackStandIn
from tests.bot.test_commands_e2e import ask, shown
from tests.bot.test_oauth_e2e import INSTALLER, install
from tests.faults.processes import Deployment
from tests.replicas.balancer import RoundRobin
from tests.replicas.conftest import start_replicas


async def test_install_started_on_one_replica_is_finished_on_another(
    deployment: Deployment, balancer: RoundRobin, slack: SlackStandIn
) -> None:
    deployment.extra_env.update(
        SLACK_BOT_TOKEN="",  # an installable app: tokens come from installs
        SLACK_CLIENT_ID=slack.client_id,
        SLACK_CLIENT_SECRET=slack.client_secret,
        SLACK_REDIRECT_URI=balancer.url + "/slack/oauth_redirect",
    )
    slack.add_user(TEAM, "ines", id=INSTALLER)
    slack.core.state.revoke_tokens(TEAM)  # only a token from this install can work
    async with start_replicas(deployment, balancer) as replicas:
        done = await install(balancer.url, TEAM, INSTALLER)
        assert done.status_code == 200, done.text
        assert urlsplit(str(done.url)).path == "/slack/oauth_redirect"
        (started,) = balancer.by_path("/slack/install")
        (finished,) = balancer.by_path("/slack/oauth_redirect")
        assert started.replica != finished.replica
        assert finished.status == 200

        with deployment.storage() as storage:
            record = storage.installations.find(enterprise_id=None, team_id=TEAM)
            assert record is not None and record.bot_token is not None
            assert record.bot_token != slack.bot_token()  # the install's own token
        # Every replica serves the workspace with it: three commands, three replicas.
        before = len(balancer.by_path("/slack/events"))
        for _ in replicas:
            reply = await ask(slack, "campaigns", user=INSTALLER)
            assert "Campaigns" in shown(reply)
        served = balancer.by_path("/slack/events")[before:]
        assert sorted(s.replica for s in served) == [0, 1, 2]
        assert [e for e in slack.journal("oauth.v2.access") if e.ok]
        for process in replicas:
            assert "Traceback" not in process.log_text()
