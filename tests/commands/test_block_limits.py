"""One test per Block Kit limit, each on the builder that could break it with the longest
input a user or the service can give.  ``to_dict`` is slack_sdk's own check of Slack's
limits (it raises on a violation), so a reply that serializes is one Slack accepts;
the message and modal block counts are checked here, as the Slack stand-in does."""

from __future__ import annotations

import uuid
from typing import Any
from zoneinfo import ZoneInfo

from slack_sdk.models.blocks import Block, SectionBlock

from callcenter.models import Campaign, Template, User
from commands.calls.autocall import autocall_modal
from commands.campaigns.cards import ambiguous_reply, campaign_card
from commands.directory.groups import FoundGroup, group_modal
from commands.dispatch import dispatch
from commands.kernel.paging import BUTTON_VALUE_LIMIT, pager, read_page_value
from commands.kernel.reply import MAX_MESSAGE_BLOCKS, Reply, fit
from commands.kernel.resolve import AmbiguousCampaign
from storage import Role
from tests.commands.conftest import MakeContext
from tests.commands.helpers import buttons, payload, visible
from tests.registry import APP

TZ = ZoneInfo("Asia/Ho_Chi_Minh")
LONG_NAME = "Chiến dịch <!channel> & khách hàng " * 20  # about 700 characters


def campaign(name: str = LONG_NAME, **fields: Any) -> Campaign:
    return Campaign(campaign_uuid=str(uuid.uuid4()), campaign_name=name, type="autocall", **fields)


def walk(node: Any, key: str) -> list[Any]:
    found: list[Any] = []
    if isinstance(node, dict):
        for k, v in node.items():
            found.extend([v] if k == key else walk(v, key))
    elif isinstance(node, list):
        for item in node:
            found.extend(walk(item, key))
    return found


async def test_section_text_3000_help_with_an_argument_that_grows_when_escaped(
    make_ctx: MakeContext,
) -> None:
    reply = await dispatch(
        make_ctx(), "help " + "&" * 900, registry=APP
    )  # 4,500 characters escaped
    assert isinstance(reply, Reply)
    sections = [b for b in payload(reply)["blocks"] if b["type"] == "section"]
    assert sections and all(len(b["text"]["text"]) <= 3000 for b in sections if "text" in b)
    assert "There is no command" in visible(reply) and "…" in visible(reply)


async def test_button_value_2000_a_command_too_long_for_a_next_button_gets_no_button() -> None:
    short = pager("calls", 0, 10, 35)
    [block] = short
    assert read_page_value(block.to_dict()["elements"][0]["value"]) == ("calls", 10)
    command = "cdr campaign=" + "Nhắc thanh toán " * 150  # 2,400 characters
    [note] = pager(command, 10, 10, 35)
    data = note.to_dict()
    assert data["type"] == "context" and "too long to page" in data["elements"][0]["text"]
    assert walk(data, "value") == []
    assert BUTTON_VALUE_LIMIT == 2000


def test_button_text_75_and_value_choices_of_campaigns_with_long_names() -> None:
    candidates = [campaign(f"{i} {LONG_NAME}") for i in range(30)]
    typed = ["monitor", "Chiến", "window=" + "9" * 900]
    reply = ambiguous_reply(AmbiguousCampaign("Chiến", candidates), typed)
    shown = buttons(reply)
    assert len(shown) == 20
    assert all(len(b["text"]["text"]) <= 75 and b["text"]["text"].endswith("…") for b in shown)
    assert all(len(b["value"]) <= 2000 for b in shown)


def test_header_150_a_campaign_card_of_a_long_name(make_ctx: MakeContext) -> None:
    reply = campaign_card(campaign(description="x" * 5000), None, make_ctx(), window_minutes=60)
    header = payload(reply)["blocks"][0]
    assert header["type"] == "header"
    assert len(header["text"]["text"]) == 150 and header["text"]["text"].endswith("…")


def test_option_text_75_and_100_options_a_group_form_of_many_long_names() -> None:
    people = [
        User(user_uuid=str(uuid.uuid4()), username=f"agent{i}", first_name=LONG_NAME)
        for i in range(150)
    ]
    view = group_modal(
        FoundGroup(str(uuid.uuid4()), "Sales " * 800), people, [campaign()] * 150, "C1"
    )
    data = view.to_dict()
    options = [o for block in walk(data, "options") for o in block]
    assert len(options) == 200  # 100 people, 100 campaigns: each select at Slack's 100
    assert all(len(o["text"]["text"]) <= 75 for o in options)
    assert len(data["private_metadata"]) <= 3000


def test_modal_100_blocks_an_autocall_form_of_a_template_with_many_placeholders(
    make_ctx: MakeContext,
) -> None:
    names = [f"placeholder_{i}_" + "x" * 100 for i in range(150)]
    view = autocall_modal(
        campaign(),
        Template(template_uuid=str(uuid.uuid4()), template_name=LONG_NAME),
        names,
        phone="0912345678",
        given={},
        channel="C1",
    )
    data = view.to_dict()
    assert len(data["blocks"]) <= 100
    assert len(data["private_metadata"]) <= 3000
    offered = [b for b in data["blocks"] if b.get("block_id", "").startswith("param:")]
    assert len(offered) >= 20
    assert f"{150 - len(offered)} more placeholders than this form can hold" in str(data)


def test_message_50_blocks_a_reply_of_many_blocks_is_cut_and_says_so() -> None:
    blocks: list[Block] = [SectionBlock(text=f"row {i}") for i in range(80)]
    kept = fit(blocks)
    assert len(kept) == MAX_MESSAGE_BLOCKS
    assert "31 more blocks not shown" in str(kept[-1].to_dict())


async def test_message_50_blocks_every_listing_pages_instead(make_ctx: MakeContext) -> None:
    for command in ("campaigns", "users", "templates", "calls", "cdr", "monitor", "agents"):
        reply = await dispatch(make_ctx(role=Role.ADMIN), command, registry=APP)
        assert isinstance(reply, Reply)
        payload(reply)  # asserts no more than 50 blocks, without relying on fit()
