"""``calls`` and ``list <list_uuid>`` against the emulator."""

from __future__ import annotations

import pytest

from callcenter import CallCenter
from commands.calls.live import live_calls
from commands.kernel.catalog import find
from commands.kernel.grammar import UsageError
from commands.kernel.text import number
from commands.leads.lists import show_list
from emulators.pbx.testing import EmulatorServer
from tests.commands.conftest import MakeContext
from tests.commands.helpers import visible


async def test_no_live_calls_is_said_plainly(pbx: EmulatorServer, make_ctx: MakeContext) -> None:
    pbx.set_call_mode("immediate")
    reply = await live_calls(make_ctx(), [])
    assert "No live calls right now." in visible(reply)


async def test_live_calls_show_each_call_with_a_transfer_button(
    pbx: EmulatorServer, cc: CallCenter, make_ctx: MakeContext
) -> None:
    pbx.set_call_mode("manual")
    pbx.freeze_clock()  # the dialer fills started campaigns as time passes; hold it still
    pbx.originate()
    pbx.originate()
    await cc.calls.list()  # let the dialer catch up with the frozen instant first
    reply = await live_calls(make_ctx(), [])
    live = (await cc.calls.list()).data
    assert len(live) >= 2
    text = visible(reply)
    assert f"Live calls: {len(live)}" in text
    for call in live[:15]:
        assert call.source in text and call.destination in text


async def test_calls_takes_no_arguments(make_ctx: MakeContext) -> None:
    with pytest.raises(UsageError) as caught:
        await live_calls(make_ctx(), ["now"])
    assert caught.value.usage == find("calls").usage  # type: ignore[union-attr]


async def test_list_card_shows_the_service_totals(cc: CallCenter, make_ctx: MakeContext) -> None:
    campaign = next(c for c in (await cc.campaigns.list(limit=50)).data if c.default_list_uuid)
    expected = await cc.lists.get(campaign.default_list_uuid)
    text = visible(await show_list(make_ctx(), [campaign.default_list_uuid]))
    assert expected.list_name in text
    assert f"*{number(expected.total_leads)}*" in text
    assert expected.campaign_name in text
    assert number(expected.total_upload) in text


async def test_list_uuid_is_checked_before_asking(
    pbx: EmulatorServer, make_ctx: MakeContext
) -> None:
    for args, says in ((["abc"], "has 3"), ([], "Give one list UUID"), (["a" * 36, "b"], "only")):
        with pytest.raises(UsageError) as caught:
            await show_list(make_ctx(), args)
        assert says in caught.value.message
        assert caught.value.usage == "list <list_uuid>"
    assert not pbx.journal(method="GET", path="/v3/list/abc")


async def test_unknown_list_is_reported_not_raised(make_ctx: MakeContext) -> None:
    missing = "00000000-0000-4000-8000-000000000000"
    text = visible(await show_list(make_ctx(), [missing]))
    assert "No lead list has the UUID" in text and missing in text
