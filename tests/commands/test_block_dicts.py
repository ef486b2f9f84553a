"""``block_dict`` is ``to_dict`` made cheaper: the same dict for every block the app sends,
and the same refusal (``SlackObjectFormationError``, same message) for a block Slack would
refuse."""

from __future__ import annotations

import json
from typing import Any

import pytest
from slack_sdk.errors import SlackObjectFormationError
from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    CheckboxesElement,
    ConfirmObject,
    ContextBlock,
    DatePickerElement,
    DividerBlock,
    HeaderBlock,
    InputBlock,
    MarkdownTextObject,
    Option,
    OptionGroup,
    OverflowMenuElement,
    PlainTextInputElement,
    PlainTextObject,
    RichTextBlock,
    RichTextElementParts,
    RichTextListElement,
    RichTextSectionElement,
    SectionBlock,
    StaticSelectElement,
)

from commands.dispatch import dispatch
from commands.kernel.block_dicts import block_dict
from commands.kernel.reply import Reply
from storage import Role
from tests.commands.conftest import MakeContext


def same(ours: dict[str, Any], theirs: dict[str, Any]) -> bool:
    """Equal, keys in the same order too (the JSON Slack receives is byte for byte the same)."""
    return json.dumps(ours) == json.dumps(theirs)


COMMANDS = ["campaigns", "campaigns autocall", "help", "help campaigns", "calls", "agents"]


@pytest.mark.parametrize("text", COMMANDS)
async def test_every_block_of_a_reply_serializes_as_to_dict_does(
    make_ctx: MakeContext, text: str
) -> None:
    reply = await dispatch(make_ctx(role=Role.ADMIN), text)
    assert isinstance(reply, Reply)
    assert reply.blocks, f"`{text}` answered without blocks"
    for block in reply.blocks:
        assert same(block_dict(block), block.to_dict())


def kitchen_sink() -> list[Block]:
    """A block of every kind the app builds, with the parts whose classes write their own
    ``to_dict`` (options, option groups, confirmations, rich-text styles)."""
    confirm = ConfirmObject(title="Sure?", text="It starts dialing", confirm="Yes", deny="No")
    options = [Option(value=f"v{i}", text=f"Option {i}") for i in range(3)]
    bold = RichTextElementParts.TextStyle(bold=True)
    return [
        HeaderBlock(text="Campaigns"),
        DividerBlock(),
        ContextBlock(elements=[MarkdownTextObject(text="*1* running"), PlainTextObject(text="x")]),
        SectionBlock(
            text=MarkdownTextObject(text="Pick one"),
            fields=[MarkdownTextObject(text="a"), MarkdownTextObject(text="b")],
            accessory=OverflowMenuElement(action_id="more", options=options, confirm=confirm),
        ),
        ActionsBlock(
            block_id="acts",
            elements=[
                ButtonElement(text="Start", action_id="start", value="u", style="primary"),
                ButtonElement(text="Stop", action_id="stop", value="u", confirm=confirm),
                StaticSelectElement(
                    action_id="pick",
                    placeholder="Choose",
                    option_groups=[OptionGroup(label="Group", options=options)],
                ),
            ],
        ),
        InputBlock(
            block_id="in",
            label="Phone",
            element=PlainTextInputElement(action_id="phone", initial_value=""),
            optional=True,
        ),
        InputBlock(
            label="When",
            element=DatePickerElement(action_id="day", initial_date="2026-11-22"),
        ),
        InputBlock(
            label="Days",
            element=CheckboxesElement(action_id="days", options=options, initial_options=[]),
        ),
        RichTextBlock(
            elements=[
                RichTextSectionElement(
                    elements=[RichTextElementParts.Text(text="bold", style=bold)]
                ),
                RichTextListElement(
                    style="bullet",
                    elements=[
                        RichTextSectionElement(elements=[RichTextElementParts.Text(text="one")])
                    ],
                ),
            ]
        ),
    ]


def test_every_kind_of_block_serializes_as_to_dict_does() -> None:
    for block in kitchen_sink():
        assert same(block_dict(block), block.to_dict())


@pytest.mark.parametrize(
    "bad",
    [
        SectionBlock(text=MarkdownTextObject(text="x" * 3001)),
        ActionsBlock(elements=[ButtonElement(text="y" * 76, action_id="a")]),
        HeaderBlock(text="z" * 151),
        ContextBlock(elements=[MarkdownTextObject(text=str(i)) for i in range(11)]),
    ],
    ids=["section text", "button text", "header", "context elements"],
)
def test_a_block_slack_would_refuse_is_refused_with_to_dicts_message(bad: Block) -> None:
    with pytest.raises(SlackObjectFormationError) as theirs:
        bad.to_dict()
    with pytest.raises(SlackObjectFormationError) as ours:
        block_dict(bad)
    assert str(ours.value) == str(theirs.value)


class _LabelledButton(ButtonElement):
    """A button whose label is a property: read with ``getattr``, as ``to_dict`` reads it."""

    @property
    def accessibility_label(self) -> str | None:
        return f"Open {self.value}"

    @accessibility_label.setter
    def accessibility_label(self, _: str | None) -> None:
        pass


def test_attributes_set_after_construction_or_by_a_property_are_read_as_to_dict_reads_them() -> (
    None
):
    first = ButtonElement(text="Open", action_id="open_0", value="a")
    assert same(block_dict(first), first.to_dict())  # the class's shape is learnt here
    later = ButtonElement(text="Stop", action_id="stop_0", value="b")
    later.style = "danger"
    later.alt_text = "an attribute __init__ never sets"  # type: ignore[attr-defined]
    assert same(block_dict(later), later.to_dict())
    assert block_dict(later)["style"] == "danger"
    labelled = _LabelledButton(text="Open", action_id="open_1", value="c")
    assert same(block_dict(labelled), labelled.to_dict())
    assert block_dict(labelled)["accessibility_label"] == "Open c"
    section = SectionBlock(text="x")
    del section.__dict__["type"]  # the class's own ``type`` answers then
    assert same(block_dict(section), section.to_dict())
