"""Installing the app with OAuth, as a browser does it: ``/slack/install`` -> Slack's authorize
page (the stand-in's, which approves at once) -> ``/slack/oauth_redirect`` with a code.  The
bot token is kept encrypted, the installer becomes admin, and the team's commands are then
served with the token it was given."""

from __future__ import annotations

import re
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx
import pytest
from cryptography.fernet import Fernet
from pydantic import SecretStr

from bot.app import BOT_SCOPES
from bot.runtime import Runtime
from bot.server import serving
from bot.settings import Settings
from emulators.pbx.testing import EmulatorServer
from emulators.slack import AGENT, CALL_CENTER, TEAM, SlackStandIn
from storage import Role
from tests.bot.test_commands_e2e import ask, shown
from tests.bot.test_connect_e2e import top_view

INSTALLER = "U0100"


def free_port() -> int:
    """A port for the app to listen on, known before it starts: the redirect URL names it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def installable(slack: SlackStandIn, tmp_path: Path, base: str) -> Settings:
    """The settings of an installable (OAuth) app served at ``base``: client id and
    secret, no bot token."""
    return Settings(
        _env_file=None,
        slack_client_id=slack.client_id,
        slack_client_secret=SecretStr(slack.client_secret),
        slack_redirect_uri=base + "/slack/oauth_redirect",
        slack_signing_secret=slack.signing_secret,
        slack_api_url=slack.api_url,
        callops_db=str(tmp_path / "callops.db"),
        callops_secret_key=Fernet.generate_key().decode(),
    )


@pytest.fixture
async def distributed(
    tmp_path: Path, slack: SlackStandIn, pbx: EmulatorServer
) -> AsyncIterator[tuple[Runtime, str]]:
    """The app as an installable (OAuth) app: client id and secret, no bot token."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    rt = Runtime.open(installable(slack, tmp_path, base))
    rt.storage.workspaces.connect(TEAM, pbx.base_url, pbx.api_key)
    async with serving(rt, port=port) as url:
        assert url == base
        slack.connect_app(url + "/slack/events")
        yield rt, url
    rt.storage.close()
    assert slack.invalid_sends() == [], "the app sent Block Kit that Slack would reject"


def raw_database(db_path: str) -> bytes:
    """The database as it lies on disk: the file and its write-ahead log."""
    files = (Path(db_path), Path(db_path + "-wal"))
    return b"".join(f.read_bytes() for f in files if f.exists())


async def install(app_url: str, team: str, user: str) -> httpx.Response:
    """A browser on this machine installing the app: it follows every redirect and sends
    the app's state cookie back to the app only (browsers honour ``Secure`` cookies on
    loopback; httpx would not, so the cookie is carried by hand)."""
    async with httpx.AsyncClient() as browser:
        landing = await browser.get(app_url + "/slack/install", follow_redirects=True)
        assert landing.status_code == 200
        cookie = landing.headers["set-cookie"].split(";", 1)[0]
        if "text/html" in landing.headers.get("content-type", "") and "<a" in landing.text:
            # Bolt's install page: the "Add to Slack" button links to the authorize page.
            href = re.search(r'href="([^"]*oauth/v2/authorize[^"]*)"', landing.text)
            assert href is not None, landing.text
            authorize = urljoin(app_url, href.group(1).replace("&amp;", "&"))
        else:
            authorize = str(landing.url)
        query = parse_qs(urlsplit(authorize).query)
        assert query["scope"][0].split(",") == list(BOT_SCOPES)
        location = f"{authorize}&team={team}&user={user}"
        for _ in range(5):
            to_app = location.startswith(app_url)
            response = await browser.get(location, headers={"Cookie": cookie} if to_app else {})
            if not response.is_redirect:
                return response
            location = urljoin(location, response.headers["location"])
        raise AssertionError(f"too many redirects, last {location}")


async def test_install_saves_the_encrypted_token_and_makes_the_installer_admin(
    distributed: tuple[Runtime, str], slack: SlackStandIn
) -> None:
    rt, url = distributed
    slack.add_user(TEAM, "ines", id=INSTALLER)  # not a Slack workspace admin
    slack.core.state.revoke_tokens(TEAM)  # only a token from this install can work
    done = await install(url, TEAM, INSTALLER)
    assert done.status_code == 200, done.text
    assert urlsplit(str(done.url)).path == "/slack/oauth_redirect"

    record = rt.storage.installations.find(enterprise_id=None, team_id=TEAM)
    assert record is not None and record.bot_token is not None
    token = record.bot_token
    assert token.startswith("xoxb-") and token != slack.bot_token()  # issued by the install
    assert token.encode() not in raw_database(rt.settings.callops_db)
    assert rt.storage.roles.stored_role(TEAM, INSTALLER) is Role.ADMIN

    # The installer's commands are served with the installed token.
    reply = await ask(slack, "campaigns", user=INSTALLER)
    assert "Campaigns" in shown(reply)
    # ``connect`` is admin-only: the installer gets the form, a plain member does not.
    await slack.driver.slash_command(user=INSTALLER, channel=CALL_CENTER, text="connect")
    form = await slack.wait_for(lambda: top_view(slack, INSTALLER))
    assert form["callback_id"] == "connect_workspace"
    opened = slack.journal("views.open")
    assert opened and all(e.ok for e in opened), [e.error for e in opened]
    viewer = await ask(slack, "connect", user=AGENT)
    assert "needs the admin role" in shown(viewer)


async def test_a_team_that_never_installed_is_not_served(
    distributed: tuple[Runtime, str], slack: SlackStandIn
) -> None:
    delivery = await slack.driver.slash_command(user=AGENT, channel=CALL_CENTER, text="campaigns")
    assert delivery.acked
    assert [e for e in slack.journal(kind="api") if e.ok] == []
    assert distributed[0].storage.installations.find(enterprise_id=None, team_id=TEAM) is None
