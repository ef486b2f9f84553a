"""Token rotation raced by two processes: two replicas of the app on one real PostgreSQL
server, a Slack app with token rotation on, and the installation's bot token about to
expire. Both post as the bot at the same instant, outside any request; between them they
refresh the token exactly once, Slack never answers ``invalid_refresh_token``, and both
posts go out. Several rounds, each on a token aged to its last minute again."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from cryptography.fernet import Fernet
from slack_sdk import WebClient
from sqlalchemy import text

from emulators.slack import CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from storage import InstallationRecord, SecretBox, Storage
from tests.postgres import PostgresServer, postgres_server

__all__ = ["postgres_server"]  # the session's PostgreSQL server, a fixture here

pytestmark = pytest.mark.filterwarnings("ignore:BasicAuth is deprecated:DeprecationWarning")

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = 5
LEFT = 60
"""Seconds of its life the token has left at the start of each round."""


@pytest.fixture
def slack() -> Iterator[SlackStandIn]:
    """A Slack app with token rotation on, served from its own thread: the replicas are
    other processes."""
    with SlackStandIn(token_rotation=True) as stand_in:
        yield stand_in


@pytest.fixture
def database(postgres_server: PostgresServer) -> Iterator[str]:
    url = postgres_server.create_database()
    try:
        yield url
    finally:
        postgres_server.drop_database(url)


class Replica:
    """One app process (tests/replicas/rotation_helpers.py), driven line by line."""

    def __init__(self, env: dict[str, str]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.replicas.rotation_helpers"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.read() == "ready", self.failure()

    @property
    def stdin(self) -> IO[str]:
        assert self.process.stdin is not None
        return self.process.stdin

    def read(self) -> str:
        assert self.process.stdout is not None
        return self.process.stdout.readline().strip()

    def failure(self) -> str:
        self.process.kill()
        _, err = self.process.communicate(timeout=30)
        return err

    def stop(self) -> str:
        """Ends the process; returns what it logged."""
        if self.process.poll() is None:
            self.stdin.close()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
        assert self.process.stderr is not None
        return self.process.stderr.read()


def install(slack: SlackStandIn, url: str, box: SecretBox) -> InstallationRecord:
    """The supervisor installs the app: the tokens Slack grants, stored as Bolt's OAuth
    flow stores them."""
    granted: Any = WebClient(base_url=slack.api_url).oauth_v2_access(
        client_id=slack.client_id, client_secret=slack.client_secret, code=slack.approve_install()
    )
    record = InstallationRecord(
        team_id=TEAM,
        user_id=SUPERVISOR,
        bot_token=granted["access_token"],
        bot_user_id=granted["bot_user_id"],
        bot_scopes=granted["scope"],
        bot_refresh_token=granted["refresh_token"],
        bot_token_expires_at=int(time.time()) + int(granted["expires_in"]),
        installed_at=time.time(),
    )
    with Storage.open(url, box) as store:
        store.installations.save(record)
    return record


def age_token(slack: SlackStandIn, url: str, box: SecretBox) -> None:
    """The installed token has ``LEFT`` seconds to live: Slack's clock moves on to that
    moment, and the stored expiry (from ``expires_in``) says the same."""
    with Storage.open(url, box) as store:
        record = store.installations.find_bot(enterprise_id=None, team_id=TEAM)
        assert record is not None and record.bot_token_expires_at is not None
        slack.clock.advance(record.bot_token_expires_at - time.time() - LEFT)

        def work(conn: Any) -> None:
            conn.execute(
                text("UPDATE slack_installations SET bot_token_expires_at = :at"),
                {"at": int(time.time()) + LEFT},
            )

        store.db.write(work)


def refresh_errors(slack: SlackStandIn) -> list[str | None]:
    return [
        e.error
        for e in slack.journal("oauth.v2.access")
        if e.params.get("grant_type") == "refresh_token"
    ]


def test_two_replicas_refresh_an_expiring_token_once(slack: SlackStandIn, database: str) -> None:
    key = Fernet.generate_key().decode()
    box = SecretBox([key])
    installed = install(slack, database, box)
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "CALLOPS_DB": database,
        "CALLOPS_SECRET_KEY": key,
        "SLACK_CLIENT_ID": slack.client_id,
        "SLACK_CLIENT_SECRET": slack.client_secret,
        "SLACK_SIGNING_SECRET": slack.signing_secret,
        "SLACK_API_URL": slack.api_url,
    }
    env.pop("SLACK_BOT_TOKEN", None)
    replicas = [Replica(env), Replica(env)]
    logs: list[str] = []
    try:
        tokens = {installed.bot_token}
        for round_no in range(1, ROUNDS + 1):
            age_token(slack, database, box)
            line = f"post {TEAM} {CALL_CENTER} round-{round_no}\n"
            for replica in replicas:  # both at once
                replica.stdin.write(line)
            for replica in replicas:
                replica.stdin.flush()
            answers = [replica.read() for replica in replicas]
            assert all(a.startswith("ok ") for a in answers), answers
            assert refresh_errors(slack) == [None] * round_no, f"round {round_no}"
            with Storage.open(database, box) as store:
                record = store.installations.find_bot(enterprise_id=None, team_id=TEAM)
            assert record is not None and record.bot_token not in tokens
            tokens.add(record.bot_token)
            # The old token is dead at Slack a minute on; the new one carries on.
            slack.clock.advance(LEFT + 1)
            assert record.bot_token is not None
            assert WebClient(token=record.bot_token, base_url=slack.api_url).auth_test()["ok"]
    finally:
        logs = [replica.stop() for replica in replicas]
    posts = slack.journal("chat.postMessage")
    assert len(posts) == 2 * ROUNDS and all(p.ok for p in posts)
    assert [m["text"] for m in slack.messages(CALL_CENTER)].count("round-1") == 2
    # Each refresh was made by one replica or the other, and said so without a secret.
    said = sum(log.count(f"refreshed the bot token of team {TEAM}") for log in logs)
    assert said == ROUNDS, logs
    for log in logs:
        assert "invalid_refresh_token" not in log
        assert all(token not in log for token in tokens if token)
