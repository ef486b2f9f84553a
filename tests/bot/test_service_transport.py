"""The call-center client as the bot builds it (``bot.service_clients``), against the
emulator on loopback: reads go through aiohttp's pool and writes through httpx's, and
either way a failure says what happened and an effectful call is never sent twice."""

from __future__ import annotations

import socket
import ssl
from urllib.parse import urlsplit

import pytest

from bot.service_clients import service_transport
from callcenter import CallCenter, errors
from callcenter.addresses import LOOPBACK_NETWORKS, ServiceAddresses, ServiceNetworks
from callcenter.models import GroupCreate
from emulators.pbx.testing import EmulatorServer

pytestmark = pytest.mark.asyncio


LOOPBACK = ServiceAddresses(ServiceNetworks.parse(LOOPBACK_NETWORKS))
"""Where the emulator is, allowed as the tests allow it."""


def _client(
    base_url: str,
    api_key: str,
    *,
    timeout: float = 10.0,
    addresses: ServiceAddresses = LOOPBACK,
) -> CallCenter:
    async def no_wait(_: float) -> None:
        return None

    return CallCenter(
        base_url,
        api_key,
        timeout=timeout,
        transport=service_transport(ssl.create_default_context(), addresses),
        sleep=no_wait,
    )


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost", "0x7f000001"])
async def test_reads_and_writes_go_nowhere_the_service_may_not_be(
    pbx: EmulatorServer, host: str
) -> None:
    """Without loopback allowed, neither road (aiohttp's reads, httpx's writes) connects to
    the emulator, whether the URL names it by address or by a name."""
    port = urlsplit(pbx.base_url).port
    before = len(pbx.journal())
    async with _client(f"http://{host}:{port}", pbx.api_key, addresses=ServiceAddresses()) as cc:
        with pytest.raises(errors.APIConnectionError, match="private or reserved network"):
            await cc.campaigns.list(limit=5)
        with pytest.raises(errors.APIConnectionError, match="private or reserved network"):
            await cc.groups.create(GroupCreate(group_name="Night shift"))
    assert len(pbx.journal()) == before


async def test_reads_and_writes_reach_the_service(pbx: EmulatorServer) -> None:
    async with _client(pbx.base_url, pbx.api_key) as cc:
        listed = await cc.campaigns.list(limit=5)
        created = await cc.groups.create(GroupCreate(group_name="Night shift"))
        again = await cc.campaigns.list(limit=5)
    assert [c.campaign_uuid for c in listed.data] == [c.campaign_uuid for c in again.data]
    assert created.created is True
    assert "Night shift" in {g["group_name"] for g in pbx.state("groups")}
    assert len(pbx.journal(method="GET", path="/v3/campaign")) == 2


async def test_a_write_whose_connection_drops_is_not_sent_again(pbx: EmulatorServer) -> None:
    pbx.fail_next("POST", "/v3/group", 200, drop=True)
    async with _client(pbx.base_url, pbx.api_key) as cc:
        with pytest.raises(errors.APIConnectionError) as raised:
            await cc.groups.create(GroupCreate(group_name="Dropped but done"))
    assert "RemoteProtocolError" in str(raised.value)
    assert len(pbx.journal(method="POST", path="/v3/group")) == 1
    assert [g["group_name"] for g in pbx.state("groups")].count("Dropped but done") == 1


async def test_a_read_whose_connection_drops_is_read_again(pbx: EmulatorServer) -> None:
    pbx.fail_next("GET", "/v3/campaign", 200, drop=True)
    async with _client(pbx.base_url, pbx.api_key) as cc:
        page = await cc.campaigns.list(limit=3)
    assert len(page.data) == 3
    entries = pbx.journal(method="GET", path="/v3/campaign")
    assert [e["fault"] for e in entries] == ["drop", None]


async def test_a_read_that_keeps_dropping_names_the_dropped_connection(
    pbx: EmulatorServer,
) -> None:
    pbx.fail_next("GET", "/v3/campaign", 200, drop=True, times=10)
    async with _client(pbx.base_url, pbx.api_key) as cc:
        with pytest.raises(errors.APIConnectionError) as raised:
            await cc.campaigns.list(limit=3)
    assert "RemoteProtocolError" in str(raised.value)
    assert not isinstance(raised.value, errors.APITimeoutError)


async def test_a_slow_read_times_out_as_a_timeout(pbx: EmulatorServer) -> None:
    pbx.fail_next("GET", "/v3/campaign", 200, hold_ms=1500, times=10)
    async with _client(pbx.base_url, pbx.api_key, timeout=0.3) as cc:
        await cc.users.list(limit=1)  # the token, before the slow part
        with pytest.raises(errors.APITimeoutError) as raised:
            await cc.campaigns.list(limit=3)
    assert "ReadTimeout" in str(raised.value)


async def test_a_read_from_a_closed_port_cannot_connect() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    # Nothing listens on ``port`` now; the token is read first (a write), then a read.
    async with _client(f"http://127.0.0.1:{port}", "key") as cc:
        with pytest.raises(errors.APIConnectionError) as raised:
            await cc.campaigns.list(limit=1)
    assert "ConnectError" in str(raised.value)
