"""The network of a number: the library's carrier data, the Ministry's table for the rest."""

from __future__ import annotations

import pytest

from commands.kernel.networks import MINISTRY_PREFIXES, NETWORKS, UNKNOWN, network_of


@pytest.mark.parametrize(
    ("phone", "network"),
    [
        ("0912345678", "Vinaphone"),
        ("+84 912 345 678", "Vinaphone"),
        ("84862345678", "Viettel"),
        ("0321234567", "Viettel"),
        ("0981234567", "Viettel"),
        ("0701234567", "MobiFone"),
        ("0901234567", "MobiFone"),
        ("0891234567", "MobiFone"),  # not in the library's data: the Ministry's table
        ("0921234567", "Vietnamobile"),
        ("0521234567", "Vietnamobile"),  # the Ministry's table
        ("0591234567", "Gmobile"),  # the library writes G-Mobile
        ("0991234567", "Gmobile"),  # the Ministry's table
        ("0551234567", "Reddi"),  # the Ministry's table
        ("02838123456", UNKNOWN),  # a Ho Chi Minh City landline
        ("+14155550100", UNKNOWN),  # another country's
        ("not a number", UNKNOWN),
    ],
)
def test_network_of_a_prefix(phone: str, network: str) -> None:
    assert network_of(phone) == network


def test_every_prefix_of_the_table_has_a_network_the_reports_name() -> None:
    for prefix in MINISTRY_PREFIXES:
        assert network_of(prefix + "1234567") in NETWORKS, prefix
