"""``calls`` and ``list <list_uuid>`` against the emulator."""

from __future__ import annotations

import pytest

from callcenter import CallCenter
from callcenter.models import ActiveCall, LeadList, User
from commands.calls.live import agent_for_call, agents_on_call, live_calls
from commands.calls.transfer import extension_owners, transfer_modal
from commands.kernel.grammar import UsageError
from commands.kernel.names import name_of
from commands.kernel.phones import show_phone
from commands.kernel.text import number
from commands.leads.lists import campaign_list_blocks, show_list
from emulators.pbx.testing import EmulatorServer
from storage import Role
from tests.commands.conftest import MakeContext
from tests.commands.helpers import payload, visible
from tests.registry import CATALOG


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
        assert show_phone(call.source) in text and show_phone(call.destination) in text
        assert f"call `{call.call_id}`" in text  # the id ``transfer`` needs
    assert text.count("campaign unknown") == min(len(live), 15)  # a live call names none


async def test_each_call_names_its_agent_from_the_directory_or_says_unknown(
    pbx: EmulatorServer, cc: CallCenter, make_ctx: MakeContext
) -> None:
    pbx.set_call_mode("manual")
    pbx.freeze_clock()
    ringing = pbx.originate(direction="inbound", source="0912000111")
    taken = pbx.originate(direction="inbound", source="0912000222", destination="1003")
    await cc.calls.list()
    reply = await live_calls(make_ctx(), [])
    users = [u async for u in cc.users.iterate(page_size=100)]
    agent = next(u for u in users if u.extension == "1003")
    sections = [b["text"]["text"] for b in payload(reply)["blocks"] if b["type"] == "section"]
    rows = {
        call_id: next(text for text in sections if source in text)
        for call_id, source in (
            (ringing["call_id"], "0912 000 111"),
            (taken["call_id"], "0912 000 222"),
        )
    }
    name = name_of(agent)
    assert f"agent *{name}* (ext 1003)" in rows[taken["call_id"]]
    assert "agent unknown" in rows[ringing["call_id"]]


async def test_calls_still_show_when_the_directory_cannot_be_read(
    pbx: EmulatorServer, cc: CallCenter, make_ctx: MakeContext
) -> None:
    pbx.set_call_mode("manual")
    pbx.freeze_clock()
    pbx.originate(direction="inbound", source="0912000222", destination="1003")
    await cc.calls.list()
    pbx.fail_next("GET", "/v3/user", 500, {"error": "boom"}, times=10)
    text = visible(await live_calls(make_ctx(), []))
    assert "0912 000 222" in text and "agent unknown" in text
    assert "Agents are unknown: the user directory could not be read." in text


def test_the_agent_is_the_user_whose_extension_is_a_party() -> None:
    users = [
        User(user_uuid="a", username="an", extension="1003"),
        User(user_uuid="b", username="binh", extension="1004"),
        User(user_uuid="c", username="no.ext", extension=""),
    ]
    inbound = ActiveCall(call_id="1", direction="inbound", source="0912000111", destination="1004")
    outbound = ActiveCall(call_id="2", direction="outbound", source="1003", destination="0912")
    local = ActiveCall(call_id="3", direction="local", source="1004", destination="1003")
    ringing = ActiveCall(call_id="4", direction="inbound", source="0912", destination="19006868")
    nameless = ActiveCall(call_id="5", direction="inbound", source="", destination="")
    assert agent_for_call(inbound, users) == users[1]
    assert agent_for_call(outbound, users) == users[0]
    assert agents_on_call(local, users) == [users[1], users[0]]
    assert agent_for_call(ringing, users) is None
    assert agent_for_call(nameless, users) is None


async def test_calls_takes_no_arguments(make_ctx: MakeContext) -> None:
    with pytest.raises(UsageError) as caught:
        await live_calls(make_ctx(), ["now"])
    assert caught.value.usage == CATALOG.find("calls").usage  # type: ignore[union-attr]


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


def test_the_transfer_form_offers_at_most_a_hundred_extensions_and_says_so() -> None:
    users = [
        User(user_uuid=str(n), username=f"agent{n}", first_name="An", extension=str(1000 + n))
        for n in range(130)
    ] + [User(user_uuid="off", username="gone", extension="2000", user_enabled="false")]
    owners = extension_owners(users)
    assert "2000" not in owners  # a disabled user takes no calls
    form = transfer_modal({"call_id": "c1"}, "C1", owners).to_dict()
    pick = next(b for b in form["blocks"] if b.get("block_id") == "ext_pick")
    options = pick["element"]["options"]
    assert len(options) == 100 and options[0]["text"]["text"] == "1000 · An"
    assert "first 100 of 130" in pick["hint"]["text"]
    typed = next(b for b in form["blocks"] if b.get("block_id") == "ext")
    assert typed["optional"] is True


def test_a_viewers_lead_list_offers_only_open_list() -> None:
    lead_list = LeadList(list_uuid="l" * 36, list_name="Spring <VIP>", total_leads=1200)
    ids = {
        Role.VIEWER: ["lead_list_open"],
        Role.OPERATOR: ["lead_list_add", "lead_list_upload", "lead_list_open"],
    }
    for role, expected in ids.items():
        section, actions = [b.to_dict() for b in campaign_list_blocks("c1", lead_list, role)]
        assert "Spring &lt;VIP&gt;" in section["text"]["text"]
        assert "*1,200* leads" in section["text"]["text"] and "l" * 36 in section["text"]["text"]
        assert [e["action_id"] for e in actions["elements"]] == expected
    [none] = campaign_list_blocks("c1", None, Role.OPERATOR, missing="None: no default list.")
    assert "None: no default list." in none.to_dict()["text"]["text"]
