"""``help``: every command, grouped by family; one command explained; unknown ones named."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import commands
from commands.kernel.catalog import usage_of
from commands.kernel.help import FAMILY_TITLES, help_command
from storage import Role
from tests.commands.conftest import MakeContext
from tests.commands.helpers import payload, visible
from tests.registry import CATALOG


async def test_help_lists_every_command_by_family(unconnected: MakeContext) -> None:
    reply = await help_command(unconnected(), [])
    text = visible(reply)
    for spec in CATALOG.commands:
        assert spec.usage.replace("<", "&lt;").replace(">", "&gt;") in text
    for family in {s.family for s in CATALOG.commands}:
        assert FAMILY_TITLES[family] in text
    payload(reply)


async def test_help_marks_what_a_viewer_cannot_run(unconnected: MakeContext) -> None:
    viewer = visible(await help_command(unconnected(Role.VIEWER), []))
    admin = visible(await help_command(unconnected(Role.ADMIN), []))
    assert ":lock: _admin_" in viewer and ":lock: _operator_" in viewer
    assert ":lock:" not in admin.replace(":lock: marks", "")


async def test_help_for_one_command_shows_usage_examples_and_role(unconnected: MakeContext) -> None:
    text = visible(await help_command(unconnected(), ["cdr"]))
    assert "/callops cdr [id=] [phone=] [ext=]" in text
    assert "Look up call records." in text
    assert "/callops cdr phone=0912345678" in text
    assert "You can run it" in text
    start = visible(await help_command(unconnected(Role.VIEWER), ["start"]))
    assert "Needs the *operator* role" in start


async def test_help_for_two_word_commands_and_families(unconnected: MakeContext) -> None:
    assert "/callops pause all" in visible(await help_command(unconnected(), ["pause", "all"]))
    digest = visible(await help_command(unconnected(), ["digest"]))
    assert "digest add" in digest and "digest remove" in digest
    assert "leads upload" in visible(await help_command(unconnected(), ["leads"]))


async def test_help_for_an_unknown_command_says_so_and_suggests_the_nearest(
    unconnected: MakeContext,
) -> None:
    reply = await help_command(unconnected(), ["nosuch"])
    text = visible(reply)
    assert "There is no command `nosuch`" in text
    assert "Did you mean" not in text and "`/callops help` lists every command" in text
    typo = visible(await help_command(unconnected(), ["campain"]))
    assert "Did you mean `campaign` or `campaigns`?" in typo
    assert len(typo.splitlines()) == 1, "a typo gets one line, not the whole list"
    sub = visible(await help_command(unconnected(), ["digest", "ad"]))
    assert "There is no command `digest ad`. Did you mean `digest add`?" in sub
    assert "`/callops help digest` explains them." in sub


async def test_help_explains_how_to_write_names_and_values_once(unconnected: MakeContext) -> None:
    overview = visible(await help_command(unconnected(), []))
    assert "How to write names and values" in overview
    topic = visible(await help_command(unconnected(), ["writing"]))
    assert "lead_name=Nguyễn Văn An" in topic and "goi lai khach hang ct" in topic


async def test_help_escapes_what_was_typed(unconnected: MakeContext) -> None:
    text = visible(await help_command(unconnected(), ["<!channel>"]))
    assert "&lt;!channel&gt;" in text and "<!channel>" not in text


def test_every_usage_a_command_quotes_is_in_the_catalog() -> None:
    """``usage_of`` fails loudly on an unknown name; no handler may quote one."""
    root = Path(commands.__file__).parent
    quoted = set()
    for path in root.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id == "usage_of"
                and node.args
                and isinstance(node.args[0], ast.Constant)
            ):
                quoted.add(str(node.args[0].value))
    assert len(quoted) > 20
    for name in quoted:
        assert usage_of(name) == CATALOG.find(name).usage  # type: ignore[union-attr]
    with pytest.raises(LookupError):
        usage_of("no such command")
