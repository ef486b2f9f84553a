"""A customer's number typed as people write it finds the same calls, end to end: signed
slash commands through the Slack stand-in, call records from the emulator, which stores
them under the national form (``0912345678``)."""

from __future__ import annotations

from typing import Any

from bot.runtime import Runtime
from callcenter import CallCenter
from callcenter.rules import is_valid_phone
from emulators.pbx.testing import EmulatorServer
from emulators.slack import SlackStandIn
from tests.bot.test_commands_e2e import ask, shown


async def seeded_mobile_with_calls(pbx: EmulatorServer) -> str:
    async with CallCenter(pbx.base_url, pbx.api_key) as cc:
        page = await cc.cdrs.list(limit=50)
    numbers = [n for r in page.data for n in (r.to_number, r.from_number) if is_valid_phone(n)]
    assert numbers, "the seed has calls to customers' mobile numbers"
    return numbers[0]


def blocks(reply: dict[str, Any]) -> list[dict[str, Any]]:
    """What the reader sees (Slack gives each block an id of its own)."""
    return [{k: v for k, v in b.items() if k != "block_id"} for b in reply["blocks"]]


async def test_cdr_finds_the_same_calls_however_the_number_is_written(
    app: Runtime, slack: SlackStandIn, pbx: EmulatorServer
) -> None:
    phone = await seeded_mobile_with_calls(pbx)
    head, middle, tail = phone[:4], phone[4:7], phone[7:]
    window = "from=2020-01-01 to=2030-01-01"
    plain = await ask(slack, f"cdr phone={phone} {window}")
    assert f"phone `{head} {middle} {tail}`" in shown(plain)
    assert "No call records" not in shown(plain)
    for written in (
        f"phone=+84 {phone[1:4]} {middle} {tail}",
        f"phone=84{phone[1:]}",
        f"phone={head}.{middle}.{tail}",
        f"+84 {phone[1:4]} {middle} {tail}",
        f"{head} {middle} {tail}",
    ):
        reply = await ask(slack, f"cdr {written} {window}")
        assert blocks(reply) == blocks(plain), written


async def test_cdr_refuses_a_number_that_is_none_naming_the_rule(
    app: Runtime, slack: SlackStandIn
) -> None:
    reply = await ask(slack, "cdr phone=12 34")
    assert "phone= '1234' is not a phone number the service accepts (10 digits" in shown(reply)
    assert "'34' is not a filter" not in shown(reply)
