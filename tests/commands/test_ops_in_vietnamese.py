"""Campaigns, calls and leads answer in the reader's language: the same handlers, run for
a Vietnamese reader against the emulator, show the catalog's words (issue #25)."""

from __future__ import annotations

from callcenter import CallCenter
from commands.calls.live import live_calls
from commands.calls.transfer import transfer_modal
from commands.campaigns.cards import show_campaign
from commands.kernel.i18n import Audience, use_audience
from commands.leads.lists import show_list
from emulators.pbx.testing import EmulatorServer
from storage import Role
from tests.commands.conftest import MakeContext
from tests.commands.helpers import buttons, visible

VIETNAMESE = Audience(language="vi")


async def test_the_campaign_card_speaks_vietnamese(cc: CallCenter, make_ctx: MakeContext) -> None:
    target = next(c for c in (await cc.campaigns.list(limit=50)).data if c.status == "start")
    with use_audience(VIETNAMESE):
        reply = await show_campaign(make_ctx(role=Role.OPERATOR), [target.campaign_uuid])
    text = visible(reply)
    assert "*Trạng thái*" in text and "*Chế độ*" in text
    labels = {b["text"]["text"] for b in buttons(reply)}
    assert {"Tạm dừng", "Dừng", "Làm mới"} <= labels
    assert reply.text.startswith("Chiến dịch ")


async def test_live_calls_and_the_transfer_form_speak_vietnamese(
    pbx: EmulatorServer, make_ctx: MakeContext
) -> None:
    pbx.set_call_mode("immediate")
    with use_audience(VIETNAMESE):
        reply = await live_calls(make_ctx(), [])
        form = transfer_modal({"call_id": "c-1", "source": "0912345678"}, "C1").to_dict()
    assert "Hiện không có cuộc gọi nào đang diễn ra." in visible(reply)
    assert form["title"]["text"] == "Chuyển cuộc gọi"
    assert form["submit"]["text"] == "Chuyển" and form["close"]["text"] == "Hủy"


async def test_the_lead_list_card_speaks_vietnamese(cc: CallCenter, make_ctx: MakeContext) -> None:
    campaign = next(c for c in (await cc.campaigns.list(limit=50)).data if c.default_list_uuid)
    with use_audience(VIETNAMESE):
        reply = await show_list(make_ctx(), [campaign.default_list_uuid])
    text = visible(reply)
    assert "*Khách hàng tiềm năng*" in text and "*Đã tải lên*" in text
    assert reply.text.startswith("Danh sách ")
