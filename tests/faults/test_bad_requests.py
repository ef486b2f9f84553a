"""A running ``callops serve`` against replayed and malformed requests.

A signed command replayed byte for byte (within Slack's 5 minutes) is refused: one
``alert add`` replayed four times makes one alert, ``notify rotate`` replayed rotates
once.  Each malformed or unsigned request gets 400 or 401 and one log line; the
process's whole log holds no traceback.
"""

from __future__ import annotations

import time

import httpx

from emulators.slack import CALL_CENTER, SUPERVISOR, TEAM, SlackStandIn
from emulators.slack.signing import signed_headers
from tests.faults.processes import Deployment
from tests.faults.waiting import until

FORM = "application/x-www-form-urlencoded"


async def test_a_replayed_signed_command_is_refused(
    deployment: Deployment, slack: SlackStandIn
) -> None:
    app = await deployment.start()

    def alerts() -> int:
        with deployment.storage() as storage:
            return len(storage.alerts.list(TEAM))

    def requests() -> int:
        with deployment.storage() as storage:
            return len(storage.approvals.list(TEAM))

    try:
        add = await slack.driver.slash_command(
            user=SUPERVISOR,
            channel=CALL_CENTER,
            text="alert add <#C0001|call-center> dropped_rate > 5",
        )
        await until(alerts, within=10)
        replays = [await slack.driver.replay(add) for _ in range(4)]
        assert [r.status for r in replays] == [401] * 4
        assert {r.json()["error"] for r in replays} == {"replayed_request"}

        rotate = await slack.driver.slash_command(
            user=SUPERVISOR, channel=CALL_CENTER, text="notify rotate"
        )
        await until(lambda: requests() == 1 or None, within=10)
        again = await slack.driver.replay(rotate)
        assert again.status == 401
        # The refused replay ran nothing; run by it, the command would ask again.
        await slack.driver.slash_command(user=SUPERVISOR, channel=CALL_CENTER, text="help")
        await slack.wait_for(lambda: len(slack.ephemerals(SUPERVISOR)) >= 3 or None)
    finally:
        await app.stop()
    assert alerts() == 1
    assert requests() == 1


def signed(slack: SlackStandIn, body: str, content_type: str = FORM) -> dict[str, str]:
    return {"Content-Type": content_type, **signed_headers(slack.signing_secret, body)}


async def test_malformed_requests_get_4xx_and_leave_no_traceback(
    deployment: Deployment, slack: SlackStandIn
) -> None:
    with deployment.storage() as storage:
        token = storage.callback_tokens.get_or_create(TEAM)
    now = str(int(time.time()))
    slack_cases: list[tuple[dict[str, str], str, int]] = [
        ({"Content-Type": FORM}, "payload=notjson", 401),
        ({"X-Slack-Request-Timestamp": "abc", "X-Slack-Signature": "v0=1"}, "payload={}", 401),
        ({"X-Slack-Request-Timestamp": now, "Content-Type": "application/json"}, "[1]", 401),
        (
            {"X-Slack-Request-Timestamp": now, "X-Slack-Signature": "v0=" + "0" * 64},
            "[" * 30_000,
            401,
        ),
        (signed(slack, "payload=notjson"), "payload=notjson", 400),
        (signed(slack, "[1, 2]", "application/json"), "[1, 2]", 400),
        (signed(slack, "payload=" + "[" * 30_000), "payload=" + "[" * 30_000, 400),
        (signed(slack, '{"type": ' * 50), '{"type": ' * 50, 400),
    ]
    callback_cases: list[tuple[bytes, int]] = [
        (b"[" * 30_000, 400),
        (b"not json", 400),
        (b"[1, 2]", 400),
        (b'{"id": "x", "additional": ' + b'{"a":' * 100 + b"1" + b"}" * 101, 400),
    ]
    app = await deployment.start()
    try:
        async with httpx.AsyncClient(trust_env=False) as http:
            for headers, body, status in slack_cases:
                answer = await http.post(app.url + "/slack/events", content=body, headers=headers)
                assert answer.status_code == status, (body[:30], answer.text)
            for raw, status in callback_cases:
                answer = await http.post(
                    f"{app.url}/callbacks/{token}",
                    content=raw,
                    headers={"Content-Type": "application/json"},
                )
                assert answer.status_code == status, (raw[:30], answer.text)
    finally:
        await app.stop()
    log = app.log_text()
    assert "Traceback" not in log
    assert log.count("refused POST /slack/events") == len(slack_cases)
    assert log.count("team T0001: callback ") == len(callback_cases)
