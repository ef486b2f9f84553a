"""Forgiving matching: folding, "did you mean", and finding a campaign from a typed name."""

from __future__ import annotations

import pytest

from callcenter import CallCenter
from callcenter.models import Campaign
from commands.dispatch import dispatch
from commands.kernel.matching import alternatives, clear_winner, closest_names, fold, suggest
from commands.kernel.reply import Reply
from commands.kernel.resolve import (
    AmbiguousCampaign,
    CampaignNotFound,
    campaign_queries,
    find_campaign,
    is_phone_like,
    leading_campaign,
    pick_campaign,
)
from storage import Role
from tests.commands.conftest import MakeContext
from tests.commands.helpers import buttons, visible
from tests.registry import APP


@pytest.mark.parametrize(
    ("typed", "folded"),
    [
        ("Gọi lại khách hàng CT", "goi lai khach hang ct"),
        ("  GỌI   LẠI  ", "goi lai"),
        ("Tổng đài CSKH ĐN đợt 2", "tong dai cskh dn dot 2"),
        ("Summer-sale_2026", "summer sale 2026"),
        ("Ｆｕｌｌ width", "full width"),
        ("", ""),
    ],
)
def test_fold_ignores_case_diacritics_and_spacing(typed: str, folded: str) -> None:
    assert fold(typed) == folded


def test_suggest_names_the_nearest_words_and_nothing_far() -> None:
    words = ["campaigns", "campaign", "calls", "carriers", "cdr", "status", "stats"]
    assert suggest("campain", words) == ["campaign", "campaigns"]
    assert suggest("stauts", ["phone", "status", "direction"]) == ["status"]
    assert suggest("CAMPAIGN", words, limit=1) == ["campaign"]
    assert suggest("rockets", words) == []


def test_alternatives_reads_like_a_sentence() -> None:
    assert alternatives([]) == ""
    assert alternatives(["a"]) == "`a`"
    assert alternatives(["a", "b", "c"]) == "`a`, `b` or `c`"
    assert alternatives(["x", "y"], str) == "x or y"


NAMES = [
    "Gọi lại khách hàng CT",
    "Gọi lại khách hàng CT đợt 2",
    "Telesale thẻ tín dụng HCM",
    "Telesale thẻ tín dụng HCM đợt 2",
    "Vay tiêu dùng HCM",
]


def test_a_typo_in_a_whole_name_has_a_clear_winner() -> None:
    scored = closest_names("goi lai khach hagn ct", NAMES)
    assert [NAMES[i] for i, _ in scored[:2]] == NAMES[:2]
    assert clear_winner(scored) == 0


def test_a_typo_in_a_shared_prefix_has_no_winner_only_suggestions() -> None:
    scored = closest_names("telesle", NAMES)
    assert {NAMES[i] for i, _ in scored} == {NAMES[2], NAMES[3]}
    assert clear_winner(scored) is None


def test_short_or_unrelated_text_is_not_guessed() -> None:
    assert closest_names("ct", NAMES) == []
    assert closest_names("summer sale", NAMES) == []


async def _campaigns(cc: CallCenter) -> list[Campaign]:
    return [c async for c in cc.campaigns.iterate()]


async def test_campaign_by_folded_name_prefix_typo_and_uuid(cc: CallCenter) -> None:
    campaigns = await _campaigns(cc)
    target = next(c for c in campaigns if c.campaign_name == "Gọi lại khách hàng CT")
    assert pick_campaign(campaigns, "goi lai khach hang ct") == target
    assert pick_campaign(campaigns, "GỌI LẠI KHÁCH HÀNG  CT") == target
    assert pick_campaign(campaigns, target.campaign_uuid.upper()) == target
    guessed = find_campaign(campaigns, "goi lai khach hagn ct", take_guess=True)
    assert (guessed.campaign, guessed.guessed) == (target, True)
    with pytest.raises(AmbiguousCampaign) as offered:
        pick_campaign(campaigns, "goi lai khach hagn ct")
    assert offered.value.guessed and offered.value.candidates[0] == target
    with pytest.raises(AmbiguousCampaign) as several:
        pick_campaign(campaigns, "goi lai")
    assert not several.value.guessed and target in several.value.candidates
    with pytest.raises(CampaignNotFound):
        pick_campaign(campaigns, "zzz nothing like it")


