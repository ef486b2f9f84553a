"""Connecting keeps secrets out and checks who answers.

Through the Slack stand-in: a base URL carrying a password is refused and leaves no
trace of it in the audit log, the logs or anything Slack saw; a server on loopback that
answers the token request but not the service's documented listing is not taken for
the call-center service, and nothing is saved."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
from aiohttp import web

from bot.runtime import Runtime
from emulators.pbx.testing import EmulatorServer
from emulators.slack import TEAM, SlackStandIn
from tests.bot.test_connect_e2e import everything_slack_saw, open_connect_form, unconnected

__all__ = ["unconnected"]

PASSWORD = "hunter2-Secret-Pw"
TOKEN = {
    "client_id": "6f1b2c3d-0000-4000-8000-000000000001",
    "domain_uuid": "6f1b2c3d-0000-4000-8000-000000000002",
    "expired_in": 3600,
    "refresh_token": "",
    "token": "a-token-from-anyone",
    "token_type": "Bearer",
    "user_id": "6f1b2c3d-0000-4000-8000-000000000003",
}
THEIR_WORDS = "Teapot-Internal-Hint"


@asynccontextmanager
async def impostor(listing: web.Response | None) -> AsyncIterator[str]:
    """A server on loopback that hands out a token for any key; its campaign listing
    answers ``listing`` (None: 404), which is not the service's paging envelope."""

    async def token(_request: web.Request) -> web.Response:
        return web.json_response(TOKEN)

    async def campaigns(_request: web.Request) -> web.Response:
        return listing if listing is not None else web.json_response({}, status=404)

    app = web.Application()
    app.router.add_post("/v3/auth/token", token)
    app.router.add_get("/v3/campaign", campaigns)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


async def test_a_url_with_a_password_leaves_no_trace(
    unconnected: Runtime,
    slack: SlackStandIn,
    pbx: EmulatorServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    view = await open_connect_form(slack)
    url = pbx.base_url.replace("http://", f"http://admin:{PASSWORD}@")
    await slack.driver.view_submission(view["id"], {"base_url": url, "api_key": pbx.api_key})
    errors = slack.view_errors(view["id"])
    assert "Leave the user name and password out" in errors["base_url"], errors
    assert unconnected.storage.workspaces.get(TEAM) is None
    audit = unconnected.storage.audit.entries(TEAM)
    assert [(e.action, e.outcome) for e in audit] == [("workspace.connect", "refused")]
    stored = json.dumps([e.as_export() for e in audit])
    assert PASSWORD not in stored and "***@127.0.0.1" in stored
    assert PASSWORD not in "\n".join(r.getMessage() for r in caplog.records)
    assert PASSWORD not in everything_slack_saw(slack)


@pytest.mark.parametrize(
    "listing",
    [
        pytest.param(None, id="no listing"),
        pytest.param(web.json_response({"status": "ok"}), id="other JSON"),
        pytest.param(web.Response(text="<html>hello</html>"), id="a web page"),
        pytest.param(
            web.json_response({"data": "x", "limit": "1", "offset": 0, "total": 0}),
            id="an envelope of the wrong types",
        ),
        pytest.param(
            web.json_response({"error": THEIR_WORDS}, status=418, reason=THEIR_WORDS),
            id="their own words",
        ),
    ],
)
async def test_a_server_that_only_hands_out_tokens_is_not_the_service(
    unconnected: Runtime,
    slack: SlackStandIn,
    pbx: EmulatorServer,
    listing: web.Response | None,
) -> None:
    async with impostor(listing) as url:
        view = await open_connect_form(slack)
        await slack.driver.view_submission(view["id"], {"base_url": url, "api_key": "any"})
        errors = slack.view_errors(view["id"])
    assert "does not look like the call-center service" in errors.get(
        "base_url", ""
    ) or "did not answer as the call-center service does" in errors.get("base_url", ""), errors
    assert THEIR_WORDS not in json.dumps(errors)
    assert unconnected.storage.workspaces.get(TEAM) is None
    # The service itself still connects: its listing is the documented envelope.
    await slack.driver.view_submission(
        view["id"], {"base_url": pbx.base_url, "api_key": pbx.api_key}
    )
    assert unconnected.storage.workspaces.api_key(TEAM) == pbx.api_key
