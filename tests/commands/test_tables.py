"""Slack's table block for listings: within Slack's limits or not at all."""

from __future__ import annotations

import pytest
from slack_sdk.models.blocks import (
    RawTextObject,
    RichTextBlock,
    RichTextElementParts,
    RichTextSectionElement,
    TableBlock,
    TableBlockColumnSettings,
)

from callcenter.models import CampaignRow
from commands.campaigns.cards import campaigns_reply, listing
from commands.kernel.tables import (
    MAX_COLUMNS,
    Cell,
    Column,
    Link,
    RowButton,
    row_buttons,
    table,
)
from emulators.slack.blockkit import MESSAGE_BLOCK_LIMIT, check_blocks
from tests.commands.helpers import buttons, table_rows


def rows_of(count: int, columns: int = 3) -> list[list[str]]:
    return [[f"r{r}c{c}" for c in range(columns)] for r in range(count)]


def test_a_table_of_99_rows_and_its_header_is_within_slacks_limits() -> None:
    columns = [Column(f"C{i}") for i in range(3)]
    block = table(columns, rows_of(99))
    assert block is not None
    data = block.to_dict()
    assert len(data["rows"]) == 100 and all(len(row) == 3 for row in data["rows"])
    assert check_blocks([data], limit=MESSAGE_BLOCK_LIMIT) == []


def test_100_rows_or_21_columns_fall_back_instead_of_breaking_the_message() -> None:
    assert table([Column("A")], rows_of(100, 1)) is None
    wide = [Column(f"C{i}") for i in range(MAX_COLUMNS + 1)]
    assert table(wide, rows_of(1, MAX_COLUMNS + 1)) is None
    assert table([Column("A")], []) is None
    assert table([Column(f"C{i}") for i in range(MAX_COLUMNS)], rows_of(1, MAX_COLUMNS))


def test_cells_are_never_empty_and_links_only_for_the_web() -> None:
    block = table(
        [Column("Name"), Column("Recording"), Column("Other")],
        [["", Link("javascript:alert(1)", "x"), None], ["A", Link("https://r/1", "rec"), 3]],
    )
    assert block is not None
    data = block.to_dict()
    assert check_blocks([data], limit=MESSAGE_BLOCK_LIMIT) == []
    assert [c.get("text") for c in data["rows"][1]] == ["–", "–", "–"]
    assert data["rows"][2][1]["type"] == "rich_text"
    # Text cells are written as dicts; they are what slack_sdk's raw_text object makes.
    assert data["rows"][2][0] == RawTextObject(text="A").to_dict()
    assert data["rows"][2][2] == RawTextObject(text="3").to_dict()
    long = table([Column("A")], [["x" * 400]])
    assert long is not None
    assert long.to_dict()["rows"][1][0] == RawTextObject(text="x" * 299 + "…").to_dict()
    with pytest.raises(ValueError):
        table([Column("A"), Column("B")], [["only one"]])


def test_cells_and_button_labels_drop_bidirectional_controls() -> None:
    block = table([Column("Name")], [["Sale \u202egpj.exe"], ["Hà \u2067Nội\u2069"]])
    assert block is not None
    assert [row[0]["text"] for row in block.to_dict()["rows"][1:]] == ["Sale gpj.exe", "Hà Nội"]
    row = row_buttons("b", [RowButton("Open \u202eevil", "open", "1")]).to_dict()
    assert row["elements"][0]["text"]["text"] == "Open evil"


def test_the_campaign_list_is_a_table_with_its_open_buttons() -> None:
    campaigns = [
        CampaignRow(
            campaign_uuid=f"{i:08d}-0000-0000-0000-000000000000",
            campaign_name=f"C {i}",
            type="manual",
            status="stop",
        )
        for i in range(12)
    ]
    reply = campaigns_reply(campaigns, kind=None, offset=0, command="campaigns")
    header, *rows = table_rows(reply)
    assert header == ["Campaign", "Type", "Status", "Mode", "Concurrent"]
    assert [r[0] for r in rows] == [f"C {i}" for i in range(10)]
    assert rows[0][2] == "stopped"
    opens = [b for b in buttons(reply) if b["action_id"].startswith("campaign_open_")]
    assert [b["value"] for b in opens] == [c.campaign_uuid for c in campaigns[:10]]


