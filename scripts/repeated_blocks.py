"""Count blocks of code repeated at two or more places, to keep copy-paste from creeping back.

    python scripts/repeated_blocks.py [--lines 6] commands

Every line is stripped; blank lines, comments, import statements, docstrings and lines of
brackets or commas alone are left out.  A window of ``--lines`` kept lines that occurs at
two or more places (in one file or several) is repeated; overlapping windows in one file
merge into one instance.  Prints each repeated block with its places, then the totals:
distinct blocks and instances.  Exits 1 when there is any, so it can guard a check.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections import defaultdict
from pathlib import Path

_PUNCTUATION = re.compile(r"^[()\[\]{},:;]*$")

Line = tuple[int, str]
"""A kept line: its number in the file and its stripped text."""


def kept_lines(path: Path) -> list[Line]:
    source = path.read_text(encoding="utf-8")
    skipped: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import | ast.ImportFrom) and node.end_lineno is not None:
            skipped.update(range(node.lineno, node.end_lineno + 1))
        body = getattr(node, "body", None)
        if isinstance(body, list) and body:
            first = body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
                and first.end_lineno is not None
            ):
                skipped.update(range(first.lineno, first.end_lineno + 1))
    kept: list[Line] = []
    for number, raw in enumerate(source.splitlines(), start=1):
        text = raw.strip()
        if number in skipped or not text or text.startswith("#") or _PUNCTUATION.match(text):
            continue
        kept.append((number, text))
    return kept


def repeated(paths: list[Path], size: int) -> dict[tuple[str, ...], list[str]]:
    """Each repeated block (its first ``size`` lines) -> its places, ``file:first-last``."""
    files = {path: kept_lines(path) for path in paths}
    places: dict[tuple[str, ...], list[tuple[Path, int]]] = defaultdict(list)
    for path, lines in files.items():
        for start in range(len(lines) - size + 1):
            places[tuple(text for _, text in lines[start : start + size])].append((path, start))
    marked: dict[Path, set[int]] = defaultdict(set)
    for spots in places.values():
        if len(spots) > 1:
            for path, start in spots:
                marked[path].update(range(start, start + size))
    blocks: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for path, indexes in marked.items():
        lines = files[path]
        run: list[int] = []
        for index in [*sorted(indexes), -1]:
            if run and index != run[-1] + 1:
                key = tuple(lines[i][1] for i in run[:size])
                blocks[key].append(f"{path}:{lines[run[0]][0]}-{lines[run[-1]][0]}")
                run = []
            if index >= 0:
                run.append(index)
    return blocks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--lines", type=int, default=6)
    args = parser.parse_args(argv)
    paths = sorted(p for folder in args.folders for p in folder.rglob("*.py"))
    blocks = repeated(paths, args.lines)
    for key, spots in blocks.items():
        print(" | ".join(spots))
        print(f"    {key[0][:100]}")
    instances = sum(len(spots) for spots in blocks.values())
    print(f"repeated blocks of {args.lines}+ lines: {len(blocks)} distinct, {instances} instances")
    return 1 if blocks else 0


if __name__ == "__main__":
    sys.exit(main())