async def test_where_an_unquoted_name_ends(cc: CallCenter) -> None:
    campaigns = await _campaigns(cc)
    # The whole name wins, even with a number in it that could start a phone.
    assert leading_campaign(
        ["thu", "hoi", "no", "nhom", "2", "HCM", "0912", "345", "678"],
        campaigns,
        ends_at=is_phone_like,
    ) == ("thu hoi no nhom 2 HCM", ["0912", "345", "678"])
    # A partial name runs to the first phone-like word.
    assert leading_campaign(["nhac", "lich", "0912345678"], campaigns, ends_at=is_phone_like) == (
        "nhac lich",
        ["0912345678"],
    )
    assert leading_campaign(
        ["Gọi lại khách hàng CT", "0912"], campaigns, ends_at=is_phone_like
    ) == (
        "Gọi lại khách hàng CT",
        ["0912"],
    )
    assert not is_phone_like("2") and is_phone_like("+84-912")


async def test_several_campaigns_typed_one_after_another(cc: CallCenter) -> None:
    campaigns = await _campaigns(cc)
    assert campaign_queries(["nhac", "lich", "hen", "hn", "vay", "tieu", "dung"], campaigns) == [
        "nhac lich hen hn",
        "vay tieu dung",
    ]
    assert campaign_queries(["Summer", "sale,", "vay"], campaigns) == ["Summer sale", "vay"]
    assert campaign_queries(["Gọi lại khách hàng CT", "vay"], campaigns) == [
        "Gọi lại khách hàng CT",
        "vay",
    ]
    # Nothing splits into names: one name, left to "Did you mean".
    assert campaign_queries(["goi", "lai", "khach", "hagn", "ct"], campaigns) == [
        "goi lai khach hagn ct"
    ]


async def test_which_one_buttons_carry_the_whole_command(
    cc: CallCenter, make_ctx: MakeContext
) -> None:
    reply = await dispatch(
        make_ctx(), "cdr from=2020-01-01 campaign=goi lai status=busy", registry=APP
    )
    assert isinstance(reply, Reply) and "Which one?" in visible(reply)
    target = next(c for c in await _campaigns(cc) if c.campaign_name == "Gọi lại khách hàng CT")
    values = {b["text"]["text"]: b["value"] for b in buttons(reply)}
    assert values["Gọi lại khách hàng CT"] == (
        f"cdr from=2020-01-01 campaign={target.campaign_uuid} status=busy"
    )


async def test_a_command_too_long_to_read_gets_no_button(make_ctx: MakeContext) -> None:
    """Commands are read up to 1,000 characters, so a "Which one?" button (the command
    with a UUID for the name) always fits Slack's 2,000; a longer one is refused first."""
    letter = "An " * 700
    reply = await dispatch(
        make_ctx(role=Role.OPERATOR), f"autocall nhac lich 0912345678 name={letter}", registry=APP
    )
    assert isinstance(reply, Reply)
    assert buttons(reply) == []
    assert "callops reads commands of up to 1,000" in visible(reply)


async def test_a_mistyped_campaign_type_is_named(make_ctx: MakeContext) -> None:
    reply = await dispatch(make_ctx(), "campaigns autocal", registry=APP)
    assert isinstance(reply, Reply)
    assert "'autocal' is not a campaign type. Did you mean `campaigns autocall`?" in visible(reply)
    listing = await dispatch(make_ctx(), "Campaigns AUTOCALL", registry=APP)
    assert isinstance(listing, Reply) and "Autocall campaigns" in visible(listing)
