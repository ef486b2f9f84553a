"""Where the call-center service may be, end to end through ``/callops connect``.

An admin of any workspace that installs callops types the service's URL, and callops
sends the API key there from the host it runs on.  So the form refuses every address of
that host's own networks (loopback however it is written, link-local metadata, private
ranges, IPv6 unique-local, a name that resolves to one of them), URLs with credentials or
a query, and never shows what the other side answered.  An operator can allow networks
(``CALLOPS_SERVICE_NETWORKS``: the tests allow loopback, where the emulator is).  A name
is resolved once and the key goes to the address checked: a resolver that changes its
answer between the check and the connection (DNS rebinding) gets nowhere.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import pytest
from aiohttp import web

from bot.runtime import Runtime
from bot.server import serving
from bot.settings import Settings
from callcenter.addresses import LOOPBACK_NETWORKS, SystemResolver
from emulators.pbx.testing import EmulatorServer
from emulators.slack import SUPERVISOR, TEAM, SlackStandIn
from tests.bot.test_commands_e2e import ask, shown
from tests.bot.test_connect_e2e import open_connect_form

SECRET_PAGE = "INTERNAL-ADMIN-PAGE-7f3a"
"""What an internal service behind the host answers: it must never reach Slack."""


@dataclass
class ScriptedResolver:
    """Names the test gives answers for (each call takes the next answer, the last one
    repeating); every other name, numeric forms included, goes to the system's resolver."""

    answers: Mapping[str, list[list[str]]] = field(default_factory=dict)
    asked: list[str] = field(default_factory=list)

    async def resolve(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        given = self.answers.get(host)
        if given is None:
            return await SystemResolver().resolve(host, port)
        turn = min(self.asked.count(host), len(given)) - 1
        return given[turn]


async def served(
    settings: Settings, slack: SlackStandIn, networks: str, resolver: ScriptedResolver
) -> AsyncIterator[Runtime]:
    rt = Runtime.open(
        settings.model_copy(update={"callops_service_networks": networks}), resolver=resolver
    )
    async with serving(rt, port=0) as url:
        slack.connect_app(url + "/slack/events")
        yield rt
    rt.storage.close()


RESOLVER = ScriptedResolver(
    {
        "metadata.google.internal": [["169.254.169.254"]],
        "pbx.corp.example": [["10.20.30.40"]],
        "split.example": [["93.184.216.34", "192.168.1.10"]],
        "pbx.rebind.example": [["127.0.0.1"], ["10.0.0.1"]],
    }
)


@pytest.fixture
async def public_only(settings: Settings, slack: SlackStandIn) -> AsyncIterator[Runtime]:
    """The app as deployed with no network allowed: only public addresses."""
    RESOLVER.asked.clear()
    async for rt in served(settings, slack, "", RESOLVER):
        yield rt


@pytest.fixture
async def loopback_allowed(settings: Settings, slack: SlackStandIn) -> AsyncIterator[Runtime]:
    RESOLVER.asked.clear()
    async for rt in served(settings, slack, LOOPBACK_NETWORKS, RESOLVER):
        yield rt


async def submit(slack: SlackStandIn, base_url: str, api_key: str) -> str:
    """The connect form sent with ``base_url``; the error on its address field ('' if none)."""
    view = await open_connect_form(slack)
    delivery = await slack.driver.view_submission(
        view["id"], {"base_url": base_url, "api_key": api_key}
    )
    assert delivery.in_time and delivery.status == 200
    return slack.view_errors(view["id"]).get("base_url", "")


def token_requests(pbx: EmulatorServer) -> int:
    return len(pbx.journal(method="POST", path="/v3/auth/token"))


async def test_every_address_of_the_hosts_own_networks_is_refused(
    public_only: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    port = urlsplit(pbx.base_url).port
    private = "is on a private or reserved network"
    cases = {
        f"http://127.0.0.1:{port}": private,
        f"http://localhost:{port}": private,
        f"http://0x7f000001:{port}": private,
        f"http://2130706433:{port}": private,
        f"http://[::1]:{port}": private,
        f"http://[::ffff:127.0.0.1]:{port}": private,
        "http://169.254.169.254/latest/meta-data": private,
        "http://10.0.0.1": private,
        "http://[fd00::1]": private,
        "https://metadata.google.internal": private,
        f"http://pbx.corp.example:{port}": private,
        "http://split.example": private,  # one public address does not excuse a private one
        f"http://user:pw@127.0.0.1:{port}": "Leave the user name and password out",
        f"http://127.0.0.1:{port}/internal/admin?x=1": "without ? or #",
        f"http://127.0.0.1:{port}/#x": "without ? or #",
        "ftp://127.0.0.1": "starting with https://",
        "http://nowhere.invalid": "could not be found",
    }
    before = token_requests(pbx)
    for url, words in cases.items():
        error = await submit(slack, url, pbx.api_key)
        assert words in error, (url, error)
    assert token_requests(pbx) == before  # the key went nowhere
    assert public_only.storage.workspaces.api_key(TEAM) is None
    assert "metadata.google.internal" in RESOLVER.asked  # names read through the resolver
    refused = [
        e for e in public_only.storage.audit.entries(TEAM) if e.action == "workspace.connect"
    ]
    assert len(refused) == len(cases) and {e.outcome for e in refused} == {"refused"}


async def test_an_allowed_network_is_accepted(
    loopback_allowed: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    assert await submit(slack, pbx.base_url, pbx.api_key) == ""
    assert loopback_allowed.storage.workspaces.api_key(TEAM) == pbx.api_key
    assert pbx.journal(method="POST", path="/v3/auth/token")


async def test_what_the_other_side_answers_is_never_shown(
    loopback_allowed: Runtime, slack: SlackStandIn
) -> None:
    async def internal(request: web.Request) -> web.Response:
        if request.path.startswith("/moved"):  # a redirect is not followed
            raise web.HTTPFound("http://169.254.169.254/latest/meta-data", text=SECRET_PAGE)
        status = 500 if request.path.startswith("/broken") else 200
        return web.Response(status=status, text=f"<h1>{SECRET_PAGE}</h1> token=hunter2")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", internal)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        page = await submit(slack, f"http://127.0.0.1:{port}/admin", "key-0001")
        broken = await submit(slack, f"http://127.0.0.1:{port}/broken", "key-0001")
        moved = await submit(slack, f"http://127.0.0.1:{port}/moved", "key-0001")
    finally:
        await runner.cleanup()
    assert page == "127.0.0.1 did not answer as the call-center service does. Check the address."
    assert "answered with HTTP 500" in broken and "does not look like" in broken
    assert "answered with HTTP 302" in moved
    assert loopback_allowed.storage.workspaces.api_key(TEAM) is None
    seen = str([(e.params, e.response) for e in slack.journal()])
    assert SECRET_PAGE not in seen and "hunter2" not in seen


async def test_a_name_is_resolved_once_and_the_key_goes_to_the_address_checked(
    loopback_allowed: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    """The rebinding name answers loopback (allowed) first, then a private address: the
    form checks and connects to the first answer, never asking again; each later
    connection is checked again, and the private answer is refused."""
    port = urlsplit(pbx.base_url).port
    url = f"http://pbx.rebind.example:{port}"
    before = token_requests(pbx)
    assert await submit(slack, url, pbx.api_key) == ""
    assert RESOLVER.asked.count("pbx.rebind.example") == 1
    assert token_requests(pbx) == before + 1  # the key reached the address checked
    assert loopback_allowed.storage.workspaces.api_key(TEAM) == pbx.api_key

    # The stored connection's client: a new connection resolves again, and 10.0.0.1 is
    # refused before anything is sent (the token was kept from the check, so ask for one).
    await slack.wait_for_ephemeral(SUPERVISOR, lambda m: "Connected to" in shown(m))
    loopback_allowed.storage.workspaces.save_cached_token(TEAM, "", 0)
    status = await ask(slack, "status", user=SUPERVISOR)
    assert "cannot be reached" in shown(status), shown(status)
    assert "private or reserved network" in shown(status)
    assert RESOLVER.asked.count("pbx.rebind.example") >= 2  # each connection checked again
    assert token_requests(pbx) == before + 1
