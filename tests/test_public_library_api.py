"""Only the public API of Bolt and slack_sdk, anywhere in the repository: no import of a
private name (``_build_message``) or of a private or internal module
(``slack_bolt.context.respond.internals``, ``slack_sdk.webhook.internal_utils``), and no
``_name`` attribute read off something imported from them.  A library's private parts
change without notice between releases; what we need of them we write with its public
API (``bot/slack_ports.py`` sends Bolt's ``respond`` arguments through slack_sdk's
``send_dict``)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LIBRARIES = ("slack_bolt", "slack_sdk")
SKIPPED = frozenset({".venv", ".git", "build", "node_modules"})


def python_files() -> list[Path]:
    return sorted(
        p for p in ROOT.rglob("*.py") if not SKIPPED & set(p.relative_to(ROOT).parts[:-1])
    )


def private(name: str) -> bool:
    """``_x`` or an internals module; ``__x__`` (a dunder) is public."""
    if name.startswith("__") and name.endswith("__"):
        return False
    return name.startswith("_") or name in {"internals", "internal_utils"}


def of_library(module: str) -> bool:
    return module.split(".")[0] in LIBRARIES


def private_uses(tree: ast.Module) -> list[str]:
    """``line: what`` of each private use of the libraries in one module."""
    found: list[str] = []
    bound: set[str] = set()  # local names of the libraries' modules and objects
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if of_library(alias.name):
                    if any(private(part) for part in alias.name.split(".")):
                        found.append(f"{node.lineno}: import {alias.name}")
                    bound.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if not of_library(node.module):
                continue
            if any(private(part) for part in node.module.split(".")):
                found.append(f"{node.lineno}: from {node.module}")
            for alias in node.names:
                if private(alias.name):
                    found.append(f"{node.lineno}: from {node.module} import {alias.name}")
                bound.add(alias.asname or alias.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr):
            root: ast.expr = node.value
            while isinstance(root, ast.Attribute | ast.Call | ast.Subscript):
                root = root.func if isinstance(root, ast.Call) else root.value
            if isinstance(root, ast.Name) and root.id in bound:
                found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_no_private_api_of_bolt_or_slack_sdk_is_used() -> None:
    files = python_files()
    assert len(files) > 300  # the walk found the repository
    found = {
        f"{path.relative_to(ROOT)}:{use}"
        for path in files
        for use in private_uses(ast.parse(path.read_text(encoding="utf-8")))
    }
    assert not found, f"private API of Bolt or slack_sdk: {sorted(found)}"


def test_the_check_sees_each_kind_of_private_use() -> None:
    source = """
import slack_sdk.webhook.internal_utils
from slack_bolt.context.respond.internals import build
from slack_bolt.context.respond import _build_message
from slack_sdk import WebClient
from slack_bolt.async_app import AsyncApp as App
import slack_bolt
WebClient()._perform()
App.listeners._items
slack_bolt.app._private
from slack_bolt.async_app import AsyncRespond
AsyncRespond.__call__
from mine import _fine
""".strip()
    uses = private_uses(ast.parse(source))
    assert sorted(int(use.split(":")[0]) for use in uses) == [1, 2, 3, 7, 8, 9]
