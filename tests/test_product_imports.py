"""The product stands apart from the demo: ``pip install callops`` runs ``callops serve``
and ``callops socket``; the emulators, the demo wiring and their web stack come with the
``callops[demo]`` extra.

So the product packages import nothing of ``emulators`` or ``demo`` (nor fastapi,
uvicorn, starlette or python-multipart, which only they need), read from the source and
seen in a running interpreter. One allowance: ``bot/cli_app.py``, the entry point of
``callops emulator`` and ``callops demo``, imports them inside its functions, when one of
those commands runs; never at import time.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("callcenter", "storage", "commands", "bot")
DEMO_ONLY = frozenset(
    {"emulators", "demo", "fastapi", "starlette", "uvicorn", "multipart", "python_multipart"}
)
LAZY_ALLOWED = frozenset({"bot/cli_app.py"})
"""Modules allowed to import the extra's modules, inside a function only."""


def product_files() -> list[Path]:
    return sorted(p for pkg in PRODUCT for p in (ROOT / pkg).rglob("*.py"))


def imported_tops(node: ast.Import | ast.ImportFrom) -> set[str]:
    if isinstance(node, ast.Import):
        return {alias.name.split(".")[0] for alias in node.names}
    return {node.module.split(".")[0]} if node.level == 0 and node.module else set()


def demo_imports(tree: ast.Module, *, lazy_allowed: bool) -> list[str]:
    """``line: module`` of every import of the extra's modules, skipping those inside a
    function when ``lazy_allowed``."""
    skip: set[ast.AST] = set()
    if lazy_allowed:
        for func in ast.walk(tree):
            if isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                skip.update(ast.walk(func))
    return [
        f"{node.lineno}: {top}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom) and node not in skip
        for top in sorted(imported_tops(node) & DEMO_ONLY)
    ]


def test_product_source_imports_nothing_of_the_demo() -> None:
    files = product_files()
    assert len(files) > 100  # the walk found the packages
    found = {
        rel: hits
        for path in files
        if (rel := path.relative_to(ROOT).as_posix())
        and (
            hits := demo_imports(
                ast.parse(path.read_text(encoding="utf-8")), lazy_allowed=rel in LAZY_ALLOWED
            )
        )
    }
    assert found == {}


def test_the_allowance_is_used_lazily() -> None:
    """The entry point does import the extra's modules, and only inside functions: were
    it to import them at its top, the first test would not see it (it skips nothing
    there), and were it to stop importing them the allowance would be dead."""
    tree = ast.parse((ROOT / "bot/cli_app.py").read_text(encoding="utf-8"))
    assert demo_imports(tree, lazy_allowed=True) == []
    assert demo_imports(tree, lazy_allowed=False) != []


RUN_NOT_IMPORTED = frozenset({"storage.alembic.env"})
"""Alembic's environment script, which runs a migration when loaded: read by the first
test, not imported here."""


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_importing_every_product_module_loads_nothing_of_the_demo() -> None:
    done = run_python(
        f"""
        import importlib, pkgutil, sys
        names = []
        for pkg in {PRODUCT!r}:
            names.append(pkg)
            module = importlib.import_module(pkg)
            names += [m.name for m in pkgutil.walk_packages(module.__path__, pkg + ".")]
        for name in names:
            if name not in {sorted(RUN_NOT_IMPORTED)!r}:
                importlib.import_module(name)
        loaded = sorted({{m.split(".")[0] for m in sys.modules}} & set({sorted(DEMO_ONLY)!r}))
        print(len(names), loaded)
        """
    )
    assert done.returncode == 0, done.stderr
    count, loaded = done.stdout.split(" ", 1)
    assert int(count) > 100
    assert loaded.strip() == "[]"


WITHOUT_EXTRA = f"""
import importlib.abc, sys
class Absent(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {sorted(DEMO_ONLY)!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, Absent())
from bot.cli import main
"""
"""A product install without the extra: its modules cannot be found."""


def test_the_product_cli_works_without_the_extra() -> None:
    done = run_python(WITHOUT_EXTRA + "main(['serve', '--help'])")
    assert done.returncode == 0, done.stderr
    assert "--port" in done.stdout


@pytest.mark.parametrize(
    "argv", [["demo"], ["demo", "--port", "8801"], ["emulator", "--port", "8901", "--seed", "2"]]
)
def test_the_demo_commands_name_the_extra_when_it_is_missing(argv: list[str]) -> None:
    done = run_python(WITHOUT_EXTRA + f"sys.exit(main({argv!r}))")
    assert done.returncode == 2, done.stderr
    assert f"callops {argv[0]}: needs the demo extra" in done.stderr
    assert "pip install 'callops[demo]'" in done.stderr
    assert "Traceback" not in done.stderr
