"""The catalog lacks nothing: every message the code marks has its Vietnamese, and every
Vietnamese translation can stand in for its English at ``.format`` time.

``pybabel extract`` (through ``scripts/catalog.py``, as ``make catalog`` runs it) finds
the messages; a message the Vietnamese catalog lacks or leaves empty is shown in English
to a Vietnamese reader, so it is listed here.  A translation that drops or renames a
``{placeholder}`` of its message, or that is not valid format syntax, raises (or loses a
value) when the code fills it in, so it is listed too.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path
from string import Formatter
from types import ModuleType

import pytest
from babel.messages.catalog import Catalog

from tests.i18n.shown import ROOT, english_left, vi_catalog


def _catalog_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("catalog_script", ROOT / "scripts" / "catalog.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("catalog_script", module)
    spec.loader.exec_module(module)
    return module


catalog_script = _catalog_script()


def fields(text: str) -> set[str] | None:
    """The ``{placeholders}`` ``text`` fills, or None when it is not format syntax."""
    try:
        return {name for _, name, _, _ in Formatter().parse(text) if name is not None}
    except ValueError:
        return None


def placeholder_problems(catalog: Catalog) -> list[str]:
    """Translations that would raise or lose a value at ``.format`` time."""
    problems: list[str] = []
    for message in catalog:
        if not message.id:
            continue
        ids = list(message.id) if isinstance(message.id, tuple | list) else [message.id]
        known = [fields(i) for i in ids]
        if any(f is None for f in known):
            continue  # the English is not a format string: the code never formats it
        wanted = set().union(*(f for f in known if f is not None))
        needed = known[-1] or set()  # Vietnamese's one form stands for the plural too
        strings = message.string if isinstance(message.string, tuple | list) else [message.string]
        for string in strings:
            if not string:
                continue
            got = fields(string)
            if got is None:
                problems.append(f"{ids[0]!r}: {string!r} is not valid format syntax")
                continue
            renamed = got - wanted
            dropped = (wanted if len(ids) == 1 else needed) - got
            if renamed or dropped:
                said = []
                if dropped:
                    said.append("drops " + ", ".join(f"{{{n}}}" for n in sorted(dropped)))
                if renamed:
                    said.append("has unknown " + ", ".join(f"{{{n}}}" for n in sorted(renamed)))
                problems.append(f"{ids[0]!r}: {string!r} {' and '.join(said)}")
    return problems


def test_every_message_of_the_code_has_its_vietnamese(tmp_path: Path) -> None:
    pot = catalog_script.extract(tmp_path / "callops.pot")
    missing = catalog_script.untranslated(vi_catalog(), pot)
    assert len(pot) > 0, "pybabel extract found no message at all"
    assert not missing, (
        f"{len(missing)} messages of the code have no Vietnamese in {catalog_script.PO}; "
        "run `python scripts/catalog.py` and translate them:\n  " + "\n  ".join(missing)
    )


def test_every_translation_keeps_the_placeholders_of_its_message() -> None:
    problems = placeholder_problems(vi_catalog())
    assert not problems, "\n".join(problems)


# --- the checks themselves fail where they should -------------------------------------


def _catalog(*entries: tuple[str | tuple[str, str], str | tuple[str, ...]]) -> Catalog:
    catalog = Catalog(locale="vi")
    for message_id, string in entries:
        catalog.add(message_id, string)
    return catalog


def test_a_message_missing_or_left_empty_is_listed() -> None:
    pot = _catalog(("Paused {name}.", ""), ("Open", ""), ("{n} call", ""))
    po = _catalog(("Paused {name}.", "Đã tạm dừng {name}."), ("Open", ""))
    assert catalog_script.untranslated(po, pot) == ["Open", "{n} call"]


@pytest.mark.parametrize(
    ("message", "translation", "said"),
    [
        ("Paused {name}.", "Đã tạm dừng.", "drops {name}"),
        ("Paused {name}.", "Đã tạm dừng {ten}.", "drops {name} and has unknown {ten}"),
        ("Paused {name}.", "Đã tạm dừng {name.", "not valid format syntax"),
        ("Paused {name}.", "Đã tạm dừng {name}}.", "not valid format syntax"),
        (("{n} call", "{n} calls"), ("cuộc gọi",), "drops {n}"),
    ],
)
def test_a_translation_that_would_fail_at_format_time_is_listed(
    message: str | tuple[str, str], translation: str | tuple[str, ...], said: str
) -> None:
    [problem] = placeholder_problems(_catalog((message, translation)))
    assert said in problem


def test_a_faithful_translation_passes() -> None:
    good = _catalog(
        ("Paused {name}.", "Đã tạm dừng {name}."),
        (("one call", "{n} calls"), ("{n} cuộc gọi",)),
        ("Use {{name}} in a template", "Dùng {{name}} trong mẫu lời thoại"),
        ("Plain words", "Lời thường"),
    )
    assert placeholder_problems(good) == []


def test_english_left_on_a_vietnamese_surface_is_found() -> None:
    english = ":white_check_mark: Approved by <@U1> at 14:27. Paused *Thu hồi nợ*."
    assert english_left([english], frozenset({"thu", "hồi", "nợ"}))
    vietnamese = ":white_check_mark: <@U1> đã phê duyệt lúc 14:27. `/callops status`"
    assert english_left([vietnamese]) == []


GETTEXT = frozenset({"_", "ngettext", "pgettext", "N_"})
PACKAGES = ("commands", "bot", "storage", "callcenter")


def marked_inside_fstrings(source: str) -> list[int]:
    """Lines where a message is marked inside an f-string's braces: pybabel reads an
    f-string as one string on Python 3.11 and never sees it, so it never reaches the
    catalog and shows in English."""
    lines: list[int] = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.JoinedStr):
            continue
        for inner in ast.walk(node):
            if (
                isinstance(inner, ast.Call)
                and isinstance(inner.func, ast.Name)
                and inner.func.id in GETTEXT
                and inner.args
                and isinstance(inner.args[0], ast.Constant)  # _(CONSTANT) is marked elsewhere
            ):
                lines.append(inner.lineno)
    return lines


def test_no_message_is_marked_where_extraction_cannot_see_it() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
        for line in marked_inside_fstrings(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "hoist these _() calls out of their f-strings"


def test_a_message_marked_inside_an_fstring_is_found() -> None:
    assert marked_inside_fstrings("x = f\"*{_('Dialing hours')}*\"\n") == [1]
    assert marked_inside_fstrings("x = _('Dialing hours') + f'{y}'\n") == []
    assert marked_inside_fstrings("x = f'{_(HINT)}'\n") == []  # a constant, marked with N_
