"""``POST /slack/events`` refuses what Slack never sends, with a 4xx and one log line: no
500, no traceback, nothing run.  A signed request replayed byte for byte is refused by
every process of the app; Slack's own retries (signed afresh) still work."""

from __future__ import annotations

import json
import logging
import time

import httpx
import pytest
from cryptography.fernet import Fernet
from sqlalchemy import text

from bot.request_guard import CLAIM_WINDOW
from bot.runtime import Runtime
from bot.settings import Settings
from emulators.pbx.testing import EmulatorServer
from emulators.slack import CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from emulators.slack.signing import signed_headers
from storage import SecretBox
from tests.bot.approval_helpers import second_app

FORM = "application/x-www-form-urlencoded"


def events_url(slack: SlackStandIn) -> str:
    assert slack.driver.request_url is not None
    return slack.driver.request_url


def signed(slack: SlackStandIn, body: str, content_type: str = FORM) -> dict[str, str]:
    return {"Content-Type": content_type, **signed_headers(slack.signing_secret, body)}


UNSIGNED = [
    pytest.param({}, "payload=%7B%7D", "missing_or_malformed_timestamp", id="no headers"),
    pytest.param(
        {"X-Slack-Request-Timestamp": "abc", "X-Slack-Signature": "v0=" + "0" * 64},
        "payload=notjson",
        "missing_or_malformed_timestamp",
        id="timestamp abc",
    ),
    pytest.param(
        {"X-Slack-Request-Timestamp": str(int(time.time())), "X-Slack-Signature": "nope"},
        "[1, 2]",
        "missing_or_malformed_signature",
        id="malformed signature",
    ),
    pytest.param(
        {"X-Slack-Request-Timestamp": str(int(time.time())), "X-Slack-Signature": "v0=" + "a" * 64},
        "[" * 30_000,
        "invalid_signature",
        id="wrong signature",
    ),
    pytest.param(
        {"X-Slack-Request-Timestamp": str(int(time.time()) - 600), "X-Slack-Signature": "v0=1"},
        "payload=%7B%7D",
        "stale_timestamp",
        id="ten minutes old",
    ),
]


@pytest.mark.parametrize(("headers", "body", "error"), UNSIGNED)
async def test_unsigned_or_stale_requests_get_401_and_one_line(
    app: Runtime,
    slack: SlackStandIn,
    caplog: pytest.LogCaptureFixture,
    headers: dict[str, str],
    body: str,
    error: str,
) -> None:
    caplog.set_level(logging.INFO)
    async with httpx.AsyncClient() as http:
        answer = await http.post(events_url(slack), content=body, headers=headers)
    assert answer.status_code == 401 and answer.json()["error"] == error
    assert [r for r in caplog.records if r.exc_info] == []
    assert [r.getMessage() for r in caplog.records if "refused POST" in r.getMessage()] == [
        f"refused POST /slack/events from 127.0.0.1: {error}"
    ]


