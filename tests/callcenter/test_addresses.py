"""The one rule for where the call-center service may be, as pure code: which addresses
are public, which networks an operator's ``CALLOPS_SERVICE_NETWORKS`` adds, and which
URLs any way in refuses before an address is looked at."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from bot.settings import Settings
from callcenter.addresses import (
    LOOPBACK_NETWORKS,
    AddressRefused,
    ServiceAddresses,
    ServiceNetworks,
)
from storage.errors import InvalidValueError
from storage.validation import base_url_problem, check_base_url


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "127.1.2.3",
        "0.0.0.0",  # noqa: S104 - an address checked, not bound
        "10.0.0.1",
        "172.16.5.4",
        "192.168.1.1",
        "169.254.169.254",
        "100.64.0.1",
        "224.0.0.1",
        "::1",
        "::",
        "fd00::1",
        "fe80::1%eth0",
        "::ffff:127.0.0.1",
        "::ffff:10.0.0.1",
        "not an address",
    ],
)
def test_addresses_of_the_hosts_own_networks_are_not_public(address: str) -> None:
    assert not ServiceNetworks().permits(address)


@pytest.mark.parametrize("address", ["93.184.216.34", "8.8.8.8", "2606:4700::1111"])
def test_public_addresses_are_permitted(address: str) -> None:
    assert ServiceNetworks().permits(address)


def test_an_operator_allows_networks_and_nothing_else() -> None:
    allowed = ServiceNetworks.parse(LOOPBACK_NETWORKS)
    assert allowed.permits("127.0.0.1") and allowed.permits("::1")
    assert allowed.permits("::ffff:127.0.0.1")  # IPv4-mapped, read as the IPv4 it maps
    assert not allowed.permits("10.0.0.1") and not allowed.permits("169.254.169.254")
    office = ServiceNetworks.parse(" 10.20.0.0/16 , fd00::/8 ")
    assert office.permits("10.20.3.4") and office.permits("fd00::5")
    assert not office.permits("10.21.0.1")
    with pytest.raises(ValueError):
        ServiceNetworks.parse("10.0.0.0/33")


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("https://pbx.example.com", None),
        ("https://pbx.example.com:8443/api/", None),
        ("ftp://pbx.example.com", "not_http"),
        ("https://", "not_http"),
        ("pbx.example.com", "not_http"),
        ("https://pbx.example.com:99999", "not_http"),
        ("https://user:pw@pbx.example.com", "credentials"),
        ("https://user@pbx.example.com", "credentials"),
        ("https://pbx.example.com/internal/admin?x=1", "query"),
        ("https://pbx.example.com/#frag", "query"),
        ("https://pbx.example.com/?", "query"),
    ],
)
def test_a_base_url_is_http_without_credentials_or_query(url: str, problem: str | None) -> None:
    assert base_url_problem(url) == problem
    if problem is not None:
        with pytest.raises(InvalidValueError):
            check_base_url(url)
    else:
        assert check_base_url(url) == url.rstrip("/")


def test_single_workspace_mode_follows_the_same_rule() -> None:
    """``CALLOPS_BASE_URL`` is refused at start by the rule the connect form follows; where
    its host may be is checked at each connection, as for a stored one."""
    assert Settings(
        _env_file=None, callops_base_url="https://pbx.example.com/api/"
    ).callops_base_url == ("https://pbx.example.com/api")
    for url in ("http://u:pw@pbx.example.com", "https://pbx.example.com/?x=1", "file:///etc"):
        with pytest.raises(ValidationError):
            Settings(_env_file=None, callops_base_url=url)
    with pytest.raises(ValidationError):
        Settings(_env_file=None, callops_service_networks="10.0.0.0/8,not-a-network")


EMBEDDING = [
    ("::127.0.0.1", "IPv4-compatible", True),
    ("::a9fe:a9fe", "IPv4-compatible, the metadata address", False),
    ("::ffff:0:7f00:1", "IPv4-translated", True),
    ("::ffff:0:a00:1", "IPv4-translated, 10.0.0.1", False),
    ("64:ff9b::7f00:1", "NAT64 well-known prefix", True),
    ("64:ff9b::a9fe:a9fe", "NAT64, the metadata address", False),
    ("64:ff9b::c0a8:101", "NAT64, 192.168.1.1", False),
    ("64:ff9b:1:7f00:0:100::", "NAT64 local-use prefix (RFC 6052 /48 layout)", True),
    ("64:ff9b:1::7f00:1", "NAT64 local-use prefix, 0.0.0.0 inside", False),
    ("2002:7f00:1::", "6to4", True),
    ("2002:a9fe:a9fe::1", "6to4, the metadata address", False),
    ("2001:0:4136:e378:8000:63bf:80ff:fffe", "Teredo, client 127.0.0.1", True),
    ("2001:0:7f00:1:8000:63bf:f7f7:f7f7", "Teredo, server 127.0.0.1", True),
    ("fec0::1", "site-local", False),
    ("fed0::7f00:1", "site-local", False),
]
"""An address, its form, and whether what it carries is all loopback or public (so an
operator allowing loopback allows it)."""


@pytest.mark.parametrize(("address", "form", "loopback"), EMBEDDING, ids=[e[1] for e in EMBEDDING])
def test_ipv6_forms_that_embed_a_private_ipv4_are_refused(
    address: str, form: str, loopback: bool
) -> None:
    """A NAT64 translator, a 6to4 relay or a Teredo tunnel on the way delivers to the IPv4
    address inside, so that address is the one judged."""
    assert not ServiceNetworks().permits(address), form
    # Allowing loopback allows the IPv4 inside, as an operator meant, and nothing else.
    assert ServiceNetworks.parse(LOOPBACK_NETWORKS).permits(address) == loopback, form


@pytest.mark.parametrize(
    "address", ["64:ff9b::808:808", "2002:808:808::1", "2001:0:808:808:8000:63bf:f7f7:f7f7"]
)
def test_ipv6_forms_that_embed_a_public_ipv4_are_judged_by_it(address: str) -> None:
    assert ServiceNetworks().permits(address)


@pytest.mark.parametrize(("address", "form", "loopback"), EMBEDDING, ids=[e[1] for e in EMBEDDING])
async def test_a_service_url_at_an_embedding_address_is_refused_before_connecting(
    address: str, form: str, loopback: bool
) -> None:
    with pytest.raises(AddressRefused) as refused:
        await ServiceAddresses().checked(address, 443)
    assert refused.value.reason == "not_public", form
