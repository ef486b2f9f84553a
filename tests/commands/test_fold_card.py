"""The folded message: one table row per call, within what Slack allows in a message."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest

from callcenter.models import Cdr
from commands.kernel.i18n import Audience, use_audience
from commands.notifications.fold_card import FOLD_ROWS, fold_card

TZ = ZoneInfo("Asia/Ho_Chi_Minh")
CAMPAIGN = "6f1c2d3e-0000-4000-8000-000000000001"


def record(k: int, **fields: object) -> Cdr:
    base: dict[str, object] = {
        "id": f"c0ffee00-0000-4000-8000-{k:012d}",
        "direction": "outbound",
        "status": "busy",
        "duration": 65,
        "to_number": f"0912{k:06d}",
        "time_started": "2026-11-21 23:30:05",
        "campaign_uuid": CAMPAIGN,
    }
    base.update(fields)
    return Cdr.model_validate(base)


def test_each_call_is_a_row_of_time_number_campaign_outcome_agent_duration() -> None:
    calls = [record(1), record(2, extension="101", fullname="Nguyễn Lan", status="answered")]
    card = fold_card(calls, tz=TZ, names={CAMPAIGN: "Telesale <HCM>"})
    [table] = [b for b in (b.to_dict() for b in card.blocks) if b["type"] == "table"]
    rows = [[cell["text"] for cell in row] for row in table["rows"]]
    assert rows == [
        ["Time", "Number", "Campaign", "Outcome", "Agent", "Duration"],
        ["06:30:05", "0912 000 001", "Telesale <HCM>", "Busy", "–", "1m 05s"],
        ["06:30:05", "0912 000 002", "Telesale <HCM>", "Answered", "101 (Nguyễn Lan)", "1m 05s"],
    ]
    assert card.text == "2 call records"
    # Written for a channel that masks customers' numbers, the column masks them too.
    with use_audience(Audience(mask_phones=True, public=True)):
        masked = fold_card(calls, tz=TZ, names={})
    [table] = [b for b in (b.to_dict() for b in masked.blocks) if b["type"] == "table"]
    assert [row[1]["text"] for row in table["rows"][1:]] == ["0912 *** 001", "0912 *** 002"]
    assert "*2 calls*" in card.blocks[0].to_dict()["text"]["text"]


def test_a_folded_message_holds_one_table_of_at_most_99_calls() -> None:
    assert FOLD_ROWS == 99
    fold_card([record(k) for k in range(FOLD_ROWS)], tz=TZ, names={})
    with pytest.raises(ValueError, match="1 to 99"):
        fold_card([record(k) for k in range(FOLD_ROWS + 1)], tz=TZ, names={})