MALFORMED = [
    pytest.param("payload=notjson", FORM, "malformed_json: not JSON", id="payload=notjson"),
    pytest.param("[1, 2, 3]", "application/json", "payload_not_a_json_object", id="json list"),
    pytest.param(
        "payload=" + "%5B" * 30_000,
        FORM,
        "malformed_json: nested deeper than 32 levels",
        id="30000 [",
    ),
    pytest.param(
        "&".join(f"f{i}=1" for i in range(500)), FORM, "too_many_form_fields", id="fields"
    ),
    pytest.param('payload="just a string"', FORM, "payload_not_a_json_object", id="payload str"),
    pytest.param(
        "payload=" + json.dumps({"type": "block_actions", "n": [0] * 20_001}),
        FORM,
        "malformed_json: more than 20000 values",
        id="20001 values",
    ),
    pytest.param(
        "payload="
        + json.dumps(
            {"type": "block_actions", "user": {"id": "U1"}, "team": {"id": "T1"}, "actions": "x"}
        ),
        FORM,
        "malformed_payload: actions:list_type",
        id="actions not a list",
    ),
    pytest.param(
        json.dumps(
            {
                "type": "event_callback",
                "team_id": "T1",
                "event": {"type": "x", "message": {"user": 5}},
            }
        ),
        "application/json",
        "malformed_payload: event.message.user:string_type",
        id="an id Bolt reads in turn",
    ),
    pytest.param(
        json.dumps({"type": "x", "authorizations": [{"authorizations": [None]}]}),
        "application/json",
        "malformed_payload: authorizations[].authorizations[]:model_type",
        id="authorizations Bolt reads in turn",
    ),
    pytest.param(
        json.dumps({"type": "app_rate_limited", "view": None}),
        "application/json",
        "malformed_payload: view:object_type",  # Bolt reads what "view" in body holds
        id="view null",
    ),
    pytest.param(
        json.dumps({"type": {}}),
        "application/json",
        "malformed_payload: type:string_type",
        id="type",
    ),
    pytest.param(
        "payload="
        + json.dumps(
            {
                "type": "view_submission",
                "user": {"id": "U1"},
                "team": {"id": "T1"},
                "view": {"type": "modal", "callback_id": "c", "state": {"values": {"secret": 1}}},
            }
        ),
        FORM,
        "malformed_payload: view.state.values:dict_type",  # the sender's block id not in it
        id="state values",
    ),
    pytest.param(
        "command=%2Fcallops&team_id=T0001&user_id=U0001&text=help",
        FORM,
        "slash_command_without_team_user_or_response_url",
        id="command without response_url",
    ),
]


@pytest.mark.parametrize(("body", "content_type", "error"), MALFORMED)
async def test_signed_but_malformed_requests_get_400_and_no_traceback(
    app: Runtime,
    slack: SlackStandIn,
    caplog: pytest.LogCaptureFixture,
    body: str,
    content_type: str,
    error: str,
) -> None:
    caplog.set_level(logging.INFO)
    async with httpx.AsyncClient() as http:
        answer = await http.post(
            events_url(slack), content=body, headers=signed(slack, body, content_type)
        )
    assert answer.status_code == 400 and answer.json()["error"] == error
    assert [r for r in caplog.records if r.exc_info] == []


async def test_a_replayed_command_is_refused_and_runs_once_in_any_process(
    app: Runtime, slack: SlackStandIn, settings: Settings, pbx: EmulatorServer
) -> None:
    command = await slack.driver.slash_command(
        user=SUPERVISOR, channel=CALL_CENTER, text="digest add #call-center daily 08:00"
    )
    assert command.in_time
    await slack.wait_for(lambda: app.storage.digests.list(TEAM) or None)
    again = await slack.driver.replay(command)
    assert (again.status, again.json()) == (401, {"ok": False, "error": "replayed_request"})
    async for _ in second_app(settings, slack):  # another process on the same database
        elsewhere = await slack.driver.replay(command)
        assert elsewhere.status == 401
    assert len(app.storage.digests.list(TEAM)) == 1


async def test_who_asks_is_read_with_the_claim_and_not_kept_after_the_answer(
    app: Runtime, slack: SlackStandIn
) -> None:
    # The door reads the role and the workspace's key with its replay claim, for the
    # request's context alone: once answered, no decrypted key is left held in the process.
    before = len(slack.ephemerals(SUPERVISOR))
    command = await slack.driver.slash_command(user=SUPERVISOR, channel=CALL_CENTER, text="help")
    assert command.in_time and command.status == 200
    await slack.wait_for(lambda: len(slack.ephemerals(SUPERVISOR)) > before or None)
    assert app.held_claims == {}


