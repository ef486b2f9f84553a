"""A click and a form while another connection holds the database's write lock.

Slack never resends a click or a submission, so the request guard lets them through
with their replay claim pending (``bot/request_guard.py``): the click is acknowledged at
once and the person is told the database is busy and nothing was changed; the form's
answer (its acknowledgement) says so on its first field within Slack's 3 seconds and the
form stays open. Once the lock is gone the same click and the same form do their work.
The fault suite (``tests/faults/test_locked_database.py``) does the same for commands,
events and callbacks against a real process.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bot.runtime import Runtime
from bot.settings import Settings
from commands.dispatch import DATABASE_BUSY
from emulators.pbx.testing import EmulatorServer
from emulators.slack import CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from tests.bot.approval_helpers import second_app
from tests.bot.test_commands_e2e import ask, shown
from tests.bot.test_connect_e2e import open_connect_form, top_view, unconnected
from tests.faults.waiting import until

__all__ = ["unconnected"]  # the fixture of an app not yet connected

ACK_LIMIT = 1.8
"""Under one of the store's usual 2 s tries on the lock, which a click or a form waiting on
it would spend; generous for a shared machine (the patience used is 0.2 s and 0.5 s)."""


@contextmanager
def write_lock_held(settings: Settings) -> Iterator[None]:
    """Another connection to the app's file in ``BEGIN EXCLUSIVE`` (an admin's sqlite3)."""
    other = sqlite3.connect(Path(settings.callops_db), timeout=10, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        yield
    finally:
        other.execute("ROLLBACK")
        other.close()


async def test_a_click_under_a_held_lock_is_acked_at_once_and_told_the_database_is_busy(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer, settings: Settings
) -> None:
    question = await ask(slack, "disconnect")
    with write_lock_held(settings):
        click = await slack.driver.block_action(
            user=SUPERVISOR, action_id="workspace_disconnect", ephemeral_ts=question["ts"]
        )
        assert click.status == 200 and click.ack_seconds < ACK_LIMIT, click.ack_seconds
        told = await slack.wait_for_ephemeral(
            SUPERVISOR, lambda m: DATABASE_BUSY in shown(m), within=15
        )
    assert "Something went wrong" not in shown(told)
    assert app.storage.workspaces.api_key(TEAM) == pbx.api_key  # nothing was changed

    await slack.driver.block_action(
        user=SUPERVISOR, action_id="workspace_disconnect", ephemeral_ts=question["ts"]
    )
    await slack.wait_for_ephemeral(SUPERVISOR, lambda m: "disconnected this workspace" in shown(m))
    assert app.storage.workspaces.api_key(TEAM) is None


async def test_a_form_under_a_held_lock_stays_open_saying_the_database_is_busy(
    unconnected: Runtime, slack: SlackStandIn, pbx: EmulatorServer, settings: Settings
) -> None:
    view = await open_connect_form(slack)
    values = {"base_url": pbx.base_url, "api_key": pbx.api_key}
    with write_lock_held(settings):
        submitted = await slack.driver.view_submission(view["id"], values)
        assert submitted.status == 200 and submitted.ack_seconds < ACK_LIMIT
        errors = slack.view_errors(view["id"])
        assert DATABASE_BUSY in " ".join(errors.values()), errors
    assert top_view(slack, SUPERVISOR) is not None  # the form is still open
    assert unconnected.storage.workspaces.api_key(TEAM) is None  # nothing was changed

    again = await slack.driver.view_submission(view["id"], values)
    assert again.in_time
    assert slack.views(SUPERVISOR) == []  # the form closed
    assert unconnected.storage.workspaces.api_key(TEAM) == pbx.api_key


async def test_a_command_refused_as_busy_never_runs_later_on_another_replica_or_a_restart(
    app: Runtime, slack: SlackStandIn, settings: Settings
) -> None:
    """The person was told nothing was changed: the same signed request replayed once
    the lock is gone, to another replica that never saw it and to a fresh process (a
    restart: nothing in memory), is refused, and never runs."""
    text = "digest add <#C0001|call-center> daily 08:00"
    with write_lock_held(settings):
        command = await slack.driver.slash_command(user=SUPERVISOR, channel=CALL_CENTER, text=text)
        assert command.in_time
        await slack.wait_for_ephemeral(SUPERVISOR, lambda m: DATABASE_BUSY in shown(m), within=20)
    first = slack.driver.request_url
    assert first is not None
    replays = []
    for _ in range(2):  # a replica beside this one, then a restart
        async for _other in second_app(settings, slack):
            replays.append(await slack.driver.replay(command))
    slack.connect_app(first)
    replays.append(await slack.driver.replay(command))  # and the first process itself
    assert [(r.status, r.json()) for r in replays] == [
        (401, {"ok": False, "error": "replayed_request"})
    ] * 3
    assert app.storage.digests.list(TEAM) == []


async def test_a_form_refused_as_busy_is_refused_on_another_replica_once_the_lock_goes(
    unconnected: Runtime, slack: SlackStandIn, pbx: EmulatorServer, settings: Settings
) -> None:
    """A form answers within Slack's 3 seconds, before its claim window closes: its
    claim is written as soon as the lock goes, so the same signed submission replayed to
    another replica then is refused, and the form it said was not saved never is."""
    view = await open_connect_form(slack)
    values = {"base_url": pbx.base_url, "api_key": pbx.api_key}
    with write_lock_held(settings):
        submitted = await slack.driver.view_submission(view["id"], values)
        assert DATABASE_BUSY in " ".join(slack.view_errors(view["id"]).values())
    signature = submitted.sent_headers["X-Slack-Signature"]
    claiming = unconnected.held_claims.get(signature)
    assert isinstance(claiming, asyncio.Task)  # the claim the busy database left pending
    await until(lambda: claiming.done() or None, within=5)
    async for _other in second_app(settings, slack):
        replayed = await slack.driver.replay(submitted)
    assert (replayed.status, replayed.json()) == (401, {"ok": False, "error": "replayed_request"})
    assert unconnected.storage.workspaces.api_key(TEAM) is None
