"""The emoji shortcodes the app writes, found in its source, and the console's table of them.

The app puts Slack shortcodes (``:white_check_mark:``) in string literals in ``commands/``
and ``bot/``; the demo console draws them from ``emoji.json`` (``scripts/emoji_table.py``).
Reading the source, not a list kept by hand, is what lets a test notice a new one.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from emulators.slack.console_api import STATIC_DIR

ROOT = Path(__file__).resolve().parents[1]
APP_FOLDERS = ("commands", "bot")
TABLE = STATIC_DIR / "emoji.json"
SHORTCODE = re.compile(r"(?<!\w):([a-z0-9_+-]+):(?!\w)")
"""Slack's ``:name:``, not glued to a word or digit: ``08:00:00`` holds no ``:00:``."""


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes: prose about the code, never sent to Slack."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def in_source(source: str) -> set[str]:
    """The shortcode names in one module's string literals (f-string parts included)."""
    tree = ast.parse(source)
    skip = docstrings(tree)
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            names.update(SHORTCODE.findall(node.value))
    return names


def used_by_app() -> dict[str, str]:
    """Every shortcode name in the app -> the first file that uses it."""
    used: dict[str, str] = {}
    for folder in APP_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            for name in sorted(in_source(path.read_text(encoding="utf-8"))):
                used.setdefault(name, path.relative_to(ROOT).as_posix())
    return used


def console_table() -> dict[str, str]:
    """The console's shortcode -> character table."""
    table: dict[str, str] = json.loads(TABLE.read_text(encoding="utf-8"))["emoji"]
    return table