async def test_a_key_that_no_longer_opens_still_gets_the_command_claimed_and_answered(
    app: Runtime, slack: SlackStandIn
) -> None:
    # The workspace's API key was sealed under a key this process no longer has (taken
    # out of CALLOPS_SECRET_KEY before `callops secrets rotate`).
    foreign = SecretBox([Fernet.generate_key().decode()]).encrypt("an-old-api-key")
    app.storage.db.write(
        lambda conn: conn.execute(
            text("UPDATE workspaces SET api_key_enc = :sealed WHERE team_id = :team"),
            {"sealed": foreign, "team": TEAM},
        )
    )
    before = len(slack.ephemerals(SUPERVISOR))
    command = await slack.driver.slash_command(user=SUPERVISOR, channel=CALL_CENTER, text="help")
    assert command.in_time and command.status == 200  # acknowledged, not refused
    reply = await slack.wait_for(
        lambda: (
            slack.ephemerals(SUPERVISOR)[before]
            if len(slack.ephemerals(SUPERVISOR)) > before
            else None
        )
    )
    assert "Something went wrong" in str(reply.get("text", "")) + str(reply.get("blocks", ""))
    again = await slack.driver.replay(command)  # claimed once all the same
    assert again.status == 401


async def test_the_headers_are_checked_before_the_body_is_read_and_the_body_is_bounded(
    app: Runtime, slack: SlackStandIn, caplog: pytest.LogCaptureFixture
) -> None:
    """Unsigned, a body far over the limit is refused on its headers (401, nothing read);
    signed, it is read no further than aiohttp's ``client_max_size`` (1 MiB): 413."""
    caplog.set_level(logging.INFO)
    body = "payload=" + "a" * (2 * 1024 * 1024)
    async with httpx.AsyncClient() as http:
        unsigned = await http.post(events_url(slack), content=body, headers={"Content-Type": FORM})
        too_big = await http.post(events_url(slack), content=body, headers=signed(slack, body))
    assert (unsigned.status_code, unsigned.json()["error"]) == (
        401,
        "missing_or_malformed_timestamp",
    )
    assert too_big.status_code == 413
    assert [r for r in caplog.records if r.exc_info] == []


async def test_a_command_signed_long_before_it_arrives_is_refused_and_runs_nothing(
    app: Runtime, slack: SlackStandIn
) -> None:
    """Slack sends a command within a second or so of signing it and never again: one
    signed more than ``CLAIM_WINDOW`` seconds ago is a replay, refused at the door even
    though no process has seen its signature (one refused as busy may be in no database)."""
    late = await slack.driver.slash_command(
        user=SUPERVISOR,
        channel=CALL_CENTER,
        text="digest add #call-center daily 08:00",
        timestamp_skew=CLAIM_WINDOW + 20,
    )
    assert (late.status, late.json()) == (401, {"ok": False, "error": "replayed_request"})
    fresh = await slack.driver.slash_command(user=SUPERVISOR, channel=CALL_CENTER, text="help")
    assert fresh.status == 200
    await slack.wait_for(lambda: slack.ephemerals(SUPERVISOR) or None)
    assert app.storage.digests.list(TEAM) == []


async def test_a_database_that_fails_is_503_with_retry_after_and_one_line(
    app: Runtime, slack: SlackStandIn, caplog: pytest.LogCaptureFixture
) -> None:
    """Not busy but failing (here: its table of seen requests is gone): nothing can say
    whether the request is a replay, so it is refused for Slack to send again."""
    caplog.set_level(logging.INFO)

    def rename(old: str, new: str) -> None:
        app.storage.db.write(lambda conn: conn.execute(text(f"ALTER TABLE {old} RENAME TO {new}")))

    rename("processed_events", "processed_events_away")
    try:
        command = await slack.driver.slash_command(
            user=SUPERVISOR, channel=CALL_CENTER, text="help"
        )
    finally:
        rename("processed_events_away", "processed_events")
    assert (command.status, command.headers.get("Retry-After")) == (503, "5")
    assert command.json() == {"ok": False, "error": "try_again_later"}
    # The door logs one line and no traceback; a background job that touches the missing
    # table in that moment (the privacy worker, the call feed) is not the door's.
    door = [r for r in caplog.records if r.name == "bot.request_guard"]
    assert [r.getMessage().split(": ", 1)[1] for r in door] == [
        "try_again_later (OperationalError)"
    ]
    assert [r for r in door if r.exc_info] == []