def test_the_same_rows_list_alike_each_time_in_a_reply_of_its_own() -> None:
    rows = [
        CampaignRow(campaign_uuid=f"u{i}", campaign_name=name, type="manual", status=status)
        for i, (name, status) in enumerate([("b", "stop"), ("A", "stop"), ("c", "start")])
    ]
    first = listing(rows, kind=None, offset=0, command="campaigns")
    first.replace_original = True  # as the dispatcher marks a rerun's answer
    first.blocks.append(first.blocks[0])
    again = listing(list(rows), kind=None, offset=0, command="campaigns")
    assert not again.replace_original and len(again.blocks) == len(first.blocks) - 1
    assert [r[0] for r in table_rows(again)[1:]] == ["c", "A", "b"]  # started, then by name
    started = [rows[0].model_copy(update={"status": "start"}), *rows[1:]]
    changed = listing(started, kind=None, offset=0, command="campaigns")
    assert [r[0] for r in table_rows(changed)[1:]] == ["b", "c", "A"]


def test_row_buttons_carry_each_name_id_and_value_as_given() -> None:
    given = [
        RowButton("Open Nhắc lịch hẹn HN", "campaign_open_0", "b6dbb9d7"),
        RowButton("Open <b>&amp; *bold*", "campaign_open_1", "c7"),
    ]
    sent = row_buttons("open:0", given).to_dict()
    assert sent["type"] == "actions" and sent["block_id"] == "open:0"
    # plain_text is shown as written: nothing escaped, nothing read as markup.
    shown = [(e["type"], e["text"]["type"], e["text"]["text"]) for e in sent["elements"]]
    assert shown == [("button", "plain_text", b.text) for b in given]
    assert [(e["action_id"], e["value"]) for e in sent["elements"]] == [
        (b.action_id, b.value) for b in given
    ]


def test_row_buttons_cut_a_long_text_and_refuse_what_slack_would() -> None:
    long_name = RowButton("Open " + "x" * 100, "campaign_open_0", "u")
    (element,) = row_buttons("open:0", [long_name]).to_dict()["elements"]
    assert len(element["text"]["text"]) == 75 and element["text"]["text"].endswith("…")
    with pytest.raises(ValueError, match="longer than Slack allows"):
        row_buttons("open:0", [RowButton("Open", "a" * 256, "u")])
    with pytest.raises(ValueError, match="longer than Slack allows"):
        row_buttons("open:0", [RowButton("Open", "open", "v" * 2001)])
    with pytest.raises(ValueError, match="1 to 5 buttons"):
        row_buttons("open:0", [RowButton("Open", f"open_{i}", "u") for i in range(6)])


def test_a_table_is_the_dict_slack_sdks_table_block_becomes() -> None:
    columns = [Column("Name"), Column("Recording"), Column("Calls", "right")]
    # Cells as they are shown (blank and long cells are
    # test_cells_are_never_empty_and_links_only_for_the_web's).
    cells: list[list[Cell]] = [
        ["Nhắc lịch hẹn HN", Link("https://r/1.mp3", "rec <1>"), 3],
        ["Telesale *HCM*", Link("http://r/2.mp3", "rec 2"), "12"],
    ]
    block = table(columns, cells)
    assert block is not None

    def sdk_cell(value: Cell) -> RawTextObject | RichTextBlock:
        if isinstance(value, Link):
            part = RichTextElementParts.Link(url=value.url, text=value.label)
            return RichTextBlock(elements=[RichTextSectionElement(elements=[part])])
        return RawTextObject(text=str(value))

    built = TableBlock(
        rows=[[RawTextObject(text=c.title) for c in columns]]
        + [[sdk_cell(v) for v in row] for row in cells],
        column_settings=[TableBlockColumnSettings(align=c.align) for c in columns],
    )
    assert block.to_dict() == built.to_dict()
