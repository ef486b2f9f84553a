"""The docs stay true to the tree: every relative link in the README, ``docs/`` and the
benchmarks' README reaches a file (and a heading, for ``#anchor``), the README stays short
enough to read (what callops is, how to run it, configuration, deployment, links into
``docs/``), and ``benchmarks/README.md`` has one section per benchmark script, each naming
a script that exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README_MAX_LINES = 250
DOCS = sorted([ROOT / "README.md", ROOT / "benchmarks" / "README.md", *ROOT.glob("docs/*.md")])

FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE = re.compile(r"`+[^`\n]*`+")
LINK = re.compile(r"!?\[[^\]\n]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} +(.+?) *#*$", re.MULTILINE)
SCRIPT = re.compile(r"\(benchmarks/([\w-]+\.py)\)")


def prose(text: str) -> str:
    """The text without code blocks and code spans, where brackets are not links."""
    return CODE.sub("", FENCE.sub("", text))


def anchors(path: Path) -> set[str]:
    """The ids GitHub gives the headings of a Markdown file: lower case, punctuation
    dropped, spaces as hyphens, ``-1``, ``-2`` after a repeated one."""
    seen: dict[str, int] = {}
    ids: set[str] = set()
    for heading in HEADING.findall(FENCE.sub("", path.read_text(encoding="utf-8"))):
        text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
        slug = re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        ids.add(slug if count == 0 else f"{slug}-{count}")
    return ids


def broken_links(path: Path, root: Path = ROOT) -> list[str]:
    broken: list[str] = []
    for target in LINK.findall(prose(path.read_text(encoding="utf-8"))):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        file, _, anchor = target.partition("#")
        linked = (path.parent / file).resolve() if file else path
        where = f"{path.relative_to(root)}: ({target})"
        if not linked.exists():
            broken.append(f"{where}: no such file")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            broken.append(f"{where}: no heading with that anchor in {linked.name}")
    return broken


def test_every_relative_link_in_the_docs_reaches_a_file_and_heading() -> None:
    broken = [problem for path in DOCS for problem in broken_links(path)]
    assert not broken, "\n".join(broken)


def test_the_link_check_sees_a_broken_link_and_a_missing_anchor(tmp_path: Path) -> None:
    (tmp_path / "b.md").write_text("# Two words\n", encoding="utf-8")
    page = tmp_path / "a.md"
    page.write_text(
        "[ok](b.md#two-words) `[code](nowhere.md)` [gone](c.md) [off](b.md#three)\n"
        "```\n[fenced](nowhere.md)\n```\n[web](https://example.com/x)\n",
        encoding="utf-8",
    )
    assert broken_links(page, tmp_path) == [
        "a.md: (c.md): no such file",
        "a.md: (b.md#three): no heading with that anchor in b.md",
    ]


def test_the_readme_is_at_most_250_lines() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, (
        f"README.md has {lines} lines; move detail into a page of docs/ and link it"
    )


def test_every_benchmark_script_has_a_section_and_every_section_names_a_script() -> None:
    text = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    sections = [line for line in text.splitlines() if line.startswith("## ")]
    named = {script for line in sections for script in SCRIPT.findall(line)}
    scripts = {path.name for path in (ROOT / "benchmarks").glob("*.py")} - {"__init__.py"}
    assert not scripts - named, f"benchmark scripts without a section: {sorted(scripts - named)}"
    nameless = [line for line in sections if not SCRIPT.search(line)]
    assert not nameless, f"sections naming no script, as `## … (benchmarks/x.py)`: {nameless}"
    assert not named - scripts, f"sections naming no existing script: {sorted(named - scripts)}"
