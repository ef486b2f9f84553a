"""A running ``callops serve`` against replayed and malformed requests.

A signed command replayed byte for byte (within Slack's 5 minutes) is refused: one
``alert add`` replayed four times makes one alert, ``notify rotate`` replayed rotates
once.  Each malformed or unsigned request gets 400 or 401 and one log line; the
process's whole log holds no traceback.
"""

from __future__ import annotations

import asyncio
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


async def raw_exchange(url: str, request: bytes) -> bytes:
    """``request`` written as it is on a new connection, and the status line answered:
    what a client that does not speak HTTP as httpx does would get."""
    host, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    try:
        writer.write(request)
        await writer.drain()
        return await reader.readline()
    finally:
        writer.close()


async def test_an_encoded_body_is_refused_before_anything_reads_it(
    deployment: Deployment, slack: SlackStandIn
) -> None:
    """gzip, deflate or any other: Slack and the service send plain bodies, and a body is
    verified as sent. Garbage that claims to be compressed gets 415, not a 500.  ``br``
    (an encoding the HTTP parser itself cannot undo) is refused by the parser with 400,
    as one line."""
    with deployment.storage() as storage:
        token = storage.callback_tokens.get_or_create(TEAM)
    body = "payload=" + '{"type": "block_actions"}'
    app = await deployment.start()
    try:
        async with httpx.AsyncClient(trust_env=False) as http:
            for encoding in ("gzip", "deflate", "identity", "x-anything"):
                for url, headers in (
                    (app.url + "/slack/events", signed(slack, body)),
                    (f"{app.url}/callbacks/{token}", {"Content-Type": "application/json"}),
                ):
                    answer = await http.post(
                        url,
                        content=b"\x1f\x8bnot really compressed",
                        headers={**headers, "Content-Encoding": encoding},
                    )
                    assert answer.status_code == 415, (url, encoding, answer.text)
                    assert answer.json()["error"] == "content_encoding_not_accepted"
                    brotli = b"garbage"
                    status = await raw_exchange(
                        app.url,
                        f"POST {url.removeprefix(app.url)} HTTP/1.1\r\nHost: x\r\n"
                        f"Content-Encoding: br\r\nContent-Length: {len(brotli)}\r\n\r\n".encode()
                        + brotli,
                    )
                    assert b" 400 " in status, (url, status)
            healthy = await http.get(app.url + "/healthz")
            assert healthy.status_code == 200
    finally:
        await app.stop()
    log = app.log_text()
    assert "Traceback" not in log
    assert log.count("content_encoding_not_accepted") == 8
    assert log.count("refused a malformed HTTP request") == 8  # br, each time
    assert token not in log


async def test_what_the_http_parser_refuses_is_one_line_without_a_traceback(
    deployment: Deployment,
) -> None:
    app = await deployment.start()
    host = app.url.removeprefix("http://")
    huge = b"X-Big: " + b"a" * 9000 + b"\r\n"
    requests = [
        b"GET /healthz HTTP/1.1\r\nHost: " + host.encode() + b"\r\n" + huge + b"\r\n",
        b"POST /slack/events HTTP/1.1\r\nHost: x\r\n" + huge + b"\r\n",
        b"GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n",
        b"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
        b"POST /callbacks/x HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    ]
    try:
        for request in requests:
            status = await raw_exchange(app.url, request)
            assert status.startswith(b"HTTP/1.") and b" 400 " in status, (request[:40], status)
        async with httpx.AsyncClient(trust_env=False) as http:
            assert (await http.get(app.url + "/healthz")).status_code == 200
    finally:
        await app.stop()
    log = app.log_text()
    assert "Traceback" not in log
    assert log.count("refused a malformed HTTP request") == len(requests)
